/// What events, log lines and metrics show of a URL or a message: never
/// credentials. A URL loses its userinfo (`user:password@`) and its fragment, and
/// the value of every query parameter whose name looks secret becomes `REDACTED`
/// (the name stays, so a reader still sees which parameters were sent), as does a
/// value that is itself a URL with userinfo. Pairs are split on `&` and `;`.
///
/// Secret-looking names (compared case-insensitively): token, access_token,
/// refresh_token, id_token, key, api_key, apikey, secret, client_secret, password,
/// passwd, pwd, signature, sig, auth, authorization, credential, credentials,
/// session, sessionid, plus any name ending in `_token`, `-token`, `_key`, `-key`,
/// `_secret`, `-secret` or containing `password`; a nested name (`auth[token]`,
/// `session.key`) when one of its parts is such a name.
public enum Redaction {
    /// Query parameter names whose values events and logs never show (compared case-insensitively).
    public static let secretNames: Set<String> = [
        "token", "access_token", "refresh_token", "id_token", "key", "api_key", "apikey",
        "secret", "client_secret", "password", "passwd", "pwd", "signature", "sig", "auth",
        "authorization", "credential", "credentials", "session", "sessionid"
    ]

    /// Whether a query parameter of this name has its value hidden. A nested name,
    /// as Rails, PHP and qs write an object's members (`auth[token]`,
    /// `client[api_key]`, `session.key`), is secret when one of its parts is.
    public static func isSecret(name: String) -> Bool {
        let n = name.lowercased()
        if isSecretPart(n) { return true }
        guard n.utf8.contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: ".") }) else { return false }
        return n.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "." }).contains { isSecretPart(String($0)) }
    }

    /// One lower-cased name (or part of a nested one) against the list and the suffixes.
    private static func isSecretPart(_ n: String) -> Bool {
        if secretNames.contains(n) || n.containsASCII("password") { return true }
        for suffix in ["_token", "-token", "_key", "-key", "_secret", "-secret"] where n.hasSuffix(suffix) {
            return true
        }
        return false
    }

    /// `url` without userinfo, fragment, or the values of secret query parameters.
    public static func url(_ url: String) -> String {
        // Most URLs have no userinfo, query or fragment: nothing to hide, no copy.
        // (Over the contiguous bytes: UTF8View.contains costs far more a byte;
        // bench/RESULTS.md, "Figures that justified code choices".)
        func hides(_ b: UInt8) -> Bool { b == UInt8(ascii: "@") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") }
        let plain =
            url.utf8.withContiguousStorageIfAvailable { !$0.contains(where: hides) } ?? !url.utf8.contains(where: hides)
        if plain { return url }
        var s = Substring(url)
        if let hash = s.firstIndex(of: "#") { s = s[..<hash] }
        var query: Substring? = nil
        if let q = s.firstIndex(of: "?") {
            query = s[s.index(after: q)...]
            s = s[..<q]
        }
        var out = String(s)
        // Userinfo: between "://" and the first "/" of the authority, up to the last "@".
        if let colon = out.utf8.firstIndex(of: UInt8(ascii: ":")),
            out[colon...].hasPrefix("://")
        {
            let authorityStart = out.utf8.index(colon, offsetBy: 3)
            let authorityEnd = out[authorityStart...].firstIndex(of: "/") ?? out.endIndex
            if let at = out[authorityStart..<authorityEnd].lastIndex(of: "@") {
                out.removeSubrange(authorityStart...at)
            }
        }
        guard let query else { return out }
        // Pairs are separated by "&" or ";" (both in use; WHATWG splits on "&" only,
        // older servers on ";" too): each separator is kept as it was.
        out += "?"
        var pairStart = query.startIndex
        for i in query.indices where query[i] == "&" || query[i] == ";" {
            out += redactedPair(query[pairStart..<i])
            out.append(query[i])
            pairStart = query.index(after: i)
        }
        out += redactedPair(query[pairStart...])
        return out
    }

    /// One `name=value` of a query: the value REDACTED when the name looks secret
    /// (percent-decoded; a name that does not decode is read without its `%`s), or
    /// when the value is itself a URL with userinfo (`to=https://user:pw@host/`).
    private static func redactedPair(_ pair: Substring) -> String {
        guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
        let name = pair[..<eq]
        let decodedName = name.removingPercentEncoding ?? String(name.filter { $0 != "%" })
        if isSecret(name: decodedName) { return "\(name)=REDACTED" }
        let value = pair[pair.index(after: eq)...]
        if value.containsASCII("@") || value.containsASCII("%40"),
            let decoded = value.removingPercentEncoding, hasUserinfo(Substring(decoded))
        {
            return "\(name)=REDACTED"
        }
        return String(pair)
    }

    /// Whether `text` starts like a URL with userinfo: "scheme://…@" with the "@"
    /// before the authority's end (the first "/", "?" or "#" after "://").
    private static func hasUserinfo(_ text: Substring) -> Bool {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return false }
        let authority = text[text.index(colon, offsetBy: 3)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return authority.contains("@")
    }

    /// A message with every URL in it redacted as `url(_:)` does.
    public static func text(_ message: String) -> String {
        guard message.containsASCII("://") else { return message }
        var out = ""
        var word = ""
        func flush() {
            out += word.containsASCII("://") ? url(word) : word
            word = ""
        }
        for ch in message {
            if ch == " " || ch == "'" || ch == "\"" || ch == "\n" || ch == "\t" || ch == "(" || ch == ")" || ch == "<"
                || ch == ">"
            {
                flush()
                out.append(ch)
            } else {
                word.append(ch)
            }
        }
        flush()
        return out
    }
}

extension Substring {
    /// Percent-decoding of a query name (nil if malformed).
    fileprivate var removingPercentEncoding: String? {
        var bytes: [UInt8] = []
        var it = utf8.makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "%") {
                guard let h = it.next(), let l = it.next(), let hv = hex(h), let lv = hex(l) else { return nil }
                bytes.append(hv << 4 | lv)
            } else if b == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

private func hex(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}
