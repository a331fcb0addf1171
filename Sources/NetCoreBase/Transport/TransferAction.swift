/// What the transfer loop does next with a transfer whose hop just ended: the
/// answer of `Transfer.next(after:)` (Transfer+Outcome.swift), which decides; the
/// loop (TransferLoop.swift) and the synchronous lanes (SyncLanes.swift) only carry
/// it out. Features decide through `TransferPolicy` (TransferPolicy.swift) and so
/// never have to be written into the loop.
enum TransferAction {
    /// The single completion, with this result (`error == nil`: success).
    case complete(Response?, NetError?)
    /// Send the next hop of the same attempt now: `Transfer.prepared` is already the
    /// redirect's request.
    case redirect
    /// Start a new attempt now, from the request as resolved at send.
    case relaunch
    /// Start a new attempt after `ms` milliseconds (the loop's timer queue), for
    /// `reason` (shown in the retry event). A cancel during the wait completes at
    /// once with CANCELLED.
    case relaunchAfter(ms: Int64, reason: String)
    /// Hold the transfer until `TransferLoop.resume(_:)` (a token refresh in
    /// progress, say), then start a new attempt. A cancel completes it at once.
    case park

    /// Whether this is the completion (nothing more is sent or waited for).
    var isComplete: Bool {
        if case .complete = self { return true }
        return false
    }
}
