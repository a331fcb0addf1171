/// The seam features decide through (seam 2, docs/contract.md#the-request-lifecycle):
/// asked once per attempt, with that attempt's final result, what the transfer does
/// next. Retry answers `.relaunchAfter`, a token refresh `.park`, and so on; with no
/// policy installed (`Transfer.policy == nil`, the default) an attempt's result is the
/// completion, at the cost of one branch.
///
/// Called on the thread that drives the transfer (the client's loop thread, or the
/// caller's thread for a synchronous send), with no lock held. Must not block.
protocol TransferPolicy: AnyObject, Sendable {
    /// Whether an attempt that succeeded is asked about too. False (retry, token
    /// refresh: they act on failures): a success completes without calling
    /// `next`, so a policy that is installed but not triggered costs a branch.
    /// Default true.
    var decidesOnSuccess: Bool { get }

    /// The action after attempt `transfer.attempt` ended with `response` / `error`.
    /// Answering `.redirect` is a mistake (it is the transfer's own decision) and
    /// completes with the result as it is.
    func next(after transfer: Transfer, response: Response?, error: NetError?) -> TransferAction
}

extension TransferPolicy {
    var decidesOnSuccess: Bool { true }
}
