/// A client's response cache ("cache" in the configuration): the memory store
/// (MemoryStore, LRU bounded in bytes), the optional disk store (DiskStore), the
/// rules of what is stored (Freshness) and the counters of `stats`.
///
/// Where it hangs (ARCHITECTURE.md): lookup and conditional headers at seam 1
/// (NetClient+Cache.swift), storing, 304s and offline answers at seam 2
/// (CacheTransferPolicy). A client without "cache" has none: a send pays one
/// branch (`PreparedRequest.cacheKey == nil`).
///
/// Threads: any. The memory store and the counters are under one lock held for
/// a dictionary operation at a time; file reads and writes run outside it.
public final class ResponseCache: @unchecked Sendable {
    let privateCache: Bool
    /// The client's cookie jar is on: libcurl may add a Cookie header the request
    /// does not show, so every request counts as carrying a credential (stored
    /// only when the cache is private).
    let cookieJar: Bool
    let disk: DiskStore?
    private let lock = Lock()
    private var memory: MemoryStore
    private var counters = CacheStats()

    init(_ config: Configuration.Cache, cookieJar: Bool = false) throws(NetError) {
        privateCache = config.isPrivate
        self.cookieJar = cookieJar
        memory = MemoryStore(limit: Int(clamping: config.memoryBytes))
        if let dir = config.dir {
            switch DiskStore.open(dir: dir, limit: config.diskBytes) {
            case .success(let d): disk = d
            case .failure(let why):
                throw NetError.invalidConfig("Configuration key 'cache.dir' is not usable: \(why.message).")
            }
        } else {
            disk = nil
        }
        counters.memoryLimit = Int64(memory.limit)
        counters.diskLimit = disk == nil ? 0 : config.diskBytes
    }

    // The memory store's recency list links its entries both ways (strong
    // references): unlinked here, or the entries would keep each other alive.
    deinit { memory.removeAll() }

    // MARK: lookup

    /// The stored answer for `key` whose Vary headers match `headers`: memory
    /// first, then disk (an answer read from disk joins the memory store).
    /// Counts nothing (the caller counts what it serves).
    func lookup(_ key: CacheKey, _ headers: HeaderFields) -> CacheEntry? {
        if let e = lock.withLock({ memory.get(key) }) {
            return e.matches(headers) ? e : nil
        }
        guard let disk, let e = disk.read(key) else { return nil }
        lock.withLock { counters.evictions += Int64(memory.put(e)) }
        return e.matches(headers) ? e : nil
    }

    // MARK: store

    /// Stores `e` in memory and on disk.
    func store(_ e: CacheEntry) {
        lock.withLock {
            counters.stores += 1
            counters.evictions += Int64(memory.put(e))
        }
        disk?.write(e)
    }

    /// Stores what attempt `t` received, if it may be stored: GET or HEAD (the
    /// request has a key), status 200, no redirect followed, no output file, not
    /// `no-store` nor `Vary: *`, and — unless the cache is private — neither
    /// `Cache-Control: private` nor a credential in the request that got it
    /// (Authorization, Cookie, Proxy-Authorization, credential_headers: as the
    /// attempt sent them, so a token or basic credentials count; with the cookie
    /// jar on, every request, as the jar's Cookie header is not seen here).
    func storeIfAllowed(_ t: Transfer, _ p: PreparedRequest, _ key: CacheKey, _ r: Response) {
        guard r.status == 200, t.redirects == 0, !r.fromCache else { return }
        if cookieJar && !privateCache { return }
        if !privateCache, let sent = t.prepared, !sent.headers.isEmpty {
            for name in p.credentialHeaders where sent.headers.contains(name) { return }
        }
        let f = Freshness(r.headers)
        guard f.storable(privateCache: privateCache) else { return }
        let now = wallClockMs()
        let vary = f.vary.map { (name: $0, value: p.headers[$0]) }
        store(
            CacheEntry(
                key: key.text, url: key.url, keyHash: key.hash, responseURL: p.url, status: r.status,
                headers: r.headers, headerBytes: r.headers.byteCount, body: r.body, storedAtMs: now,
                freshUntilMs: f.freshUntil(nowMs: now), hasETag: f.hasETag, hasLastModified: f.hasLastModified,
                mustRevalidate: f.mustRevalidate, vary: vary))
    }

    // MARK: counters

    enum Count { case hit, miss, revalidation, notModified }

    func count(_ what: Count) {
        lock.withLock {
            switch what {
            case .hit: counters.hits += 1
            case .miss: counters.misses += 1
            case .revalidation: counters.revalidations += 1
            case .notModified: counters.notModified += 1
            }
        }
    }

    /// The counters and sizes now.
    public var stats: CacheStats {
        var s = lock.withLock {
            var s = counters
            s.bytes = Int64(memory.bytes)
            s.entries = Int64(memory.count)
            return s
        }
        s.diskBytes = disk?.bytes ?? 0
        return s
    }

    // MARK: control

    /// Removes every stored answer, in memory and on disk.
    public func clear() {
        lock.withLock { memory.removeAll() }
        disk?.remove(urlPrefix: nil)
    }

    /// Removes the stored answers whose URL (as stored: query sorted) starts with
    /// `prefix`, in memory and on disk (each file is read to find its URL).
    public func remove(urlPrefix prefix: String) {
        lock.withLock { _ = memory.remove(urlPrefix: prefix) }
        disk?.remove(urlPrefix: prefix)
    }
}

/// A cache's counters (`NetClient.cacheStats`, nc_client_cache_stats_json).
public struct CacheStats: Sendable, Equatable {
    /// Answers served from the cache: stored answers served, 304s answered with
    /// the stored body, failures answered from the cache, cache-then-network's
    /// early copies.
    public var hits: Int64 = 0
    /// Lookups by a cache-reading policy that found nothing usable.
    public var misses: Int64 = 0
    /// Answers stored (a 304's refresh included).
    public var stores: Int64 = 0
    /// Entries the memory store dropped to stay within memory_bytes.
    public var evictions: Int64 = 0
    /// Conditional requests sent for a stale stored answer, and the 304s received.
    public var revalidations: Int64 = 0
    /// 304 answers received to those conditional requests.
    public var notModified: Int64 = 0
    /// Bytes and entries in memory now; bytes on disk (this process's estimate).
    public var bytes: Int64 = 0
    /// Entries in memory now.
    public var entries: Int64 = 0
    /// Bytes on disk (this process's estimate).
    public var diskBytes: Int64 = 0
    /// The bounds: memory_bytes, and disk_bytes (0 without a directory).
    public var memoryLimit: Int64 = 0
    /// disk_bytes (0 without a directory).
    public var diskLimit: Int64 = 0

    /// All counters at zero.
    public init() {}

    /// `{"hits","misses","stores","evictions","revalidations","not_modified",
    /// "bytes","entries","disk_bytes","memory_limit","disk_limit"}`.
    public var json: String {
        var o = JSONText()
        write(into: &o)
        return o.finished()
    }

    /// The members, into an object being written (the cache_hit event's "cache").
    func write(into o: inout JSONText) {
        o.int("hits", hits)
        o.int("misses", misses)
        o.int("stores", stores)
        o.int("evictions", evictions)
        o.int("revalidations", revalidations)
        o.int("not_modified", notModified)
        o.int("bytes", bytes)
        o.int("entries", entries)
        o.int("disk_bytes", diskBytes)
        o.int("memory_limit", memoryLimit)
        o.int("disk_limit", diskLimit)
    }
}
