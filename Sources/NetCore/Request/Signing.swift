import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// Request signing (DESIGN.md §4, docs/signing.md): HMAC-SHA256 with the
/// configured secret over
///
///     METHOD \n PATH \n SORTED_QUERY \n hex(sha256(body)) \n TIMESTAMP
///
/// PATH is the path as sent (percent-encoded, no query); SORTED_QUERY the query's
/// `name=value` pairs as sent, sorted bytewise by name then value, joined by `&`
/// (empty when none); TIMESTAMP Unix seconds in decimal, also sent in the
/// timestamp header. The signature is lowercase hex. The crypto is libcrypto's
/// (nccrypto.c).
enum RequestSigning {
    /// Signs `request` at `timestamp`: sets the timestamp and signature headers.
    /// Nil, or the error to fail the attempt with (the message names no secret).
    static func sign(
        _ request: inout OutgoingRequest, _ signing: Configuration.Signing,
        timestamp: Int64
    ) -> NetError? {
        guard let (path, query) = pathAndQuery(request.url) else {
            return .invalidRequest("The URL of \(request.method) could not be parsed to sign the request.")
        }
        let bodyHash: String?
        if let body = request.body {
            bodyHash = sha256Hex(body.bytes)
        } else {
            bodyHash = sha256Hex(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let ts = String(timestamp)
        guard let bodyHash,
            let signature = hmacHex(
                secret: signing.secret,
                message: stringToSign(
                    method: request.method, path: path, query: query,
                    bodySHA256: bodyHash, timestamp: ts))
        else {
            return .internalError("The request could not be signed (libcrypto failed).")
        }
        do throws(NetError) {
            try request.setHeader(signing.timestampHeader, ts)
            try request.setHeader(signing.header, signature)
        } catch {
            return error
        }
        return nil
    }

    /// The string signed: the five parts joined by "\n".
    static func stringToSign(
        method: String, path: String, query: String, bodySHA256: String,
        timestamp: String
    ) -> String {
        method + "\n" + path + "\n" + sortedQuery(query) + "\n" + bodySHA256 + "\n" + timestamp
    }

    /// The query's pairs as sent (empty pieces dropped), sorted bytewise by name,
    /// then value, joined by "&". A piece without "=" is a name with an empty value
    /// and is kept as sent.
    static func sortedQuery(_ query: String) -> String {
        let pieces = query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true)
        let pairs: [(name: [UInt8], value: [UInt8], text: Substring)] = pieces.map { piece in
            let text = Substring(piece)
            if let eq = piece.firstIndex(of: UInt8(ascii: "=")) {
                return (Array(piece[..<eq]), Array(piece[piece.index(after: eq)...]), text)
            }
            return (Array(piece), [], text)
        }
        let sorted = pairs.sorted { a, b in
            a.name != b.name ? a.name.lexicographicallyPrecedes(b.name) : a.value.lexicographicallyPrecedes(b.value)
        }
        return sorted.map { String($0.text) }.joined(separator: "&")
    }

    /// The path and the query (without "?") of `url` as libcurl sends them: parsed
    /// with the flags PreparedRequest uses.
    static func pathAndQuery(_ url: String) -> (String, String)? {
        guard let u = curl_url() else { return nil }
        defer { curl_url_cleanup(u) }
        guard curl_url_set(u, CURLUPART_URL, url, UInt32(CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK
        else {
            return nil
        }
        func part(_ what: CURLUPart) -> String? {
            var out: UnsafeMutablePointer<CChar>? = nil
            guard curl_url_get(u, what, &out, 0) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
        return (part(CURLUPART_PATH) ?? "/", part(CURLUPART_QUERY) ?? "")
    }

    static func sha256Hex(_ bytes: UnsafeRawBufferPointer) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = digest.withUnsafeMutableBufferPointer { out in
            ncshim_sha256(bytes.baseAddress, bytes.count, out.baseAddress)
        }
        return ok == 1 ? hex(digest) : nil
    }

    static func hmacHex(secret: String, message: String) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        var key = Array(secret.utf8)
        var data = Array(message.utf8)
        let ok = key.withUnsafeMutableBytes { k in
            data.withUnsafeMutableBytes { d in
                digest.withUnsafeMutableBufferPointer { out in
                    ncshim_hmac_sha256(k.baseAddress, k.count, d.baseAddress, d.count, out.baseAddress)
                }
            }
        }
        // The key copy is cleared before it is freed.
        for i in key.indices { key[i] = 0 }
        return ok == 1 ? hex(digest) : nil
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Unix time in seconds.
    static func now() -> Int64 { Int64(time(nil)) }
}
