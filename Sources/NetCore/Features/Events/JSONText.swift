/// A small writer of compact JSON text for events and metrics: no jansson objects,
/// one byte buffer grown in place (appending UTF-8 bytes rather than small Strings:
/// an event costs a few hundred instructions, not tens of thousands).
struct JSONText {
    private var bytes: [UInt8]
    private var first = true

    init() {
        bytes = []
        bytes.reserveCapacity(320)
        bytes.append(UInt8(ascii: "{"))
    }

    @inline(__always)
    private mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func key(_ k: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        append(k)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func string(_ k: StaticString, _ v: String?) {
        key(k)
        guard let v else { append("null"); return }
        JSONText.quote(v, into: &bytes)
    }

    mutating func int<I: BinaryInteger>(_ k: StaticString, _ v: I?) {
        key(k)
        guard let v else { append("null"); return }
        JSONText.decimal(Int64(clamping: v), into: &bytes)
    }

    mutating func bool(_ k: StaticString, _ v: Bool) {
        key(k)
        if v { append("true") } else { append("false") }
    }

    /// A member whose value is already JSON text.
    mutating func raw(_ k: StaticString, _ json: String) {
        key(k)
        bytes.append(contentsOf: json.utf8)
    }

    /// Opens a nested object as member `k`; close it with `endObject()`.
    mutating func beginObject(_ k: StaticString) {
        key(k)
        bytes.append(UInt8(ascii: "{"))
        first = true
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        first = false
    }

    mutating func null(_ k: StaticString) {
        key(k)
        append("null")
    }

    func finished() -> String {
        var b = bytes
        b.append(UInt8(ascii: "}"))
        return String(decoding: b, as: UTF8.self)
    }

    /// `v` in decimal, without going through a String.
    static func decimal(_ v: Int64, into out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10)
                m /= 10
                n += 1
            } while m > 0
            while n > 0 {
                n -= 1
                out.append(d[n])
            }
        }
    }

    static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most text needs no escape: copy it whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: s.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(b)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(b)
            case UInt8(ascii: "\n"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                hex.withUTF8Buffer { h in
                    out.append(h[Int(b >> 4)])
                    out.append(h[Int(b & 0xF)])
                }
            default: out.append(b)   // UTF-8 passes through (a String is valid UTF-8)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
