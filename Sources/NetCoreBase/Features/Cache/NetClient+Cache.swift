/// The response cache at seam 1 (Features/Cache, docs/contract.md#cache): for a
/// request with a cache key (a GET or HEAD on a client with "cache"), work out the
/// partition it is kept in (ResponseCache.scope), look the stored answer up as its
/// policy says, and make the transfer that serves it, revalidates it, or sends as
/// usual; a request whose body goes to a callback or a file is sent as without a
/// cache. Every path goes through the loop's (or the
/// synchronous lane's) completion: a stored answer is the transfer's
/// `presetResponse`, so threads, queue mode, events and hooks are those of any
/// request. The storing, the 304 and the offline answer are seam 2's
/// (CacheTransferPolicy).
extension NetClient {
    func cachedTransfer(
        _ request: Request, _ p: PreparedRequest, _ requestKey: CacheKey, _ cache: ResponseCache,
        _ settings: ClientSettings, _ foreign: (UnsafeRawPointer?, UnsafeMutableRawPointer?),
        _ completion: @escaping Transfer.Deliver
    ) -> Transfer {
        // The request's features (NetClient+Composition.swift); the cache's own
        // policy wraps theirs.
        let base = features(for: p, settings)
        let inner = base.policy
        let gate = base.gate
        /// A transfer that uses no cache: sent as it is, nothing stored.
        func uncached(_ deliver: @escaping Transfer.Deliver) -> Transfer {
            compose(request, p, base, foreign: foreign, deliver: deliver)
        }
        /// CACHE_ONLY with nothing usable: NOT_CACHED, nothing sent (never coalesced,
        /// and the error handler hears of it as of any failure).
        func notCached() -> Transfer {
            compose(
                request, p, preset: .notCached(p.method, p.urlText, cacheConfigured: true),
                TransferFeatures(monitor: settings.monitor), standsAlone: true, foreign: foreign, deliver: completion)
        }

        // A body that goes to a callback or a file is never stored nor served: the
        // request is sent as a network-only one, its callbacks run as without a
        // cache, and a 200 is counted (and logged) as "streamed" before its completion.
        // A head callback too: it sees the network's head.
        if request.streamsBody || p.outputPath != nil || request.transferCallbacks?.head != nil {
            if p.cachePolicy == .cacheOnly { return notCached() }
            return uncached { t, response, error in
                if let response, let sent = t.original { cache.skippedStreamed(t, sent, response) }
                completion(t, response, error)
            }
        }

        // The partition the request is looked up in and its answer stored in
        // (ResponseCache.scope, CachePartition.swift).
        let scope: CacheScope
        switch cache.scope(for: p, requestKey, authorization: adapterRegistry.credentials.authorization) {
        case .scoped(let s): scope = s
        case .unavailable:
            if p.cachePolicy == .cacheOnly { return notCached() }
            return uncached(completion)
        }
        let key = scope.key
        // The shared storing policy knows no partition and checks no jar.
        let plainScope = scope.partition == nil && cache.jar == nil

        func make(
            _ sent: PreparedRequest, entry: CacheEntry? = nil, fallback: Bool = false,
            gate: (any AttemptGate)? = gate
        ) -> Transfer {
            let policy =
                entry == nil && inner == nil && plainScope
                ? cacheStoringPolicy
                : CacheTransferPolicy(cache: cache, inner: inner, entry: entry, fallback: fallback, scope: scope)
            var parts = base
            parts.policy = policy
            parts.gate = gate
            return compose(request, sent, parts, standsAlone: entry != nil, foreign: foreign, deliver: completion)
        }
        /// A transfer that sends nothing and completes with `answer`.
        func answered(_ answer: (Response, NetError?)) -> Transfer {
            cache.count(.hit)
            // The policy is never asked (nothing is sent); it names the cache for
            // the cache_hit event's counters.
            let made = compose(
                request, p, preset: answer.1, TransferFeatures(monitor: settings.monitor, policy: cacheStoringPolicy),
                presetResponse: answer.0, standsAlone: true, foreign: foreign, deliver: completion)
            made.extras?.servedFromCache(bytes: answer.0.body.count)
            return made
        }
        /// The request with the stale entry's validators: a conditional request.
        func revalidating(_ entry: CacheEntry) -> PreparedRequest {
            guard entry.hasValidator else { return p }
            var headers = p.headers
            if !headers.contains("If-None-Match") && !headers.contains("If-Modified-Since") {
                entry.conditionalHeaders(into: &headers)
            }
            let c = p.adapted(headers: headers)
            c.cacheKey = requestKey
            c.cachePolicy = p.cachePolicy
            cache.count(.revalidation)
            return c
        }

        let policy = p.cachePolicy
        // NETWORK_ONLY never reads the cache; its answer is stored (seam 2).
        if policy == .networkOnly { return make(p) }
        guard let entry = cache.lookup(key, p.headers) else {
            cache.count(.miss)
            if policy == .cacheOnly { return notCached() }
            // Nothing stored: as network-only (and it may coalesce).
            return make(p)
        }
        let now = wallClockMs()
        switch policy {
        case .networkOnly:
            return make(p)
        case .cacheOnly:
            guard entry.usableStale else {
                cache.count(.miss)
                return notCached()
            }
            return answered(entry.serve(p, notModified: false))
        case .cacheElseNetwork:
            if entry.isFresh(nowMs: now) { return answered(entry.serve(p, notModified: false)) }
            return make(revalidating(entry), entry: entry)
        case .networkElseCache:
            // No route now: the stored answer at once, rather than a failure.
            if isOffline(p), entry.usableStale { return answered(entry.serve(p, notModified: false)) }
            return make(revalidating(entry), entry: entry, fallback: true)
        case .cacheThenNetwork:
            guard let callback = request.cachedCallback else { return make(revalidating(entry), entry: entry) }
            let copy = CachedCopyGate(
                inner: gate, copy: entry.serve(p, notModified: false), cache: cache, loop: loop, deliver: callback)
            return make(revalidating(entry), entry: entry, gate: copy)
        }
    }

