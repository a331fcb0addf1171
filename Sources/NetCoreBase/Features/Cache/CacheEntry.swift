/// One stored answer: what was received (status, header lines, body — the very
/// buffers of the response it was stored from, never copied in memory), when it
/// stops being fresh, its validators, and the request header values its `Vary`
/// names. Immutable once made; a 304 makes a new entry with merged headers.
final class CacheEntry: @unchecked Sendable {
    /// CacheKey.text and CacheKey.url of the request it answers.
    let key: String
    let url: String
    let keyHash: UInt64
    /// The URL that answered (Response.url of what is served).
    let responseURL: CString
    let status: Int32
    let headers: HeaderStore
    let body: NetBytes
    /// Unix ms (wall clock): when it was received, and until when it is fresh.
    let storedAtMs: Int64
    let freshUntilMs: Int64
    /// The stored headers have an ETag / a Last-Modified (read from them when a
    /// revalidation needs them: most answers are never revalidated).
    let hasETag: Bool
    let hasLastModified: Bool
    /// Stale, it must not be served unless revalidated (must-revalidate).
    let mustRevalidate: Bool
    /// (lower-cased name, value or nil when the request had none) of each header
    /// the answer's Vary names, as the request that got it sent them.
    let vary: [(name: String, value: String?)]
    /// What it counts against the store's byte bound: body, header lines, key,
    /// and a fixed overhead for the object itself.
    let size: Int

    // The memory store's recency list (MemoryStore), under its lock.
    var newer: CacheEntry?
    var older: CacheEntry?

    init(
        key: String, url: String, keyHash: UInt64, responseURL: CString, status: Int32, headers: HeaderStore,
        headerBytes: Int, body: NetBytes, storedAtMs: Int64, freshUntilMs: Int64, hasETag: Bool,
        hasLastModified: Bool, mustRevalidate: Bool, vary: [(name: String, value: String?)]
    ) {
        self.key = key
        self.url = url
        self.keyHash = keyHash
        self.responseURL = responseURL
        self.status = status
        self.headers = headers
        self.body = body
        self.storedAtMs = storedAtMs
        self.freshUntilMs = freshUntilMs
        self.hasETag = hasETag
        self.hasLastModified = hasLastModified
        self.mustRevalidate = mustRevalidate
        self.vary = vary
        self.size = body.count + headerBytes + key.utf8.count * 2 + CacheEntry.overhead
    }

    /// Bytes counted for an entry beyond its body, headers and key.
    static let overhead = 256

    func isFresh(nowMs: Int64) -> Bool { nowMs < freshUntilMs }

    var hasValidator: Bool { hasETag || hasLastModified }
    var etag: String? { hasETag ? headers.value("etag") : nil }
    var lastModified: String? { hasLastModified ? headers.value("last-modified") : nil }

    /// The request's headers have the values this variant was stored for.
    func matches(_ headers: HeaderFields) -> Bool {
        for (name, value) in vary where headers[name] != value { return false }
        return true
    }

    /// The headers a revalidation adds to the request.
    func conditionalHeaders(into headers: inout HeaderFields) {
        if let etag { headers.set("If-None-Match", etag) }
        if let lastModified { headers.set("If-Modified-Since", lastModified) }
    }

    /// The stored answer as the request gets it: classified again (envelope or raw,
    /// as `p` is read), so a stored business error is served as that error, never
    /// as a success; `fromCache` set, and `notModified` for a 304's answer.
    func serve(_ p: PreparedRequest, notModified: Bool) -> (Response, NetError?) {
        var input = Classifier.Input(
            status: status, headers: headers, body: body, method: p.method, url: responseURL, envelope: p.envelope)
        input.fromCache = true
        input.notModified = notModified
        return Classifier.classify(input)
    }

    /// The header lines as received ("Name: value\r\n" each), for the disk store
    /// and for a 304's merge.
    var headerLines: String {
        var text = ""
        for (name, value) in headers.all {
            text += name
            text += ": "
            text += value
            text += "\r\n"
        }
        return text
    }

    /// This entry after a 304 answered its revalidation: the 304's headers replace
    /// the stored ones of the same name (RFC 9111 §4.3.4), freshness starts again.
    func refreshed(by notModified: HeaderStore, nowMs: Int64, shared: Bool = false) -> CacheEntry {
        var merged: [(name: String, value: String)] = headers.all
        for (name, value) in notModified.all {
            // Framing headers describe the 304 itself, not the stored body.
            let lower = name.lowercased()
            if lower == "content-length" || lower == "transfer-encoding" || lower == "content-encoding" { continue }
            merged.removeAll { $0.name.lowercased() == lower }
            merged.append((name, value))
        }
        let store = CacheEntry.headerStore(merged)
        let freshness = Freshness(store.headers)
        return CacheEntry(
            key: key, url: url, keyHash: keyHash, responseURL: responseURL, status: status,
            headers: store.headers, headerBytes: store.bytes, body: body, storedAtMs: nowMs,
            freshUntilMs: freshness.freshUntil(nowMs: nowMs, shared: shared), hasETag: freshness.hasETag,
            hasLastModified: freshness.hasLastModified, mustRevalidate: freshness.mustRevalidate,
            vary: vary)
    }

    /// A HeaderStore over lines made from `pairs`.
    static func headerStore(_ pairs: [(name: String, value: String)]) -> (headers: HeaderStore, bytes: Int) {
        var text = ""
        for (name, value) in pairs {
            text += name
            text += ": "
            text += value
            text += "\r\n"
        }
        return headerStore(lines: text)
    }

    static func headerStore(lines text: String) -> (headers: HeaderStore, bytes: Int) {
        let buffer = NetBytes(text)
        guard let base = buffer.base, buffer.count > 0 else { return (HeaderStore(), 0) }
        let lines = UnsafeMutableRawPointer(base).assumingMemoryBound(to: CChar.self)
        return (HeaderStore(lines: lines, count: buffer.count, owner: buffer), buffer.count)
    }
}
