import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// Request signing (docs/signing.md): HMAC-SHA256 with the
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
    /// Signs `request` at `timestamp` with `key` (the secret prepared once:
    /// SigningKey): sets the timestamp and signature headers. `url` is the
    /// request's parsed URL when the caller has it (nothing is parsed again).
    /// Nil, or the error to fail the attempt with (the message names no secret).
    static func sign(
        _ request: inout OutgoingRequest, _ signing: Configuration.Signing, key: SigningKey,
        url: RequestURL? = nil, upload: Upload? = nil, timestamp: Int64
    ) -> NetError? {
        let ts: String, signature: String
        switch Self.signature(
            method: request.method, url: url ?? RequestURL(request.url), body: request.body, upload: upload,
            key: key, timestamp: timestamp)
        {
        case .success(let signed): (ts, signature) = signed
        case .failure(let e): return e
        }
        do throws(NetError) {
            // Digits and lowercase hex are valid header values: only the names are checked.
            try request.setHeader(signing.timestampHeader, trustedValue: ts)
            try request.setHeader(signing.header, trustedValue: signature)
        } catch {
            return error
        }
        return nil
    }

    /// `original` signed at `timestamp` when nothing else adapts it and it carries
    /// neither signing header (AdapterChain): the same two headers `sign` sets,
    /// appended to the request's own, whose header lines are shared.
    static func signed(
        _ original: PreparedRequest, _ signing: Configuration.Signing, key: SigningKey, timestamp: Int64
    ) -> Result<PreparedRequest, NetError> {
        switch signature(
            method: original.method, url: original.location, body: original.body, upload: original.upload,
            key: key, timestamp: timestamp)
        {
        case .success(let (ts, signature)):
            var headers = original.headers
            let first = headers.entries.count
            headers.reserveAdditional(2)   // one copy of the shared entries, not a copy and a growth
            headers.appendNew(signing.timestampHeader, ts)
            headers.appendNew(signing.header, signature)
            return .success(original.adapted(headers: headers, appendedFrom: first))
        case .failure(let e):
            return .failure(e)
        }
    }

    /// The timestamp header's value and the signature (lowercase hex) of a request
    /// sent at `timestamp`, or why it cannot be signed (the message names no secret).
    private static func signature(
        method: String, url: RequestURL, body: NetBytes?, upload: Upload?, key: SigningKey, timestamp: Int64
    ) -> Result<(String, String), NetError> {
        guard let (path, query) = url.pathAndQuery else {
            return .failure(.invalidRequest("The URL of \(method) could not be parsed to sign the request."))
        }
        // DecimalDigits rather than String(timestamp): cheaper (bench/RESULTS.md,
        // "Figures that justified code choices").
        let ts = DecimalDigits.string(timestamp)
        let bodyHash: [UInt8]
        switch bodySHA256Hex(method: method, url: url.text, body: body, upload) {
        case .success(let hex): bodyHash = hex
        case .failure(let e): return .failure(e)
        }
        let message = stringToSignBytes(
            method: method, path: path, query: query, bodySHA256: bodyHash, timestamp: ts)
        guard let signature = key.signHex(message) else {
            return .failure(.internalError("The request could not be signed (libcrypto failed)."))
        }
        return .success((ts, signature))
    }

    /// hex(sha256(body)) of what the attempt sends: the in-memory body, the body
    /// file as it is when the attempt starts (read through once), or "" for none.
    /// A multipart body cannot be signed: libcurl makes its boundary while it
    /// sends, so its bytes are not known here.
    private static func bodySHA256Hex(
        method: String, url: String, body: NetBytes?, _ upload: Upload?
    ) -> Result<[UInt8], NetError> {
        let digest: [UInt8]
        switch upload {
        case .multipart?:
            return .failure(
                .invalidRequest(
                    "\(method) \(url): a multipart body cannot be signed (libcurl chooses its "
                        + "boundary while sending, so its SHA-256 is not known beforehand); send the body as a file "
                        + "or bytes, or use a client without \"signing\". Nothing was sent."))
        case .file(let file, _)?:
            var hash = [UInt8](repeating: 0, count: 32)
            var err: Int32 = 0
            let ok = hash.withUnsafeMutableBufferPointer { ncshim_sha256_file(file, $0.baseAddress, &err) }
            guard ok == 1 else {
                let reason = err != 0 ? String(cString: strerror(err)) : "libcrypto failed"
                return .failure(
                    .invalidRequest(
                        "\(method) \(url): cannot read the upload file '\(file)' to sign the "
                            + "request: \(reason); nothing was sent."))
            }
            digest = hash
        case nil:
            guard let body, body.count > 0 else { return .success(emptyBodySHA256HexBytes) }
            guard let hash = sha256(body.bytes) else {
                return .failure(.internalError("The request could not be signed (libcrypto failed)."))
            }
            digest = hash
        }
        return .success(
            digest.withUnsafeBufferPointer { d in
                [UInt8](unsafeUninitializedCapacity: 2 * d.count) { out, count in count = writeHex(d, into: out) }
            })
    }

    /// hex(sha256("")): the body hash of a request without a body.
    static let emptyBodySHA256Hex = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    private static let emptyBodySHA256HexBytes = Array(emptyBodySHA256Hex.utf8)

    /// The string signed: the five parts joined by "\n" (docs/signing.md).
    static func stringToSign(
        method: String, path: String, query: String, bodySHA256: String,
        timestamp: String
    ) -> String {
        String(
            decoding: stringToSignBytes(
                method: method, path: path, query: query, bodySHA256: Array(bodySHA256.utf8), timestamp: timestamp),
            as: UTF8.self)
    }

    /// `stringToSign` as the bytes `sign` hands to the HMAC, built in one buffer.
    static func stringToSignBytes(
        method: String, path: String, query: String, bodySHA256: [UInt8], timestamp: String
    ) -> [UInt8] {
        var message = [UInt8]()
        message.reserveCapacity(method.utf8.count + path.utf8.count + query.utf8.count + bodySHA256.count + 24)
        message.append(contentsOf: method.utf8)
        message.append(UInt8(ascii: "\n"))
        message.append(contentsOf: path.utf8)
        message.append(UInt8(ascii: "\n"))
        appendSortedQuery(query, to: &message)
        message.append(UInt8(ascii: "\n"))
        message.append(contentsOf: bodySHA256)
        message.append(UInt8(ascii: "\n"))
        message.append(contentsOf: timestamp.utf8)
        return message
    }

    /// The query's pairs as sent (empty pieces dropped), sorted bytewise by name,
    /// then value, joined by "&". A piece without "=" is a name with an empty value
    /// and is kept as sent.
    static func sortedQuery(_ query: String) -> String {
        var out = [UInt8]()
        appendSortedQuery(query, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendSortedQuery(_ query: String, to out: inout [UInt8]) {
        // One pair (or none): nothing to sort.
        if !query.utf8.contains(UInt8(ascii: "&")) {
            out.append(contentsOf: query.utf8)
            return
        }
        let pieces = query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true)
        let pairs: [(name: Substring.UTF8View, value: Substring.UTF8View, text: Substring.UTF8View)] = pieces.map {
            piece in
            if let eq = piece.firstIndex(of: UInt8(ascii: "=")) {
                return (piece[..<eq], piece[piece.index(after: eq)...], piece)
            }
            return (piece, piece[piece.endIndex...], piece)
        }
        let sorted = pairs.sorted { a, b in
            a.name.elementsEqual(b.name)
                ? a.value.lexicographicallyPrecedes(b.value) : a.name.lexicographicallyPrecedes(b.name)
        }
        for (i, pair) in sorted.enumerated() {
            if i > 0 { out.append(UInt8(ascii: "&")) }
            out.append(contentsOf: pair.text)
        }
    }

    /// The path and the query (without "?") of `url` as libcurl sends them: parsed
    /// with the flags PreparedRequest uses.
    static func pathAndQuery(_ url: String) -> (String, String)? {
        RequestURL(url).pathAndQuery.map { ($0.path, $0.query) }
    }

    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = digest.withUnsafeMutableBufferPointer { out in
            ncshim_sha256(bytes.baseAddress, bytes.count, out.baseAddress)
        }
        return ok == 1 ? digest : nil
    }

    static func sha256Hex(_ bytes: UnsafeRawBufferPointer) -> String? {
        sha256(bytes).map(hex)
    }

    static func hmacHex(secret: String, message: String) -> String? {
        guard let key = SigningKey(secret: secret) else { return nil }
        return key.signHex(Array(message.utf8))
    }

    /// Lowercase hex of `bytes`, made in place (no array in between).
    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { b in
            String(unsafeUninitializedCapacity: 2 * b.count) { writeHex(b, into: $0) }
        }
    }

    /// Writes lowercase hex of `bytes` into `out` (room for two bytes each);
    /// returns how many it wrote.
    static func writeHex(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let d = StaticString("0123456789abcdef").utf8Start
        let n = min(bytes.count, out.count / 2)
        guard n > 0, let src = bytes.baseAddress, let dst = out.baseAddress else { return 0 }
        for k in 0..<n {
            let b = src[k]
            dst[2 &* k] = d[Int(b >> 4)]
            dst[2 &* k &+ 1] = d[Int(b & 0x0f)]
        }
        return 2 * n
    }

    /// Unix time in seconds.
    static func now() -> Int64 { Int64(time(nil)) }
}

/// A signing secret prepared once for every signature of a client (libcrypto's key
/// schedule and algorithm lookup done here rather than per request: nccrypto.c).
/// Immutable; signs on any thread.
final class SigningKey: @unchecked Sendable {
    private let key: OpaquePointer

    init?(secret: String) {
        var bytes = Array(secret.utf8)
        let key = bytes.withUnsafeBytes { ncshim_hmac_key_new($0.baseAddress, $0.count) }
        // The copy is cleared before it is freed (libcrypto keeps its own).
        for i in bytes.indices { bytes[i] = 0 }
        guard let key else { return nil }
        self.key = key
    }

    deinit { ncshim_hmac_key_free(key) }

    /// HMAC-SHA256 of `message` in lowercase hex, nil if libcrypto failed. The MAC
    /// itself stays on the stack: the hex String is the only allocation.
    func signHex(_ message: [UInt8]) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { mac -> String? in
            let ok = message.withUnsafeBytes { m in ncshim_hmac_key_sign(key, m.baseAddress, m.count, mac.baseAddress) }
            guard ok == 1 else { return nil }
            return String(unsafeUninitializedCapacity: 64) {
                RequestSigning.writeHex(UnsafeBufferPointer(mac), into: $0)
            }
        }
    }
}
