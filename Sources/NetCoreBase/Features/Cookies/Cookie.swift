/// One cookie of a client's jar, as libcurl's cookie engine holds it.
public struct Cookie: Sendable, Equatable {
    /// The cookie's name.
    public var name: String
    /// The cookie's value (a credential: never logged).
    public var value: String
    /// The host (no leading dot); `includeSubdomains` says whether subdomains match too
    /// (a `Domain=` attribute) or only this host (a host-only cookie).
    public var domain: String
    /// Subdomains of `domain` match too (the cookie had a `Domain=` attribute).
    public var includeSubdomains: Bool
    /// The path prefix the cookie is sent under.
    public var path: String
    /// Sent over https only.
    public var secure: Bool
    /// Set with `HttpOnly` (libcurl sends it like any other).
    public var httpOnly: Bool
    /// Unix seconds when it expires; 0: a session cookie (no Expires / Max-Age).
    public var expires: Int64

    /// A cookie with every field given (tests and callers that build a jar's view).
    public init(
        name: String, value: String, domain: String, includeSubdomains: Bool = false, path: String = "/",
        secure: Bool = false, httpOnly: Bool = false, expires: Int64 = 0
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.includeSubdomains = includeSubdomains
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.expires = expires
    }

    /// Reads one line of libcurl's Netscape format (CURLINFO_COOKIELIST):
    /// `domain \t tailmatch \t path \t secure \t expires \t name \t value`, the domain
    /// prefixed with "#HttpOnly_" for an HttpOnly cookie and with "." when
    /// subdomains match. Nil for anything else (comments, short lines).
    init?(netscapeLine line: String) {
        var fields = line.split(separator: "\t", maxSplits: 6, omittingEmptySubsequences: false).map(String.init)
        // A cookie with an empty value has six fields.
        if fields.count == 6 { fields.append("") }
        guard fields.count == 7 else { return nil }
        var domain = fields[0]
        httpOnly = domain.hasPrefix("#HttpOnly_")
        if httpOnly { domain.removeFirst("#HttpOnly_".count) }
        guard !domain.hasPrefix("#"), !domain.isEmpty else { return nil }
        includeSubdomains = fields[1] == "TRUE"
        if domain.hasPrefix(".") { domain.removeFirst() }
        self.domain = domain
        path = fields[2]
        secure = fields[3] == "TRUE"
        expires = Int64(fields[4]) ?? 0
        name = fields[5]
        value = fields[6]
    }

    /// `init(netscapeLine:)` of libcurl's bytes (bytes that are not UTF-8 read as U+FFFD).
    init?(netscapeBytes line: [UInt8]) { self.init(netscapeLine: String(decoding: line, as: UTF8.self)) }

    /// Expired at `now` (Unix seconds); a session cookie never is.
    func isExpired(now: Int64) -> Bool { expires != 0 && expires <= now }

    /// The JSON object nc_client_cookies_json lists.
    public var jsonText: String {
        "{\"name\":\(Cookie.quoted(name)),\"value\":\(Cookie.quoted(value)),\"domain\":\(Cookie.quoted(domain)),"
            + "\"include_subdomains\":\(includeSubdomains),\"path\":\(Cookie.quoted(path)),\"secure\":\(secure),"
            + "\"http_only\":\(httpOnly),\"expires\":\(expires)}"
    }

    /// `s` as a JSON string literal (quotes, backslashes and control characters
    /// escaped; other characters as UTF-8).
    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where u.value < 0x20 || u.value == 0x7F:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
