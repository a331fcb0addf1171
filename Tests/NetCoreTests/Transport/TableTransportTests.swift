import CCurlShim
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The loop's actions — retries, waits between attempts, redirects, timeouts and
/// cancels in every phase — on a client whose hops a `TableTransport` answers: no
/// server, no socket. What reaches the caller is checked (domain, code, attempts,
/// body) and what the table served (the hops a server would have counted).
@Suite struct TableTransportTests {
    typealias Answer = TableTransport.Answer

    func client(_ routes: [TableTransport.Route], retry: String = "false") throws -> (NetClient, TableTransport) {
        let table = TableTransport(routes)
        let json = #"{"base_url": "http://table.invalid", "retry": \#(retry)}"#
        let config = try Configuration.parse(json: json).get()
        return (try NetClient(configuration: config, transport: table), table)
    }

    func outcome(_ c: NetClient, _ target: String, method: String = "GET") async -> Result<Response, NetError> {
        do throws(NetError) {
            let request = try Request(method: method, target: target)
            return .success(try await c.send(request))
        } catch {
            return .failure(error)
        }
    }

    @Test func anAnswerReachesTheCallerAsTheNetworkWould() async throws {
        let (c, table) = try client([
            .init(method: "GET", path: "/users/7", answers: [
                .status(200, headers: [("Content-Type", "application/json"), ("X-Req", "a")], body: #"{"id":7}"#)
            ])
        ])
        defer { c.shutdown() }
        let r = try await outcome(c, "/users/7").get()
        #expect(r.status == 200)
        #expect(r.body.text == #"{"id":7}"#)
        #expect(r.headers.value("X-Req") == "a")
        #expect(table.hops("/users/7") == 1)
    }

    @Test func aRouteNoneMatchesFailsAsCouldNotConnect() async throws {
        let (c, _) = try client([])
        defer { c.shutdown() }
        guard case .failure(let e) = await outcome(c, "/nowhere") else {
            Issue.record("expected a failure")
            return
        }
        #expect(e.domain == .transport)
        #expect(e.code == Int64(CURLE_COULDNT_CONNECT.rawValue))
    }

    @Test func a503IsRetriedUntilTheSuccess() async throws {
        let (c, table) = try client(
            [.init(method: "GET", path: "/flaky", answers: [.status(503), .status(503), .status(200, body: "ok")])],
            retry: #"{"max_attempts": 3, "initial_ms": 1, "jitter": false}"#)
        defer { c.shutdown() }
        let r = try await outcome(c, "/flaky").get()
        #expect(r.status == 200)
        #expect(r.body.text == "ok")
        #expect(table.hops("/flaky") == 3)
    }

    @Test func aTimeoutIsRetriedAndTheLastOneReported() async throws {
        let (c, table) = try client(
            [.init(method: "GET", path: "/slow", answers: [.failure(CURLE_OPERATION_TIMEDOUT)])],
            retry: #"{"max_attempts": 2, "initial_ms": 1, "jitter": false}"#)
        defer { c.shutdown() }
        guard case .failure(let e) = await outcome(c, "/slow") else {
            Issue.record("expected a failure")
            return
        }
        #expect(e.domain == .transport)
        #expect(e.code == 28)
        #expect(e.attempts == 2)
        #expect(table.hops("/slow") == 2)
    }

    @Test func aPOSTIsNotRetried() async throws {
        let (c, table) = try client(
            [.init(method: "POST", path: "/orders", answers: [.status(503), .status(200)])],
            retry: #"{"max_attempts": 3, "initial_ms": 1}"#)
        defer { c.shutdown() }
        guard case .failure(let e) = await outcome(c, "/orders", method: "POST") else {
            Issue.record("expected a failure")
            return
        }
        #expect(e.domain == .http)
        #expect(e.code == 503)
        #expect(table.hops("/orders") == 1)
    }

    @Test func aRedirectIsFollowedOnTheSameAttempt() async throws {
        let (c, table) = try client([
            .init(method: "GET", path: "/old", answers: [.status(302, headers: [("Location", "/new")])]),
            .init(method: "GET", path: "/new", answers: [.status(200, body: "moved")]),
        ])
        defer { c.shutdown() }
        let r = try await outcome(c, "/old").get()
        #expect(r.status == 200)
        #expect(r.body.text == "moved")
        #expect(r.url.hasSuffix("/new"))
        #expect(table.hops("/old") == 1 && table.hops("/new") == 1)
    }

    @Test func aCancelWhileTheHopRunsEndsItAsCancelledOnce() async throws {
        let (c, table) = try client([.init(method: "GET", path: "/long", answers: [.status(200, delayMs: 60_000)])])
        defer { c.shutdown() }
        let task = Task { await outcome(c, "/long") }
        while table.hops("/long") == 0 { await Task.yield() }
        task.cancel()
        guard case .failure(let e) = await task.value else {
            Issue.record("expected a cancel")
            return
        }
        #expect(e.matches(.client, code: Int64(NetError.ClientCode.cancelled.rawValue)))
        #expect(e.attempts == 1)
    }

    @Test func aCancelWhileWaitingToRetryEndsTheWait() async throws {
        let (c, table) = try client(
            [.init(method: "GET", path: "/later", answers: [.status(503)])],
            retry: #"{"max_attempts": 3, "initial_ms": 60000, "max_delay_ms": 60000, "jitter": false, "respect_retry_after": false}"#)
        defer { c.shutdown() }
        let task = Task { await outcome(c, "/later") }
        while table.hops("/later") == 0 { await Task.yield() }
        // The first answer arrived and the retry waits 60 s: cancelling ends the wait.
        try await Task.sleep(nanoseconds: 50_000_000)
        task.cancel()
        guard case .failure(let e) = await task.value else {
            Issue.record("expected a cancel")
            return
        }
        #expect(e.matches(.client, code: Int64(NetError.ClientCode.cancelled.rawValue)))
        #expect(e.attempts == 1)
        #expect(table.hops("/later") == 1)
    }

    @Test func cancelMatchingCountsEachTransferOnceWhereverItIs() async throws {
        let (c, table) = try client(
            [
                .init(method: "GET", path: "/run", answers: [.status(200, delayMs: 60_000)]),
                .init(method: "GET", path: "/wait", answers: [.status(503)]),
            ],
            retry: #"{"max_attempts": 3, "initial_ms": 60000, "max_delay_ms": 60000, "jitter": false}"#)
        defer { c.shutdown() }
        let running = Task { await outcome(c, "/run") }
        let waiting = Task { await outcome(c, "/wait") }
        while table.hops("/run") == 0 || table.hops("/wait") == 0 { await Task.yield() }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(c.loop.cancelMatching { _ in true } == 2)
        for task in [running, waiting] {
            guard case .failure(let e) = await task.value else {
                Issue.record("expected a cancel")
                continue
            }
            #expect(e.matches(.client, code: Int64(NetError.ClientCode.cancelled.rawValue)))
        }
        // Nothing is left to cancel.
        #expect(c.loop.cancelMatching { _ in true } == 0)
    }
}
