import CCurlShim

/// The `HopTransport` of a client with "stubs": a hop a route answers is answered
/// from the table (after its delay, as TableTransport does), any other goes to the
/// wrapped `CurlTransport` (mode fallback) or fails with CLIENT NO_STUB, nothing
/// sent (mode only). With "stubs.record", each hop libcurl ends with a response is
/// written out first (StubRecorder). A client without "stubs" never makes one: its
/// loop runs on `CurlTransport` directly.
///
/// Threads: the loop's, but `wake()`.
final class StubTransport: HopTransport {
    let table: StubTable
    private let network: CurlTransport
    // Loop thread only.
    private var inFlight: [(transfer: Transfer, answer: Stub.Answer, route: String, due: UInt64)] = []

    init(table: StubTable, network: CurlTransport) {
        self.table = table
        self.network = network
    }

    func start(_ t: Transfer, _ p: PreparedRequest, timeoutMs: Int64) -> Result<UInt64, NetError> {
        switch table.lookUp(method: p.method, url: p.urlText) {
        case .network:
            return network.start(t, p, timeoutMs: timeoutMs)
        case .refused(let e):
            return .failure(e.attempted(t.attemptsMade(thisOneSent: false)))
        case .answer(let a, let route):
            let answer = StubTable.timed(a, timeoutMs: timeoutMs)
            inFlight.append((t, answer, route, monotonicNanos(afterMs: answer.delayMs)))
            return .success(0)
        }
    }

    func perform(_ ended: (Transfer, consuming HopOutcome) -> Void) {
        if let recorder = table.recorder {
            network.perform { t, outcome in
                StubTransport.record(recorder, t, outcome)
                ended(t, outcome)
            }
        } else {
            network.perform(ended)
        }
        // One at a time: an ended hop's callbacks may stop another (a cancel), which
        // then is no longer in flight and is not reported.
        while !inFlight.isEmpty {
            let now = monotonicNanos()
            guard let i = inFlight.firstIndex(where: { $0.due <= now }) else { return }
            let (t, answer, route, _) = inFlight.remove(at: i)
            ended(t, StubTable.outcome(answer, route: route))
        }
    }

    func stop(_ t: Transfer) -> Int32 {
        if let i = inFlight.firstIndex(where: { $0.transfer === t }) {
            inFlight.remove(at: i)
            return t.attemptsMade(thisOneSent: true)
        }
        return network.stop(t)
    }

    func end(_ t: Transfer, _ code: CURLcode) -> HopOutcome {
        if let i = inFlight.firstIndex(where: { $0.transfer === t }) {
            inFlight.remove(at: i)
            var outcome = HopOutcome(code: code)
            outcome.stubbed = true
            return outcome
        }
        return network.end(t, code)
    }

    func wait(timeoutMs: Int32) {
        var ms = timeoutMs
        if let due = inFlight.map(\.due).min() {
            let now = monotonicNanos()
            ms = min(ms, due > now ? Int32(clamping: (due - now) / 1_000_000 + 1) : 0)
        }
        network.wait(timeoutMs: ms)
    }

    func wake() { network.wake() }

    func close() {
        inFlight.removeAll()
        network.close()
    }

    /// A hop from the network that ended with a response: written as a stub.
    static func record(_ recorder: StubRecorder, _ t: Transfer, _ outcome: borrowing HopOutcome) {
        guard outcome.code == CURLE_OK, outcome.headerBlockEnded, let p = t.prepared,
            p.outputPath == nil, let received = outcome.received
        else { return }
        recorder.record(
            method: p.method, url: p.urlText, status: outcome.status, headers: received.headers, body: received.body)
    }
}
