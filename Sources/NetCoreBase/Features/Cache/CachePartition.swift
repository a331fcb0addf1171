import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// The part of a client's cache an answer is stored in and looked up in
/// (docs/caching.md, "Partitions"). An app's cache is a private cache in RFC
/// 9111's sense, but one process may serve several users: an answer to a
/// request that carried credentials is kept in the partition of those
/// credentials, so a request with other credentials never finds it, in memory
/// or on disk. An answer to a request without any is in no partition (nil).
///
/// The partition is a SHA-256 (libcrypto, `ncshim_sha256`) of either the name the
/// app gave ("cache.partition", `NetClient.setCachePartition`: every answer goes
/// there, so a token refresh keeps them) or the credential values
/// (`CredentialValues`). Only the hash is kept — in the entry's key, memory and
/// disk — never the values.
struct CachePartition: Sendable, Equatable {
    /// Lower-case hex of the SHA-256 (64 digits).
    let id: String

    /// The partition the app named. Nil only if libcrypto failed.
    static func named(_ name: String) -> CachePartition? {
        digest("netcore cache partition v1\nname\n" + name)
    }

    /// The partition of these credential values. Nil only if libcrypto failed.
    static func of(_ values: CredentialValues) -> CachePartition? {
        digest("netcore cache partition v1\ncredentials\n" + values.text)
    }

    private static func digest(_ text: String) -> CachePartition? {
        var bytes = Array(text.utf8)
        defer { for i in bytes.indices { bytes[i] = 0 } }   // credentials: not left behind
        var out = [UInt8](repeating: 0, count: 32)
        let ok = bytes.withUnsafeBytes { src in
            out.withUnsafeMutableBufferPointer { ncshim_sha256(src.baseAddress, src.count, $0.baseAddress) }
        }
        guard ok == 1 else { return nil }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for b in out {
            text.append(hex[Int(b >> 4)])
            text.append(hex[Int(b & 0x0f)])
        }
        return CachePartition(id: String(decoding: text, as: UTF8.self))
    }
}

/// The credential values one request carries, in one canonical text whose
/// SHA-256 is its partition (CachePartition.of): every header whose name is a
/// credential one (Authorization, Cookie, Proxy-Authorization, the
/// "credential_headers"; lower-cased name and value, sorted), the cookies of the
/// client's jar for the request's host (libcurl adds its Cookie header where the
/// library cannot see it), and the path of the client certificate a TLS
/// connection presents. Never logged, never stored.
struct CredentialValues {
    /// "name: value" lines of the credential headers, sorted.
    private(set) var headerLines: [String] = []
    /// The jar's part ("" when the jar has nothing for the host, or there is none).
    let jar: String
    /// The client certificate's path, if one is presented.
    let clientCert: String?

    /// Nothing identifies the sender: the answer is in no partition.
    var isEmpty: Bool { headerLines.isEmpty && jar.isEmpty && clientCert == nil }

    var text: String {
        var t = ""
        for line in headerLines {
            t += line
            t += "\n"
        }
        t += "jar\n" + jar + "\ncert\n" + (clientCert ?? "") + "\n"
        return t
    }

    /// The credential headers of `headers` (`names`: lower-cased), with
    /// `authorization` (the client's token or basic credentials, which the
    /// attempt adds unless the request has an Authorization of its own) when
    /// given.
    init(
        headers: HeaderFields, names: Set<String>, authorization: String? = nil, jar: String, clientCert: String?
    ) {
        self.jar = jar
        self.clientCert = clientCert
        var lines: [String] = []
        var hasAuthorization = false
        for (name, value) in headers {
            let lower = name.lowercased()
            guard names.contains(lower) else { continue }
            if lower == "authorization" { hasAuthorization = true }
            lines.append(lower + ": " + value)
        }
        if let authorization, !hasAuthorization { lines.append("authorization: " + authorization) }
        headerLines = lines.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

extension CookieJar {
    /// The part of a request's credentials the jar adds for `host`: its unexpired
    /// cookies whose domain is the host or one of its parents, as "domain path
    /// name=value" lines, sorted. More than libcurl may send (path and Secure are
    /// not looked at): a finer partition, never a coarser one. "" when none.
    func credentialText(forHost host: String) -> String {
        let host = host.lowercased()
        let now = Int64(time(nil))
        var lines: [String] = []
        for c in allCookies() where !c.isExpired(now: now) {
            let domain = c.domain.lowercased()
            guard host == domain || host.hasSuffix("." + domain) else { continue }
            lines.append(domain + "\t" + c.path + "\t" + c.name + "=" + c.value)
        }
        guard !lines.isEmpty else { return "" }
        lines.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return lines.joined(separator: "\n")
    }
}
