/// A small writer of compact JSON text for events and metrics: no jansson
/// objects, one String grown in place.
struct JSONText {
    private(set) var text = "{"
    private var first = true

    private mutating func key(_ k: String) {
        if !first { text += "," }
        first = false
        text += "\""
        text += k
        text += "\":"
    }

    mutating func string(_ k: String, _ v: String?) {
        key(k)
        guard let v else { text += "null"; return }
        JSONText.quote(v, into: &text)
    }

    mutating func int<I: BinaryInteger>(_ k: String, _ v: I?) {
        key(k)
        if let v { text += String(v) } else { text += "null" }
    }

    mutating func bool(_ k: String, _ v: Bool) {
        key(k)
        text += v ? "true" : "false"
    }

    /// A member whose value is already JSON text.
    mutating func raw(_ k: String, _ json: String) {
        key(k)
        text += json
    }

    mutating func null(_ k: String) {
        key(k)
        text += "null"
    }

    func finished() -> String { text + "}" }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}
