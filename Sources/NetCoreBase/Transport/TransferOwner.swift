/// Something outside the loop that stands between callers and the transfers the
/// loop runs when they are not one to one: several callers sharing one transfer
/// (coalescing, Features/Coalescing). Each caller still holds a `Transfer` of its
/// own (what nc_task wraps), but only the shared transfer is submitted; a caller's
/// `owner` says who decides what cancelling that caller means, and the shared
/// transfer's `owner` says whose callers a cancel sweep counts. The loop asks the
/// owner and carries out its answer (`OwnedCancel`); it never knows the feature.
///
/// Threads: the owner's methods are called with no lock of the loop held, from
/// any thread (the loop thread for a sweep); they must not call the loop.
protocol TransferOwner: AnyObject, Sendable {
    /// Caller `t` (a transfer the loop does not run) is cancelled.
    func cancel(caller t: Transfer) -> OwnedCancel
    /// A cancel sweep reached shared transfer `t` (one the loop runs): the callers
    /// `match` accepts are cancelled.
    func cancelCallers(of t: Transfer, where match: (Transfer) -> Bool) -> OwnedCancel
}

/// What cancelling some callers of a shared transfer comes to, for the loop to do.
struct OwnedCancel {
    /// Callers that end now with CANCELLED, each exactly once
    /// (`TransferLoop.completeDetached`); the shared transfer goes on for the others.
    var detached: [Transfer] = []
    /// The shared transfer to cancel: no other caller remains, and the `last`
    /// callers still attached receive its cancellation through its completion.
    var shared: Transfer? = nil
    var last = 0
}
