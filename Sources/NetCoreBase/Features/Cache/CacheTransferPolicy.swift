/// The cache at seam 2 (docs/contract.md#the-request-lifecycle): asked after each attempt,
/// after the policy it wraps (retry, token refresh) has had its say, so only an
/// attempt that ends the request reaches it. It
/// - stores a 200 answer to a GET/HEAD when it may be stored (ResponseCache.storeIfAllowed);
/// - answers a 304 to its revalidation with the stored body, its headers refreshed
///   by the 304's, marked `fromCache` and `notModified`;
/// - answers a transport failure from the cache (NETWORK_ELSE_CACHE).
/// The answer it serves is classified again as the request reads it (CacheEntry.serve).
///
/// One shared instance (`NetClient.cacheStoringPolicy`) for transfers that only
/// store in no partition (no credentials, no cookie jar); a transfer that holds a
/// stored answer (revalidating, or NETWORK_ELSE_CACHE), stores in a partition or
/// wraps another policy gets its own, made at seam 1 (NetClient+Cache.swift).
final class CacheTransferPolicy: TransferPolicy, @unchecked Sendable {
    let cache: ResponseCache
    let inner: (any TransferPolicy)?
    /// The stored answer this transfer revalidates or falls back to.
    let entry: CacheEntry?
    /// NETWORK_ELSE_CACHE: a transport failure is answered with `entry`.
    let fallback: Bool
    /// Where the answer is stored (its partition's key, what to check first); nil:
    /// the request's own key, no partition (the shared instance).
    let scope: CacheScope?

    init(
        cache: ResponseCache, inner: (any TransferPolicy)?, entry: CacheEntry?, fallback: Bool,
        scope: CacheScope? = nil
    ) {
        self.cache = cache
        self.inner = inner
        self.entry = entry
        self.fallback = fallback
        self.scope = scope
    }

    func next(after t: Transfer, response: Response?, error: NetError?) -> TransferAction {
        if let inner, error != nil || inner.decidesOnSuccess {
            switch inner.next(after: t, response: response, error: error) {
            case .complete(let r, let e): return finish(t, r, e)
            case let action: return action
            }
        }
        return finish(t, response, error)
    }

    private func finish(_ t: Transfer, _ response: Response?, _ error: NetError?) -> TransferAction {
        guard let p = t.original, let key = p.cacheKey else { return .complete(response, error) }
        if let r = response {
            if r.status == 304, let entry, t.redirects == 0 {
                let refreshed = entry.refreshed(by: r.headers, nowMs: wallClockMs(), shared: cache.shared)
                cache.store(refreshed)
                cache.count(.notModified)
                cache.count(.hit)
                let (served, e) = refreshed.serve(p, notModified: true)
                t.extras?.servedFromCache(bytes: served.body.count)
                return .complete(served, e.map { $0.attempted(t.attempt) })
            }
            cache.storeIfAllowed(t, p, scope ?? CacheScope(key: key), r)
            return .complete(response, error)
        }
        if fallback, let entry, let e = error, CacheTransferPolicy.isNetworkFailure(e),
            entry.usableStale
        {
            cache.count(.hit)
            let (served, e) = entry.serve(p, notModified: false)
            return .complete(served, e)
        }
        return .complete(response, error)
    }

    /// A failure that says nothing about the resource: the network (TRANSPORT) or
    /// no route (CLIENT unreachable). Not an HTTP or business answer, nor a cancel,
    /// a limit or a deadline.
    static func isNetworkFailure(_ e: NetError) -> Bool {
        e.domain == .transport || (e.domain == .client && e.code == NetError.ClientCode.unreachable.rawValue)
    }
}

extension CacheEntry {
    /// May be served without the server's word (offline, CACHE_ONLY): fresh, or
    /// stale but not `must-revalidate`.
    var usableStale: Bool { !mustRevalidate || isFresh(nowMs: wallClockMs()) }
}
