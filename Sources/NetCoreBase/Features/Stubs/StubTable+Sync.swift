/// Synchronous sends (SyncLanes.swift) do not go through the loop's transport: a
/// lane asks the client's stubs about each hop here.
extension TransferLoop {
    /// The hop of the synchronous send `t` as the stubs answer it: nil when it goes
    /// to the network (mode fallback); else what follows the stub's answer, given
    /// after its delay (waited on `lane`), or the error to end with (no stub in mode
    /// only, a shutdown or cancel during the delay).
    func stubbedHop(
        _ t: Transfer, _ hop: (request: PreparedRequest, timeoutMs: Int64), _ stubs: StubTable, _ lane: SyncLane
    ) -> Result<TransferAction, NetError>? {
        switch stubs.lookUp(method: hop.request.method, url: hop.request.urlText) {
        case .network:
            return nil
        case .refused(let e):
            return .failure(e.attempted(t.attemptsMade(thisOneSent: false)))
        case .answer(let a, let route):
            let answer = StubTable.timed(a, timeoutMs: hop.timeoutMs)
            let due = monotonicNanos(afterMs: answer.delayMs)
            while answer.delayMs > 0 {
                if lanes.stopping.load(ordering: .acquiring) {
                    return .failure(NetError.shutdown.attempted(t.attemptsMade(thisOneSent: true)))
                }
                if let x = t.extras, monitor.withLock({ x.laneCancel }) {
                    return .failure(NetError.cancelled.attempted(t.attemptsMade(thisOneSent: true)))
                }
                let now = monotonicNanos()
                if now >= due { break }
                lane.poll(Int32(clamping: (due - now + 999_999) / 1_000_000))
            }
            return .success(t.next(after: StubTable.outcome(answer, route: route)))
        }
    }
}
