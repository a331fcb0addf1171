import Glibc
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The loop's pool of idle easy handles (EasyHandlePool, through TransferLoop).
@Suite struct HandlePoolTests {
    let server = MockServer.shared

    /// 200 requests in flight at once, each held 300 ms by the server.
    func burst(_ c: NetClient) async throws -> Int { try await sendBurst(c, count: 200, ms: 300) }

    @Test func idleHandlesAreKeptForTheNextBurstAndFreedWhenIdle() async throws {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)","limits":{"max_connections_per_host":0}}"#)
        defer { c.shutdown() }
        // The two bursts run with the pool's window held still: on a loaded machine
        // the first burst's tail and the second's start may lie more than a window
        // apart (this test once saw 136 new handles there), which is the rule
        // working, not failing. The windows themselves are EasyHandlePoolTests'.
        c.loop.probe.poolFrozen.store(true, ordering: .relaxed)
        #expect(try await burst(c) == 200)
        let first = c.loop.probe.handlesMade.load(ordering: .relaxed)
        #expect(first == 200)
        #expect(try await burst(c) == 200)
        // The pool keeps handles for the last window's peak: all 200 are reused.
        // A fixed cap of 64 made 136 here, and "idle no more than in use" made 100.
        #expect(c.loop.probe.handlesMade.load(ordering: .relaxed) - first == 0)
        c.loop.probe.poolFrozen.store(false, ordering: .relaxed)
        // Idle, the loop passes about once a second and the number kept halves at
        // each pass a second apart: after 5 s it is 100 or 64 (the peak is counted
        // in the window it fell in, so the first pass after the burst keeps 200).
        try await Task.sleep(for: .seconds(5))
        let second = c.loop.probe.handlesMade.load(ordering: .relaxed)
        #expect(try await burst(c) == 200)
        let made = c.loop.probe.handlesMade.load(ordering: .relaxed) - second
        #expect(made >= 100 && made <= 136, "made \(made)")
    }
}
