/// In-flight coalescing (Features/Coalescing): identical GETs and HEADs in
/// flight at once share one transfer, each caller getting its own completion.
/// On by default (`Configuration.coalesce`, config "coalesce"); off for one request
/// with `RequestFlags.noCoalesce`. A request is eligible when its resolved form
/// has a `CoalescingKey` (PreparedRequest.make decides, once per request value).
///
/// A transfer that serves or revalidates a stored answer (Features/Cache,
/// `Transfer.standsAlone`) never joins or leads: its answer is its own (a 304 is
/// only meaningful to the request that sent the validator). A cache-reading request
/// that finds nothing stored behaves as a network-only one and coalesces as usual.
///
/// Synchronous sends (`sendSync`) neither join nor lead: they run on the caller's
/// own lane, and a caller that blocks must never wait on a transfer whose other
/// callers' code runs on the loop thread (or in `dispatch()`, which the blocked
/// thread may be the one to run).
extension NetClient {
    /// Queues `t`, joining the transfer in flight for an identical request when
    /// there is one. One branch for a request that is not eligible.
    @inline(__always)
    package func submit(_ t: Transfer) -> Bool {
        if let key = t.original?.coalescingKey, !t.standsAlone { return coalescing.submit(t, key) }
        return loop.submit(t)
    }
}