    /// Whether an attempt of `p` would be refused for want of a route now (the
    /// reachability gate's rule: forced offline, or AUTO with no route to a host
    /// that is not loopback).
    private func isOffline(_ p: PreparedRequest) -> Bool {
        switch reachabilityGate.mode {
        case .online: return false
        case .offline: return true
        case .auto: return !reachabilityGate.isReachable && !LoopbackHost.isLoopback(p.location)
        }
    }

    // MARK: control

    /// Removes every stored answer (memory and disk). False without a cache.
    @discardableResult
    public func cacheClear() -> Bool {
        guard let cache else { return false }
        cache.clear()
        return true
    }

    /// Removes the stored answers whose URL starts with `prefix` (as stored: the
    /// query's pairs sorted). False without a cache.
    @discardableResult
    public func cacheRemove(prefix: String) -> Bool {
        guard let cache else { return false }
        cache.remove(urlPrefix: prefix)
        return true
    }

    /// The cache's counters and sizes; nil without a cache.
    public var cacheStats: CacheStats? { cache?.stats }

    /// Names the partition every answer is stored in and looked up in from now on
    /// (nil: back to the partition of the credentials each request carries, the
    /// default): a name that stays the same across a token refresh keeps the
    /// entries; give each user their own (docs/caching.md, "Partitions"). As
    /// "cache": {"partition"}. Requests already sent keep theirs. False (nothing
    /// done) without a cache; throws `.invalidArgument` for an empty name or on a
    /// shared cache ("shared": true), nothing changed.
    @discardableResult
    public func setCachePartition(_ name: String?) throws(NetError) -> Bool {
        switch changeCachePartition(name) {
        case .changed: return true
        case .noCache: return false
        case .emptyName: throw NetError.invalidArgument("the cache partition must be a non-empty string without NUL")
        case .shared:
            throw NetError.invalidArgument("a shared cache (\"cache\": {\"shared\": true}) keeps no partitions")
        case .failed: throw NetError.internalError("The cache partition could not be hashed (libcrypto failed).")
        }
    }

    /// `setCachePartition` for the C API, which tells its refusals apart.
    package func changeCachePartition(_ name: String?) -> PartitionChange {
        guard let cache else { return .noCache }
        return cache.setPartition(name)
    }

    /// The partition named now (`setCachePartition`, "cache": {"partition"}); nil
    /// without one or without a cache.
    public var cachePartition: String? { cache?.partitionName }
}

extension NetError {
    /// CACHE_ONLY found nothing stored: CLIENT NOT_CACHED (nothing was sent).
    static func notCached(_ method: String, _ url: String, cacheConfigured: Bool) -> NetError {
        var e = client(
            .notCached,
            cacheConfigured
                ? "No usable stored answer for \(method) \(Redaction.url(url)) (CACHE_ONLY sends nothing). Use CACHE_ELSE_NETWORK to fetch it when missing."
                : "CACHE_ONLY needs a cache: configure \"cache\" (or use another policy); nothing was sent for \(method) \(Redaction.url(url)). Only GET and HEAD answers are cached."
        )
        e.attempts = 0
        return e
    }
}
