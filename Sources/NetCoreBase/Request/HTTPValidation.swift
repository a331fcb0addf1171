/// The checks every method, URL and header passes before anything is sent.
/// They reject what could split or smuggle a request: CR, LF, NUL and other
/// control characters, and names that are not HTTP tokens (RFC 9110 §5.6.2).
public enum HTTPValidation {
    @inline(__always)
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A method or header name: one or more token characters.
    public static func isToken(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy(isTokenByte)
    }

    /// A header value: no control characters except horizontal tab.
    public static func isHeaderValue(_ s: String) -> Bool {
        s.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// A path or URL: non-empty, no spaces or control characters.
    public static func isURLText(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    /// Whether `s` starts with "http://" or "https://" (any case).
    static func isAbsoluteHTTP(_ s: String) -> Bool {
        let lower = s.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Whether `s` names some scheme ("ftp://", "file:") rather than a path.
    static func hasScheme(_ s: String) -> Bool {
        guard let colon = s.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let scheme = s.utf8[s.utf8.startIndex..<colon]
        guard let first = scheme.first, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else {
            return false
        }
        return scheme.allSatisfy { b in
            let l = b | 0x20
            return (l >= UInt8(ascii: "a") && l <= UInt8(ascii: "z"))
                || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        }
    }

    /// A base URL from the configuration: absolute http(s), no spaces or controls.
    static func isBaseURL(_ s: String) -> Bool {
        isURLText(s) && isAbsoluteHTTP(s) && s.utf8.count > 8
    }
}
