import CCurlShim

/// The seam between a transfer loop and what carries its hops: the loop decides
/// (`Transfer.next(after:)`) and does (`TransferLoop.execute`), a transport moves
/// bytes. `CurlTransport` (libcurl's multi interface) is the production conformer;
/// `TableTransport` answers from a table, so the loop's actions — retries, waits,
/// cancels in every phase, redirects, timeouts — run with no server and no socket.
///
/// Threads: every function but `wake()` is called on the loop thread only. Cost:
/// one dynamic call a hop (`start`) and two a pass (`perform`, `wait`).
protocol HopTransport: AnyObject {
    /// Starts the hop of `t` that sends `p`, with `timeoutMs` as the hop's total
    /// limit (0: none): the first look of its idle watch (monotonicNanos; 0: not
    /// watched, IdleWatch.swift), or the error to complete with, nothing started.
    func start(_ t: Transfer, _ p: PreparedRequest, timeoutMs: Int64) -> Result<UInt64, NetError>

    /// Moves every hop in flight as far as it goes without waiting, then hands
    /// each hop that ended to `ended` with its outcome; the hop holds nothing of the
    /// transport any more. `ended` may stop other hops (a cancel from a callback):
    /// a stopped hop is not reported.
    func perform(_ ended: (Transfer, consuming HopOutcome) -> Void)

    /// Ends the hop of `t` now (a cancel, the shutdown): the attempts made,
    /// counting this one if it sent anything (`Transfer.attemptsMade`).
    func stop(_ t: Transfer) -> Int32

    /// Ends the hop of `t` with `code`, as the loop decided (the idle watch ends a
    /// hop that moved no byte for its limit with CURLE_OPERATION_TIMEDOUT): its outcome.
    func end(_ t: Transfer, _ code: CURLcode) -> HopOutcome

    /// Sleeps until a hop needs attention, `wake()` is called or `timeoutMs` passes.
    func wait(timeoutMs: Int32)

    /// Interrupts `wait`. Any thread.
    func wake()

    /// Frees what the transport holds. The loop thread has stopped and no hop is
    /// in flight.
    func close()
}
