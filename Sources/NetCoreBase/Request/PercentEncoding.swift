/// RFC 3986 percent-encoding for query and form components.
enum PercentEncoding {
    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Encodes every byte except the unreserved set (ALPHA DIGIT - . _ ~).
    static func component(_ s: String, into out: inout [UInt8]) {
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(b)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            }
        }
    }

    /// Encodes only bytes ≥ 0x80 (a path or URL the caller wrote with UTF-8 text).
    static func nonASCII(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 >= 0x80 }) else { return s }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 16)
        for b in s.utf8 {
            if b >= 0x80 {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
