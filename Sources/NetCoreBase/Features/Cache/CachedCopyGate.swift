/// CACHE_THEN_NETWORK's early delivery (docs/caching.md#policies): the stored answer goes to
/// the request's cached callback once, when its first attempt begins — on the
/// thread that drives the transfer (the loop thread, or the caller's for a
/// synchronous send), or queued for `dispatch()` in queue mode ahead of the
/// completion — then the gate it wraps (reachability, token refresh) decides as
/// usual. Hanging it on the attempt gate puts it on the seam every path already
/// runs, before the completion, without the loop knowing of the cache.
///
/// A transfer cancelled before its first attempt never delivers it ("at most once").
final class CachedCopyGate: AttemptGate, @unchecked Sendable {
    let inner: (any AttemptGate)?
    let copy: (Response, NetError?)
    let cache: ResponseCache
    let loop: TransferLoop
    let deliver: @Sendable (Response, NetError?) -> Void
    /// Driving thread only.
    private var delivered = false

    init(
        inner: (any AttemptGate)?, copy: (Response, NetError?), cache: ResponseCache, loop: TransferLoop,
        deliver: @escaping @Sendable (Response, NetError?) -> Void
    ) {
        self.inner = inner
        self.copy = copy
        self.cache = cache
        self.loop = loop
        self.deliver = deliver
    }

    func admit(_ transfer: Transfer, _ request: PreparedRequest, now: UInt64) -> AttemptAdmission {
        if !delivered {
            delivered = true
            cache.count(.hit)
            transfer.emitCacheHit(copy.0, copy.1)
            let (response, error) = copy
            let deliver = self.deliver
            let loop = self.loop
            if !loop.deferToDispatch({ CallbackScope.run(loop) { deliver(response, error) } }) {
                CallbackScope.run(loop) { deliver(response, error) }
            }
        }
        return inner?.admit(transfer, request, now: now) ?? .proceed
    }

    // The gate it wraps (reachability) remembers transfers too.
    func ended(_ transfer: Transfer) { inner?.ended(transfer) }
    func waitsToRetry(_ transfer: Transfer) { inner?.waitsToRetry(transfer) }
}
