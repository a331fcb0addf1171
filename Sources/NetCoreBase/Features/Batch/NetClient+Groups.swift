/// Cancellation groups (docs/contract.md#groups-and-batches-count-callers): a request
/// names a group (`Request.setGroup`, `nc_request_set_group`, or its endpoint's
/// "group"); one call cancels every request of the group — waiting to start, in
/// flight, or waiting between attempts. A screen that closes cancels what it started.
///
/// The transfer loop knows no group: it cancels what a predicate accepts
/// (TransferLoop.cancelMatching), and the group is a field of the resolved request.
extension NetClient {
    /// Cancels every request of group `name` sent with `send` (not yet completed).
    /// Each completes exactly once with CANCELLED; returns how many this call
    /// cancelled (requests already cancelled or completing are not counted).
    /// Synchronous sends (`sendSync`) are not cancelled: they belong to their
    /// caller's thread and end with their timeout. Any thread, callbacks included;
    /// from another thread it waits for the client's loop to act (a few µs).
    /// Throws `.invalidArgument`, nothing cancelled, for a name `Request.setGroup`
    /// refuses (empty, or with control characters): no request can be in such a
    /// group, so the call is a mistake, not a group that happens to be empty.
    @discardableResult
    public func cancelGroup(_ name: String) throws(NetError) -> Int {
        try Request.checkGroupName(name)
        return loop.cancelMatching { $0.original?.group == name }
    }

    /// Cancels every request of the client sent with `send` and not yet completed,
    /// as `cancelGroup` does for one group; returns how many.
    @discardableResult
    public func cancelAll() -> Int {
        loop.cancelMatching { _ in true }
    }
}
