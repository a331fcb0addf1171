/// Seam 1, before each attempt (docs/contract.md#the-request-lifecycle): whether an
/// attempt may be sent now. The reachability gate (Features/Reachability/) answers
/// through it: fail at once when no route leaves the machine, or hold the transfer
/// until the network returns.
///
/// `Transfer.beginAttempt(now:)` asks it before the preparer, with the request as
/// resolved at send; with no gate installed (`Transfer.gate == nil`: reachability
/// forced online) every attempt goes, at the cost of one branch.
///
/// Called on the thread that drives the transfer (the client's loop thread, or
/// the caller's thread for a synchronous send), with no lock held. Must not block.
protocol AttemptGate: AnyObject, Sendable {
    /// What attempt `transfer.attempt + 1` does now. `.hold` parks the transfer
    /// (TransferAction.park): the gate must see to it that `TransferLoop.resume(_:)`
    /// is called later — it is then asked again. A cancel or shutdown ends a held
    /// transfer at once, as any parked one.
    func admit(_ transfer: Transfer, _ request: PreparedRequest, now: UInt64) -> AttemptAdmission

    /// The transfer completed, however it ended (a result, a cancel, its deadline,
    /// shutdown), just before its completion runs: a gate that remembers transfers
    /// (a held one, an answer kept for its next attempt) forgets it. Default: nothing.
    func ended(_ transfer: Transfer)

    /// The transfer is about to wait out a retry's delay (RetryTransferPolicy): a
    /// gate that watches the network may send it sooner (`TransferLoop.relaunchNow`).
    /// Default: nothing.
    func waitsToRetry(_ transfer: Transfer)
}

extension AttemptGate {
    func ended(_ transfer: Transfer) {}
    func waitsToRetry(_ transfer: Transfer) {}
}

/// A gate's answer (AttemptGate.admit).
enum AttemptAdmission {
    /// Send the attempt now.
    case proceed
    /// Park the transfer until it is resumed, then ask again.
    case hold
    /// End the transfer with this error; nothing is sent.
    case fail(NetError)
}
