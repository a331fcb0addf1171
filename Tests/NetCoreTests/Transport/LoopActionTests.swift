import Glibc
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// Records every event; waits for one to appear.
final class RecordingMonitor: EventMonitor, @unchecked Sendable {
    let events = Mutex<[RequestEvent]>([])
    func requestDidStart(_ event: RequestEvent) { events.withLock { $0.append(event) } }
    func attemptDidEnd(_ event: RequestEvent) { events.withLock { $0.append(event) } }
    func retryScheduled(_ event: RequestEvent) { events.withLock { $0.append(event) } }
    func requestDidComplete(_ event: RequestEvent) { events.withLock { $0.append(event) } }

    var kinds: [RequestEvent.Kind] { events.withLock { $0.map(\.kind) } }

    /// Waits (bounded: 10 s) until `count` events of `kind` were seen.
    func wait(for kind: RequestEvent.Kind, count: Int = 1) -> Bool {
        for _ in 0..<1000 {
            if events.withLock({ $0.filter { $0.kind == kind }.count }) >= count { return true }
            usleep(10_000)
        }
        return false
    }
}

/// A policy scripted per attempt: the action for attempt 1, 2, …; later ones complete.
final class ScriptedPolicy: TransferPolicy, @unchecked Sendable {
    let script: [TransferAction]
    /// Weak: a transfer holds its policy, so a strong list would keep both alive.
    private struct Held { weak var transfer: Transfer? }
    private let held = Mutex<[Held]>([])
    init(_ script: [TransferAction]) { self.script = script }
    var parked: [Transfer] { held.withLock { $0.compactMap(\.transfer) } }
    func next(after transfer: Transfer, response: Response?, error: NetError?) -> TransferAction {
        let i = Int(transfer.attempt) - 1
        guard i < script.count else { return .complete(response, error) }
        if case .park = script[i] { held.withLock { $0.append(Held(transfer: transfer)) } }
        return script[i]
    }
}

/// The loop and the synchronous lanes carry out every TransferAction the same way,
/// against the real loopback server: delays, parking, cancels and shutdown while
/// waiting, and the events of each attempt.
@Suite struct LoopActionTests {
    let server = MockServer.shared

