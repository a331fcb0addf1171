/// Seam 1, per attempt (docs/contract.md#the-request-lifecycle): what an attempt sends,
/// worked out again before every attempt so that each one carries fresh values
/// (a timestamp, a signature, the current token). A redirect hop belongs to the
/// attempt that led to it and is not prepared again.
///
/// `Transfer.beginAttempt(now:)` asks it with the request as resolved at send;
/// with no preparer installed (`Transfer.preparer == nil`, the default) the
/// attempt sends that request as it is, at the cost of one branch.
///
/// Called on the thread that drives the transfer (the client's loop thread, or
/// the caller's thread for a synchronous send), with no lock held.
protocol AttemptPreparer: AnyObject, Sendable {
    /// The request attempt `attempt` (1 for the first) sends, derived from
    /// `original`, or the error the transfer completes with (nothing is sent).
    func prepare(_ original: PreparedRequest, attempt: Int32) -> Result<PreparedRequest, NetError>
}
