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
    /// "shared": shared-cache rules (RFC 9111 §3.5), no partitions.
    let shared: Bool
    /// The client's cookie jar, if it keeps one: libcurl adds its Cookie header
    /// where the request does not show it, so seam 1 reads the jar's cookies for
    /// the host into the partition (CookieJar.credentialText) and seam 2 checks
    /// that the jar did not change meanwhile (CurlShare.changes). In a shared
    /// cache every request of a client with a jar counts as credentialed.
    let jar: CookieJar?
    let disk: DiskStore?
    /// Writes the DEBUG line of an answer that was not stored: the transfer, the
    /// request, why, the status (NetClient.init sets it once, before any request).
    nonisolated(unsafe) var skipLog: ((Transfer, PreparedRequest, CacheStats.SkipReason, Int32) -> Void)?
    private let lock = Lock()
    private var memory: MemoryStore
    private var counters = CacheStats()
    /// The partition every answer goes to ("cache.partition", setPartition); nil:
    /// the partition of the credentials each request carries.
    private var named: (name: String, partition: CachePartition)?

    init(_ config: Configuration.Cache, jar: CookieJar? = nil) throws(NetError) {
        shared = config.isShared
        self.jar = jar
        memory = MemoryStore(limit: Int(clamping: config.memoryBytes))
        if let name = config.partition {
            guard let partition = CachePartition.named(name) else {
                throw NetError.internalError("The cache partition could not be hashed (libcrypto failed).")
            }
            named = (name, partition)
        }
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

    // MARK: partitions

    /// The partition named now; nil: by credentials.
    var partitionName: String? { lock.withLock { named?.name } }

    /// Names the partition of every answer from now on (nil: back to the
    /// credentials' hash). Requests already sent keep theirs.
    func setPartition(_ name: String?) -> PartitionChange {
        guard let name else {
            lock.withLock { named = nil }
            return .changed
        }
        guard !name.isEmpty, !name.utf8.contains(0) else { return .emptyName }
        guard !shared else { return .shared }
        guard let partition = CachePartition.named(name) else { return .failed }
        lock.withLock { named = (name, partition) }
        return .changed
    }

    /// What seam 1 decided for one send (NetClient+Cache.swift).
    enum Scoping {
        /// Looked up and stored under the scope's key.
        case scoped(CacheScope)
        /// The partition could not be worked out (libcrypto failed): the request
        /// neither reads nor stores the cache.
        case unavailable
    }

    /// Where a request resolved as `p` (key `key`) is looked up and its answer
    /// stored: the named partition; else the partition of the credentials it will
    /// carry — its credential headers, `authorization` (the client's token or
    /// basic credentials, which the attempt adds unless the request has an
    /// Authorization of its own), the jar's cookies for its host, the client
    /// certificate; else no partition. A shared cache has none.
    func scope(for p: PreparedRequest, _ key: CacheKey, authorization: String?) -> Scoping {
        if shared { return .scoped(CacheScope(key: key)) }
        if let named = lock.withLock({ named }) {
            return .scoped(CacheScope(key: key.inPartition(named.partition), partition: named.partition, named: true))
        }
        // The jar's change count before its cookies are read: a change after it is seen.
        let jarChanges = jar?.share.changes ?? 0
        let jarText = jar.flatMap { jar in LoopbackHost.host(of: p.location).map(jar.credentialText) } ?? ""
        let values = CredentialValues(
            headers: p.headers, names: p.credentialHeaders, authorization: authorization, jar: jarText,
            clientCert: p.connection.options.clientCert)
        guard !values.isEmpty else { return .scoped(CacheScope(key: key, jarChanges: jarChanges)) }
        guard let partition = CachePartition.of(values) else { return .unavailable }
        return .scoped(
            CacheScope(key: key.inPartition(partition), partition: partition, jar: jarText, jarChanges: jarChanges))
    }

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

    /// Stores `e` in memory and on disk, and counts it; the reason (counted too)
    /// when neither store kept it.
    @discardableResult
    func store(_ e: CacheEntry) -> CacheStats.SkipReason? {
        // Written first: whether the memory store alone keeps it decides the count.
        let written = disk?.write(e)
        let kept = e.size <= memory.limit || written == .written
        let reason: CacheStats.SkipReason? =
            kept ? nil : (written == nil || written == .tooLarge ? .tooLarge : .diskError)
        lock.withLock {
            if let reason { counters.skipped[reason, default: 0] += 1 } else { counters.stores += 1 }
            // An entry larger than the bound is not kept, and removes the one it replaces.
            counters.evictions += Int64(memory.put(e))
        }
        return reason
    }

    /// Stores what attempt `t` received under `scope`'s key, if it may be stored:
    /// status 200 to a GET or HEAD (the request has a key), no redirect followed,
    /// not `no-store` nor `Vary: *`; then
    /// - a shared cache: not `Cache-Control: private`, and an answer to a request
    ///   that carried credentials (as the attempt sent them: Authorization, Cookie,
    ///   Proxy-Authorization, credential_headers, so the token and basic
    ///   credentials count; with the cookie jar on, every request) only when it
    ///   says `public`, `s-maxage` or `must-revalidate`;
    /// - else, unless a partition is named: the credentials the attempt sent are
    ///   those the request was looked up with (`scope.partition`). An adapter that
    ///   added some, a token refreshed meanwhile, a cookie another response set
    ///   meanwhile: not stored, since the answer belongs to another partition.
    /// Counts the answer stored or why it was not, and logs why at DEBUG.
    func storeIfAllowed(_ t: Transfer, _ p: PreparedRequest, _ scope: CacheScope, _ r: Response) {
        guard !r.fromCache else { return }
        let reason: CacheStats.SkipReason?
        if let refused = refusal(t, p, scope, r) {
            lock.withLock { counters.skipped[refused, default: 0] += 1 }
            reason = refused
        } else {
            reason = store(entry(p, scope.key, r))
        }
        if let reason { skipLog?(t, p, reason, r.status) }
    }

    /// Why `r` may not be stored, if it may not (storeIfAllowed).
    private func refusal(_ t: Transfer, _ p: PreparedRequest, _ scope: CacheScope, _ r: Response)
        -> CacheStats.SkipReason?
    {
        guard r.status == 200, t.redirects == 0 else { return .status }
        let f = Freshness(r.headers)
        if let reason = f.refusal(shared: shared) { return reason }
        let sent = t.prepared?.headers ?? p.headers
        if shared {
            let credentialed = jar != nil || sent.contains { p.credentialHeaders.contains($0.name.lowercased()) }
            return credentialed && !f.sharedMayStoreCredentialed ? .sharedCredentialed : nil
        }
        if scope.named { return nil }
        // What the attempt sent (its headers carry what the adapters added), with
        // the jar's and the certificate's parts as seam 1 read them.
        let values = CredentialValues(
            headers: sent, names: p.credentialHeaders, jar: scope.jar, clientCert: p.connection.options.clientCert)
        if values.isEmpty {
            if scope.partition != nil { return .credentialsChanged }
        } else if CachePartition.of(values) != scope.partition || scope.partition == nil {
            return .credentialsChanged
        }
        // The jar: every change since seam 1 must be this answer's own Set-Cookie lines.
        if let jar, jar.share.changes &- scope.jarChanges != UInt64(Self.setCookieLines(r.headers)) {
            return .credentialsChanged
        }
        return nil
    }

    private static func setCookieLines(_ headers: HeaderStore) -> Int {
        var n = 0
        for (name, _) in headers.all where name.lowercased() == "set-cookie" { n += 1 }
        return n
    }

    private func entry(_ p: PreparedRequest, _ key: CacheKey, _ r: Response) -> CacheEntry {
        let f = Freshness(r.headers)
        let now = wallClockMs()
        let vary = f.vary.map { (name: $0, value: p.headers[$0]) }
        return CacheEntry(
            key: key.text, url: key.url, keyHash: key.hash, responseURL: p.url, status: r.status,
            headers: r.headers, headerBytes: r.headers.byteCount, body: r.body, storedAtMs: now,
            freshUntilMs: f.freshUntil(nowMs: now, shared: shared), hasETag: f.hasETag,
            hasLastModified: f.hasLastModified, mustRevalidate: f.mustRevalidate, vary: vary)
    }

    /// A 200 whose body went to a body callback or a file (never stored): counted
    /// and logged as such.
    func skippedStreamed(_ t: Transfer, _ p: PreparedRequest, _ r: Response) {
        guard r.status == 200, !r.fromCache else { return }
        lock.withLock { counters.skipped[.streamed, default: 0] += 1 }
        skipLog?(t, p, .streamed, r.status)
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

    /// Removes every stored answer, in memory and on disk (every partition).
    public func clear() {
        lock.withLock { memory.removeAll() }
        disk?.remove(urlPrefix: nil)
    }

    /// Removes the stored answers whose URL (as stored: query sorted) starts with
    /// `prefix`, in memory and on disk (each file is read to find its URL), in
    /// every partition.
    public func remove(urlPrefix prefix: String) {
        lock.withLock { _ = memory.remove(urlPrefix: prefix) }
        disk?.remove(urlPrefix: prefix)
    }
}

/// What became of a change of the named partition (NetClient.setCachePartition,
/// nc_client_set_cache_partition).
package enum PartitionChange: Equatable {
    case changed
    /// The client has no cache.
    case noCache
    /// A shared cache ("shared": true) keeps no partitions.
    case shared
    /// An empty name (or one with NUL).
    case emptyName
    /// libcrypto could not hash it.
    case failed
}

/// Where one send is looked up and its answer stored (ResponseCache.scope): the
/// key in its partition, and what seam 2 checks before storing.
struct CacheScope {
    /// The request's key in its partition.
    let key: CacheKey
    /// nil: no partition (no credentials, or a shared cache).
    var partition: CachePartition? = nil
    /// The partition is the named one: stored whatever credentials were sent.
    var named = false
    /// The jar's part of the credentials as seam 1 read it, and the jar's change
    /// count just before (CurlShare.changes).
    var jar = ""
    var jarChanges: UInt64 = 0
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
    /// Answers not stored, by reason (the JSON lists every reason, 0 when none).
    public var skipped: [SkipReason: Int64] = [:]

    /// Why an answer was not stored (the keys of "skipped"; docs/caching.md).
    public enum SkipReason: String, Sendable, CaseIterable {
        /// Not a 200, or a redirect was followed.
        case status
        /// `Cache-Control: no-store`.
        case noStore = "no_store"
        /// `Vary: *`.
        case varyStar = "vary_star"
        /// A shared cache ("shared": true) and `Cache-Control: private`.
        case sharedPrivate = "shared_private"
        /// A shared cache, a credentialed request, and an answer that says neither
        /// `public`, `s-maxage` nor `must-revalidate`.
        case sharedCredentialed = "shared_credentialed"
        /// The attempt sent other credentials than the request was looked up with
        /// (an adapter's, a token refreshed meanwhile, a cookie another response
        /// set meanwhile), and no partition is named.
        case credentialsChanged = "credentials_changed"
        /// The body went to a body callback or an output file.
        case streamed
        /// Larger than memory_bytes and than disk_bytes (or no directory).
        case tooLarge = "too_large"
        /// Larger than memory_bytes, and the directory could not be written.
        case diskError = "disk_error"

        /// The JSON key (the raw value, as the JSON writer takes it).
        var key: StaticString {
            switch self {
            case .status: return "status"
            case .noStore: return "no_store"
            case .varyStar: return "vary_star"
            case .sharedPrivate: return "shared_private"
            case .sharedCredentialed: return "shared_credentialed"
            case .credentialsChanged: return "credentials_changed"
            case .streamed: return "streamed"
            case .tooLarge: return "too_large"
            case .diskError: return "disk_error"
            }
        }

        /// Why, as the DEBUG line says it.
        var text: String {
            switch self {
            case .status: return "only a 200 answer without a redirect is stored"
            case .noStore: return "Cache-Control: no-store"
            case .varyStar: return "Vary: *"
            case .sharedPrivate: return "Cache-Control: private in a shared cache"
            case .sharedCredentialed:
                return
                    "a shared cache stores no answer to a credentialed request unless it says public, s-maxage or must-revalidate"
            case .credentialsChanged:
                return
                    "the attempt sent other credentials than the request was looked up with (a partition named by the app would keep it)"
            case .streamed: return "the body went to a body callback or an output file"
            case .tooLarge: return "larger than memory_bytes and than disk_bytes"
            case .diskError: return "larger than memory_bytes, and the directory could not be written"
            }
        }
    }

    /// All counters at zero.
    public init() {}

    /// `{"hits","misses","stores","evictions","revalidations","not_modified",
    /// "bytes","entries","disk_bytes","memory_limit","disk_limit","skipped":{…}}`.
    public var json: String {
        var o = JSONText()
        write(into: &o)
        return o.finished()
    }

    /// `json` without "skipped": the members 0.3 wrote, which NC_CACHE_STATS_MAX
    /// (512 bytes) always holds (nc_client_cache_stats_json with a smaller buffer).
    public var jsonWithoutSkipped: String {
        var o = JSONText()
        write(into: &o, skipped: false)
        return o.finished()
    }

    /// The members, into an object being written (the cache_hit event's "cache").
    func write(into o: inout JSONText, skipped withSkipped: Bool = true) {
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
        guard withSkipped else { return }
        o.beginObject("skipped")
        for reason in SkipReason.allCases { o.int(reason.key, skipped[reason] ?? 0) }
        o.endObject()
    }
}