    func client(_ policy: ScriptedPolicy?, _ monitor: RecordingMonitor, extra: String = "") throws -> NetClient {
        // Identical requests are separate transfers here: the loop is under test, not coalescing.
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)","envelope":{},"coalesce":false\#(extra)}"#)
        c.transferPolicy = policy
        c.eventMonitor = monitor
        return c
    }

    /// How many times the server saw /flaky with `key` (asking counts once more:
    /// the answer's `attempt` is that count plus one).
    func hits(_ key: String) throws -> Int {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let (r, _) = try c.sendSync(try Request(method: "GET", target: "/flaky?key=\(key)&fails=0")).get()
        let text = try #require(r?.data?.text)
        let digits = try #require(text.split(separator: "\"attempt\":").last?.prefix { $0.isNumber })
        return try #require(Int(digits)) - 1
    }

    func uniqueKey() -> String { "k\(UInt64.random(in: 0..<UInt64.max))" }

    @Test(arguments: [false, true])
    func relaunchAfterADelayRunsANewAttempt(sync: Bool) throws {
        let key = uniqueKey()
        let monitor = RecordingMonitor()
        let policy = ScriptedPolicy([
            .relaunchAfter(ms: 30, reason: "HTTP 503"), .relaunchAfter(ms: 10, reason: "HTTP 503")
        ])
        let c = try client(policy, monitor)
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/flaky?key=\(key)&fails=2&status=503")
        let (r, e): (Response?, NetError?)
        if sync {
            (r, e) = try c.sendSync(request).get()
        } else {
            let done = Mutex<[(Response?, NetError?)]>([])
            let t = try #require(c.send(request) { r, e in done.withLock { $0.append((r, e)) } })
            #expect(monitor.wait(for: .requestEnd))
            t.cancel()   // already complete: changes nothing
            let calls = done.withLock { $0 }
            #expect(calls.count == 1)
            (r, e) = try #require(calls.first)
        }
        #expect(e == nil)
        #expect(r?.status == 200)
        #expect(try hits(key) == 3)
        #expect(monitor.kinds == [.requestStart, .attemptEnd, .retry, .attemptEnd, .retry, .attemptEnd, .requestEnd])
        let events = monitor.events.withLock { $0 }
        #expect(events.filter { $0.kind == .attemptEnd }.map(\.attempt) == [1, 2, 3])
        #expect(events.filter { $0.kind == .attemptEnd }.map(\.status) == [503, 503, 200])
        #expect(events.filter { $0.kind == .retry }.map(\.delayMs) == [30, 10])
        #expect(events.filter { $0.kind == .retry }.map(\.reason) == ["HTTP 503", "HTTP 503"])
        #expect(Set(events.map(\.id)).count == 1)
    }

    @Test func aCancelDuringTheDelayCompletesAtOnceWithCancelled() throws {
        let key = uniqueKey()
        let monitor = RecordingMonitor()
        let c = try client(ScriptedPolicy([.relaunchAfter(ms: 600_000, reason: "wait")]), monitor)
        defer { c.shutdown() }
        let done = Mutex<[NetError?]>([])
        let t = try #require(
            c.send(try Request(method: "GET", target: "/flaky?key=\(key)&fails=5")) { _, e in
                done.withLock { $0.append(e) }
            })
        #expect(monitor.wait(for: .retry))
        t.cancel()   // returns after the completion ran
        let calls = done.withLock { $0 }
        #expect(calls.count == 1)
        #expect(calls.first??.code == NetError.ClientCode.cancelled.rawValue)
        #expect(calls.first??.attempts == 1)
        #expect(try hits(key) == 1)
        t.cancel()
        #expect(done.withLock { $0.count } == 1)
    }

    /// A group's requests waiting between attempts (a delay, a park) are cancelled
    /// by cancelGroup at once, each exactly once, and counted.
    @Test func aGroupCancelReachesRequestsWaitingBetweenAttempts() throws {
        let monitor = RecordingMonitor()
        let policy = ScriptedPolicy([.relaunchAfter(ms: 600_000, reason: "backoff")])
        let c = try client(policy, monitor)
        defer { c.shutdown() }
        var delayed = try Request(method: "GET", target: "/flaky?key=\(uniqueKey())&fails=5")
        try delayed.setGroup("g")
        let done = Mutex<[NetError?]>([])
        for _ in 0..<3 {
            _ = try #require(c.send(delayed) { _, e in done.withLock { $0.append(e) } })
        }
        #expect(monitor.wait(for: .retry, count: 3))
        #expect(try c.cancelGroup("other") == 0)
        // A name setGroup refuses is refused here too, nothing cancelled.
        for bad in ["", "g\n", "\u{7f}g"] {
            #expect(throws: NetError.self) { try c.cancelGroup(bad) }
        }
        #expect(done.withLock { $0.isEmpty })
        #expect(try c.cancelGroup("g") == 3)   // returns once the loop acted: completions ran
        let calls = done.withLock { $0 }
        #expect(calls.count == 3)
        #expect(calls.allSatisfy { $0?.code == NetError.ClientCode.cancelled.rawValue && $0?.attempts == 1 })
        #expect(c.cancelAll() == 0)

        // Parked ones too.
        let parking = try client(ScriptedPolicy([.park]), monitor)
        defer { parking.shutdown() }
        let parkedDone = Mutex<Int>(0)
        for _ in 0..<2 {
            _ = try #require(
                parking.send(try Request(method: "GET", target: "/flaky?key=\(uniqueKey())&fails=1")) { _, e in
                    if e?.code == NetError.ClientCode.cancelled.rawValue { parkedDone.withLock { $0 += 1 } }
                })
        }
        #expect(monitor.wait(for: .attemptEnd, count: 3 + 2))
        #expect(parking.cancelAll() == 2)
        #expect(parkedDone.withLock { $0 } == 2)
    }

    @Test(arguments: [false, true])
    func aParkedTransferRelaunchesWhenResumed(sync: Bool) throws {
        let key = uniqueKey()
        let monitor = RecordingMonitor()
        let policy = ScriptedPolicy([.park])
        let c = try client(policy, monitor)
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/flaky?key=\(key)&fails=1&status=401")
        let done = Mutex<[(Response?, NetError?)]>([])
        if sync {
            let thread = try #require(
                startThread {
                    let outcome = try? c.sendSync(request).get()
                    done.withLock { $0.append(outcome ?? (nil, nil)) }
                })
            #expect(monitor.wait(for: .attemptEnd))
            let parked = try #require(policy.parked.first)
            c.loop.resume(parked)
            pthread_join(thread, nil)
        } else {
            _ = try #require(c.send(request) { r, e in done.withLock { $0.append((r, e)) } })
            #expect(monitor.wait(for: .attemptEnd))
            let parked = try #require(policy.parked.first)
            #expect(done.withLock { $0.isEmpty })   // held, not completed
            c.loop.resume(parked)
            #expect(monitor.wait(for: .requestEnd))
        }
        let calls = done.withLock { $0 }
        #expect(calls.count == 1)
        #expect(calls.first?.1 == nil)
        #expect(calls.first?.0?.status == 200)
        #expect(try hits(key) == 2)
    }

    @Test func shutdownCompletesWaitingTransfersOnce() throws {
        let monitor = RecordingMonitor()
        let c = try client(ScriptedPolicy([.park]), monitor)
        let c2 = try client(ScriptedPolicy([.relaunchAfter(ms: 600_000, reason: "wait")]), monitor)
        let done = Mutex<[NetError?]>([])
        for client in [c, c2] {
            _ = try #require(
                client.send(try Request(method: "GET", target: "/flaky?key=\(uniqueKey())&fails=3")) { _, e in
                    done.withLock { $0.append(e) }
                })
        }
        #expect(monitor.wait(for: .attemptEnd, count: 2))
        c.shutdown()
        c2.shutdown()
        let calls = done.withLock { $0 }
        #expect(calls.count == 2)
        #expect(calls.allSatisfy { $0?.code == NetError.ClientCode.shutdown.rawValue && $0?.attempts == 1 })
    }

    @Test func eventsOfAPlainRequestCarryTimingsAndHops() throws {
        let monitor = RecordingMonitor()
        let c = try client(nil, monitor)
        defer { c.shutdown() }
        let (r, e) = try c.sendSync(try Request(method: "GET", target: "/redirect/chain?n=2")).get()
        #expect(e == nil && r?.status == 200)
        #expect(monitor.kinds == [.requestStart, .attemptEnd, .requestEnd])
        let attempt = try #require(monitor.events.withLock { $0.first { $0.kind == .attemptEnd } })
        let timings = try #require(attempt.timings)
        #expect(timings.hops == 3)
        #expect(timings.totalUs > 0)
        #expect(timings.firstByteUs <= timings.totalUs)
        #expect(attempt.url == server.url("/redirect/chain?n=2"))
        #expect(attempt.method == "GET")
    }

    @Test func idsCountUpPerClientAndEveryRequestStartsAndEndsOnce() throws {
        let monitor = RecordingMonitor()
        let c = try client(nil, monitor)
        defer { c.shutdown() }
        var tasks: [Transfer] = []
        for _ in 0..<20 {
            tasks.append(try #require(c.send(try Request(method: "GET", target: "/env/code/ok")) { _, _ in }))
        }
        _ = try c.sendSync(try Request(method: "GET", target: "/env/code/ok")).get()
        #expect(monitor.wait(for: .requestEnd, count: 21))
        let events = monitor.events.withLock { $0 }
        #expect(Set(tasks.map(\.id)) == Set(1...20))
        for id in UInt64(1)...21 {
            #expect(events.filter { $0.id == id && $0.kind == .requestStart }.count == 1)
            #expect(events.filter { $0.id == id && $0.kind == .requestEnd }.count == 1)
        }
    }

    @Test func aRequestThatCannotBeBuiltStillStartsAndEnds() throws {
        let monitor = RecordingMonitor()
        let c = try NetClient(json: "{}")   // no base URL: a relative path cannot be sent
        c.eventMonitor = monitor
        defer { c.shutdown() }
        let (_, e) = try c.sendSync(try Request(method: "GET", target: "/x")).get()
        #expect(e?.code == NetError.ClientCode.invalidRequest.rawValue)
        #expect(monitor.kinds == [.requestStart, .requestEnd])
        #expect(monitor.events.withLock { $0.last?.error?.code } == NetError.ClientCode.invalidRequest.rawValue)
    }

    @Test func withoutAMonitorNothingIsRecorded() throws {
        let monitor = RecordingMonitor()
        let c = try client(nil, monitor)
        defer { c.shutdown() }
        c.eventMonitor = nil
        _ = try c.sendSync(try Request(method: "GET", target: "/env/code/ok")).get()
        #expect(monitor.kinds.isEmpty)
    }
}
