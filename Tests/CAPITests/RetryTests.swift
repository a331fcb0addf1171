// Retry through the C header against the loopback mock server: attempts and waits
// are read from the event stream (nc_client_set_event_handler) and the server's
// own count of the requests it saw (/_hits?key=K), never from the clock.
import CNetCore
import Foundation
import MockServerSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every event of a client, parsed.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [[String: Any]] = []
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    fileprivate func add(_ text: String) {
        guard let e = foundationJSON(text) as? [String: Any] else { return }
        lock.withLock { _events.append(e) }
    }

    var events: [[String: Any]] { lock.withLock { _events } }
    func of(_ kind: String) -> [[String: Any]] { events.filter { $0["event"] as? String == kind } }
    var kinds: [String] { events.compactMap { $0["event"] as? String } }
    /// The "delay_ms" of each retry event.
    var delays: [Int] { of("retry").compactMap { $0["delay_ms"] as? Int } }
    var reasons: [String] { of("retry").compactMap { $0["reason"] as? String } }
    /// The "status" of each attempt_end event.
    var statuses: [Int] { of("attempt_end").compactMap { $0["status"] as? Int } }

    func waitFor(_ kind: String, count: Int = 1) -> Bool { waitUntil { self.of(kind).count >= count } }
}

let eventLogFn: nc_event_fn = { text, len, ud in
    guard let ud, let text else { return }
    Unmanaged<EventLog>.fromOpaque(ud).takeUnretainedValue().add(
        String(decoding: UnsafeRawBufferPointer(start: text, count: len), as: UTF8.self))
}

/// How many requests carrying `key=<key>` the shared mock server has seen.
func hits(_ key: String) -> Int {
    guard let o = try? fetch("{}", MockServer.shared.url("/_hits?key=\(key)")),
        let object = foundationJSON(o.response?.dataJSON) as? [String: Any]
    else { return -1 }
    return (object["hits"] as? Int) ?? -1
}

func uniqueKey() -> String { "k\(UInt64.random(in: 0..<UInt64.max))" }

/// A client with an event log; `retry` is the JSON of "retry" (nil: no key).
func retryClient(_ retry: String?, _ extra: String...) throws -> (TestClient, EventLog) {
    var members = extra.filter { !$0.isEmpty }
    if let retry { members.append(#""retry":\#(retry)"#) }
    let json =
        "{"
        + ([#""base_url":"\#(MockServer.shared.baseURL)""#, #""envelope":\#(Envelope.a)"#] + members)
        .joined(separator: ",") + "}"
    let client = try TestClient(json)
    let log = EventLog()
    keptLogs.withLock { $0.append(log) }   // the handler's userdata outlives the test's variables
    #expect(nc_client_set_event_handler(client.handle, eventLogFn, log.userdata) == NC_OK)
    return (client, log)
}

/// Every EventLog handed to a client, kept for the process.
let keptLogs = Mutex<[EventLog]>([])

/// A fast, exact policy: constant 10 ms waits, no jitter.
let quickRetry = #"{"max_attempts":4,"backoff":"constant","initial_ms":10,"jitter":false}"#

/// How a request is sent: nc_client_send (loop), nc_client_send_sync, or queue mode.
enum Path: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case async, sync, queue
    var testDescription: String { rawValue }
    var extra: String { self == .queue ? #""callbacks":"queue""# : #""callbacks":"loop""# }

    /// Sends `request` and returns its single outcome (and how many completions ran).
    func send(_ client: TestClient, _ request: Request) -> (Outcome?, Int) {
        switch self {
        case .sync:
            return (client.sync(request), 1)
        case .async:
            let c = client.sendAndWait(request)
            return (c.outcome, c.calls)
        case .queue:
            let c = Collector()
            let (rc, task) = client.send(request, c)
            defer { nc_task_free(task) }
            guard rc == NC_OK else { return (nil, 0) }
            _ = waitUntil(timeout: 20) {
                _ = nc_client_dispatch(client.handle)
                return c.calls > 0
            }
            return (c.outcome, c.calls)
        }
    }
}

@Suite struct RetryTests {
    // MARK: attempts and waits

    @Test(arguments: Path.allCases)
    func aFlakyGETSucceedsOnTheThirdAttempt(path: Path) throws {
        let (client, log) = try retryClient(quickRetry, path.extra)
        let key = uniqueKey()
        let (outcome, calls) = path.send(client, try Request("GET", "/flaky?key=\(key)&fails=2&status=503"))
        #expect(calls == 1)
        #expect(outcome?.succeeded == true, "\(String(describing: outcome))")
        #expect(hits(key) == 3)
        #expect(
            log.kinds == ["request_start", "attempt_end", "retry", "attempt_end", "retry", "attempt_end", "request_end"]
        )
        #expect(log.statuses == [503, 503, 200])
        #expect(log.delays == [10, 10])
        #expect(log.reasons == ["HTTP 503", "HTTP 503"])
        #expect(log.of("retry").compactMap { $0["attempt"] as? Int } == [1, 2])
        client.free()
    }

    @Test(arguments: Path.allCases)
    func withoutARetryKeyThereIsOneAttempt(path: Path) throws {
        let (client, log) = try retryClient(nil, path.extra)
        let key = uniqueKey()
        let (outcome, _) = path.send(client, try Request("GET", "/flaky?key=\(key)&fails=1&status=503"))
        #expect(outcome?.error?.domain == NC_DOMAIN_HTTP && outcome?.error?.code == 503)
        #expect(outcome?.error?.attempts == 1)
        #expect(hits(key) == 1)
        #expect(log.of("retry").isEmpty)
        client.free()
    }

    @Test(arguments: Path.allCases)
    func itGivesUpAfterMaxAttemptsWithTheLastError(path: Path) throws {
        let (client, log) = try retryClient(quickRetry, path.extra)
        let key = uniqueKey()
        let (outcome, calls) = path.send(client, try Request("GET", "/flaky?key=\(key)&fails=9&status=502"))
        #expect(calls == 1)
        let e = try #require(outcome?.error)
        #expect(e.domain == NC_DOMAIN_HTTP && e.code == 502 && e.attempts == 4)
        #expect(outcome?.response?.status == 502)
        #expect(hits(key) == 4)
        #expect(log.delays == [10, 10, 10])
        client.free()
    }

    @Test func exponentialWaitsGrowAndAreCapped() throws {
        let (client, log) = try retryClient(
            #"{"max_attempts":5,"initial_ms":10,"multiplier":3,"max_delay_ms":50,"jitter":false}"#)
        let key = uniqueKey()
        let o = client.sync(try Request("GET", "/flaky?key=\(key)&fails=4&status=500"))
        #expect(o.succeeded)
        #expect(log.delays == [10, 30, 50, 50])
        #expect(hits(key) == 5)
        client.free()
    }

    @Test func fullJitterKeepsEachWaitWithinTheBackoff() throws {
        let (client, log) = try retryClient(#"{"max_attempts":4,"initial_ms":40,"multiplier":2}"#)
        let key = uniqueKey()
        #expect(client.sync(try Request("GET", "/flaky?key=\(key)&fails=3&status=503")).succeeded)
        let delays = log.delays
        #expect(delays.count == 3)
        for (i, d) in delays.enumerated() { #expect((0...(40 << i)).contains(d), "wait \(i + 1): \(d)") }
        client.free()
    }

    @Test func transportErrorsAreRetried() throws {
        let (port, fd) = refusingPort()
        defer { close(fd) }
        let (client, log) = try retryClient(quickRetry)
        let o = client.sync(try Request("GET", "http://127.0.0.1:\(port)/x"))
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT && o.error?.code == 7)
        #expect(o.error?.attempts == 4)
        #expect(log.reasons.count == 3)
        #expect(log.reasons.allSatisfy { $0.hasPrefix("transport 7: ") })
        client.free()
    }

    @Test func apiErrorsAreNotRetriedByThePolicy() throws {
        let (client, log) = try retryClient(quickRetry)
        let key = uniqueKey()
        let o = client.sync(try Request("GET", "/status/503?body=envelope&key=\(key)"))
        #expect(o.error?.domain == NC_DOMAIN_API && o.error?.httpStatus == 503 && o.error?.attempts == 1)
        #expect(hits(key) == 1)
        #expect(log.of("retry").isEmpty)
        client.free()
    }

    // MARK: methods and flags

    @Test(arguments: Path.allCases)
    func aPOSTIsNotRetriedByDefault(path: Path) throws {
        let (client, _) = try retryClient(quickRetry, path.extra)
        let key = uniqueKey()
        let r = try Request("POST", "/flaky?key=\(key)&fails=1&status=503")
        r.params(#"{"order":1}"#)
        let (outcome, _) = path.send(client, r)
        #expect(outcome?.error?.code == 503 && outcome?.error?.attempts == 1)
        #expect(hits(key) == 1)
        client.free()
    }

    @Test func aPOSTOptedInWithTheFlagOrAnIdempotencyKeyIsRetried() throws {
        let (client, log) = try retryClient(quickRetry)
        let k1 = uniqueKey()
        let flagged = try Request("POST", "/flaky?key=\(k1)&fails=1&status=503")
        flagged.params(#"{"order":1}"#)
        #expect(nc_request_set_flags(flagged.handle, UInt32(NC_REQUEST_IDEMPOTENT)) == NC_OK)
        #expect(client.sync(flagged).succeeded)
        #expect(hits(k1) == 2)
        let k2 = uniqueKey()
        let keyed = try Request("POST", "/flaky?key=\(k2)&fails=1&status=503")
        keyed.params(#"{"order":2}"#)
        keyed.header("Idempotency-Key", "order-2")
        #expect(client.sync(keyed).succeeded)
        #expect(hits(k2) == 2)
        #expect(log.of("retry").count == 2)
        client.free()
    }

    @Test func noRetryFlagMeansOneAttempt() throws {
        let (client, log) = try retryClient(quickRetry)
        let key = uniqueKey()
        let r = try Request("GET", "/flaky?key=\(key)&fails=1&status=503")
        #expect(nc_request_set_flags(r.handle, UInt32(NC_REQUEST_NO_RETRY)) == NC_OK)
        #expect(client.sync(r).error?.code == 503)
        #expect(hits(key) == 1)
        #expect(log.of("retry").isEmpty)
        client.free()
    }

    // MARK: per request and per endpoint

    @Test func aRequestsRetryJSONMergesOverTheClients() throws {
        let (client, log) = try retryClient(#"{"max_attempts":2,"backoff":"constant","initial_ms":7,"jitter":false}"#)
        let key = uniqueKey()
        let r = try Request("GET", "/flaky?key=\(key)&fails=3&status=503")
        let more = #"{"max_attempts":4}"#
        #expect(nc_request_set_retry_json(r.handle, more, more.utf8.count) == NC_OK)
        #expect(client.sync(r).succeeded)
        #expect(log.delays == [7, 7, 7])   // initial_ms and backoff kept from the client
        #expect(hits(key) == 4)

        let k2 = uniqueKey()
        let off = try Request("GET", "/flaky?key=\(k2)&fails=1&status=503")
        #expect(nc_request_set_retry_json(off.handle, "false", 5) == NC_OK)
        #expect(client.sync(off).error?.attempts == 1)
        #expect(hits(k2) == 1)

        // null: back to the client's policy.
        let k3 = uniqueKey()
        let back = try Request("GET", "/flaky?key=\(k3)&fails=1&status=503")
        #expect(nc_request_set_retry_json(back.handle, "false", 5) == NC_OK)
        #expect(nc_request_set_retry_json(back.handle, "null", 4) == NC_OK)
        #expect(client.sync(back).succeeded)
        #expect(hits(k3) == 2)
        client.free()
    }

    @Test func aBadRetryJSONIsRefusedAndChangesNothing() throws {
        let r = try Request("GET", "/x")
        for bad in [#"{"max_attempts":0}"#, #"{"tries":1}"#, "[1]", "true", "{", #"{"backoff":"linear"}"#] {
            #expect(nc_request_set_retry_json(r.handle, bad, bad.utf8.count) == NC_ERR_INVALID_ARGUMENT, "\(bad)")
        }
        #expect(nc_request_set_retry_json(nil, "false", 5) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_retry_json(r.handle, nil, 0) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_deadline_ms(r.handle, -1) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_connect_timeout_ms(r.handle, -1) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_idle_timeout_ms(r.handle, Int64(Int32.max) + 1) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_deadline_ms(nil, 1) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_retry_handler(nil, nil, nil) == NC_ERR_INVALID_ARGUMENT)
    }

    @Test func aRequestMayTurnRetryOnWhereTheClientHasNone() throws {
        let (client, log) = try retryClient(nil)
        let key = uniqueKey()
        let r = try Request("GET", "/flaky?key=\(key)&fails=1&status=503")
        let on = #"{"initial_ms":5,"jitter":false}"#
        #expect(nc_request_set_retry_json(r.handle, on, on.utf8.count) == NC_OK)
        #expect(client.sync(r).succeeded)
        #expect(log.delays == [5])
        #expect(hits(key) == 2)
        client.free()
    }

    @Test func anEndpointsRetryAppliesAndARequestsOwnWins() throws {
        let (client, log) = try retryClient(
            quickRetry,
            #""endpoints":{"flaky":{"path":"/flaky","retry":{"max_attempts":2,"initial_ms":3,"jitter":false,"backoff":"constant"}},"#
                + #""once":{"path":"/flaky","retry":false}}"#)
        let k1 = uniqueKey()
        let r1 = try Request(endpoint: "flaky")
        r1.params(#"{"key":"\#(k1)","fails":5,"status":503}"#)
        #expect(client.sync(r1).error?.attempts == 2)
        #expect(hits(k1) == 2)
        #expect(log.delays == [3])
        let k2 = uniqueKey()
        let r2 = try Request(endpoint: "once")
        r2.params(#"{"key":"\#(k2)","fails":1,"status":503}"#)
        #expect(client.sync(r2).error?.attempts == 1)
        #expect(hits(k2) == 1)
        let k3 = uniqueKey()
        let r3 = try Request(endpoint: "once")
        r3.params(#"{"key":"\#(k3)","fails":1,"status":503}"#)
        let on = #"{"max_attempts":2}"#
        #expect(nc_request_set_retry_json(r3.handle, on, on.utf8.count) == NC_OK)
        #expect(client.sync(r3).succeeded)
        #expect(hits(k3) == 2)
        client.free()
    }

    // MARK: the retry handler

    @Test func theHandlerChoosesTheWaitStopsOrDefers() throws {
        let (client, log) = try retryClient(quickRetry)
        let calls = Box<[Int32]>([])
        let answers = Box<[Int64]>([25, -2, -1])
        let box = RetryBox { _, error, attempt in
            calls.value.append(attempt)
            #expect(nc_error_code(error) == 503)
            let a = answers.value
            answers.value = Array(a.dropFirst())
            return a.first ?? -1
        }
        #expect(nc_client_set_retry_handler(client.handle, retryBoxFn, box.userdata) == NC_OK)
        let key = uniqueKey()
        let o = client.sync(try Request("GET", "/flaky?key=\(key)&fails=9&status=503"))
        #expect(o.error?.code == 503 && o.error?.attempts == 3)
        #expect(calls.value == [1, 2, 3])
        #expect(log.delays == [25, 10])
        #expect(log.reasons.first?.hasPrefix("retry handler") == true)
        #expect(log.reasons.last == "HTTP 503")
        #expect(hits(key) == 3)
        // Removed: the policy alone.
        #expect(nc_client_set_retry_handler(client.handle, nil, nil) == NC_OK)
        let k2 = uniqueKey()
        #expect(client.sync(try Request("GET", "/flaky?key=\(k2)&fails=1&status=503")).succeeded)
        #expect(calls.value.count == 3)
        client.free()
        withExtendedLifetime(box) {}
    }

    /// The longest wait a handler may ask for (INT64_MAX ms) is a wait, not a due
    /// time that wraps round to the past: nothing more is sent before the cancel.
    @Test func aHandlersLongestWaitIsAWaitNotAnOverflow() throws {
        let (client, log) = try retryClient(nil)
        let box = RetryBox { _, _, _ in Int64.max }
        #expect(nc_client_set_retry_handler(client.handle, retryBoxFn, box.userdata) == NC_OK)
        let key = uniqueKey()
        let c = Collector()
        let (rc, task) = client.send(try Request("GET", "/flaky?key=\(key)&fails=9&status=503"), c)
        #expect(rc == NC_OK)
        #expect(log.waitFor("retry"))
        #expect(log.delays == [Int(Int64.max)])
        usleep(200_000)   // a wrapped due time sent the retry within a millisecond or two
        #expect(hits(key) == 1)
        nc_task_cancel(task)
        #expect(c.wait())
        #expect(c.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
        #expect(c.outcome?.error?.attempts == 1)
        nc_task_free(task)
        client.free()
        withExtendedLifetime(box) {}
    }

    @Test(arguments: [Path.async, Path.sync])
    func theHandlerMayRetryAnAPIErrorAndAPOST(path: Path) throws {
        // No "retry" key: the handler alone turns retry on (max_attempts 3 by default).
        let (client, log) = try retryClient(nil, path.extra)
        let box = RetryBox { response, error, _ in
            #expect(nc_response_status(response) == 200)   // the envelope's response is passed
            return nc_error_domain(error) == NC_DOMAIN_API ? 0 : -2
        }
        #expect(nc_client_set_retry_handler(client.handle, retryBoxFn, box.userdata) == NC_OK)
        let key = uniqueKey()
        let r = try Request("POST", "/env/code/fail?key=\(key)")
        r.params(#"{"a":1}"#)
        let (o, _) = path.send(client, r)
        #expect(o?.error?.domain == NC_DOMAIN_API && o?.error?.code == 1001 && o?.error?.attempts == 3)
        #expect(hits(key) == 3)
        #expect(log.delays == [0, 0])
        client.free()
        withExtendedLifetime(box) {}
    }

    // MARK: Retry-After

    @Test func retryAfterInSecondsReplacesTheBackoff() async throws {
        let (client, log) = try retryClient(#"{"initial_ms":5000,"jitter":false}"#)
        let key = uniqueKey()
        let r = try Request("GET", "/flaky?key=\(key)&fails=1&status=429&retry_after=1")
        #expect(await blocking { client.sync(r) }.succeeded)   // waits a second: off the cooperative pool
        #expect(log.delays == [1000])
        #expect(log.reasons == ["HTTP 429, Retry-After: 1"])
        client.free()
    }

    @Test func retryAfterIsCappedByMaxDelay() throws {
        let (client, log) = try retryClient(#"{"max_delay_ms":30}"#)
        let key = uniqueKey()
        #expect(client.sync(try Request("GET", "/flaky?key=\(key)&fails=1&status=503&retry_after=3600")).succeeded)
        #expect(log.delays == [30])
        client.free()
    }

    @Test func retryAfterAsAnHTTPDate() throws {
        let (client, log) = try retryClient(#"{"max_delay_ms":40,"initial_ms":20,"jitter":false}"#)
        func date(_ offset: Int) -> String {
            var t = time(nil) + offset
            var p = tm()
            gmtime_r(&t, &p)
            let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
            let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
            return "\(days[Int(p.tm_wday)]), \(two(p.tm_mday)) \(months[Int(p.tm_mon)]) \(p.tm_year + 1900) "
                + "\(two(p.tm_hour)):\(two(p.tm_min)):\(two(p.tm_sec)) GMT"
        }
        let future = date(3600)
        let past = date(-3600)
        for (d, expected) in [(future, 40), (past, 0)] {
            let key = uniqueKey()
            let r = try Request("GET", "/flaky")
            r.query("key", key)
            r.query("fails", "1")
            r.query("retry_after", d)
            #expect(client.sync(r).succeeded)
            #expect(log.delays.last == expected, "Retry-After: \(d)")
            #expect(log.reasons.last == "HTTP 503, Retry-After: \(d)")
        }
        client.free()
    }

    // MARK: deadline and cancel

    @Test(arguments: [Path.async, Path.sync])
    func aWaitThatWouldCrossTheDeadlineEndsTheRequestAtOnce(path: Path) throws {
        let (client, log) = try retryClient(
            #"{"backoff":"constant","initial_ms":60000,"max_delay_ms":60000,"jitter":false}"#, #""deadline_ms":20000"#,
            path.extra)
        let key = uniqueKey()
        let (o, calls) = path.send(client, try Request("GET", "/flaky?key=\(key)&fails=5&status=503"))
        #expect(calls == 1)
        let e = try #require(o?.error)
        #expect(e.isClient(NC_CLIENT_DEADLINE_EXCEEDED))
        #expect(e.attempts == 1)
        #expect(e.message.contains("deadline_ms, 20000 ms"))
        #expect(e.message.contains("HTTP 503"))   // the last attempt's error
        #expect((foundationJSON(e.json) as? [String: Any])?["timeout"] as? String == "deadline")
        #expect(hits(key) == 1)
        #expect(log.of("retry").isEmpty)
        client.free()
    }

    @Test func theDeadlineCutsAnAttemptShort() throws {
        let (client, _) = try retryClient(quickRetry)
        let r = try Request("GET", "/slow?ms=5000")
        #expect(nc_request_set_deadline_ms(r.handle, 300) == NC_OK)
        let o = client.sync(r)
        let e = try #require(o.error)
        #expect(e.isClient(NC_CLIENT_DEADLINE_EXCEEDED), "\(e)")
        #expect(e.message.contains("deadline_ms, 300 ms"))
        #expect(e.message.contains("timed out"))
        #expect(e.attempts == 1)
        #expect((foundationJSON(e.json) as? [String: Any])?["timeout"] as? String == "deadline")
        client.free()
    }

    @Test(arguments: [Path.async, Path.queue])
    func aCancelDuringTheWaitCompletesOnceWithCancelled(path: Path) throws {
        let (client, log) = try retryClient(#"{"backoff":"constant","initial_ms":600000}"#, path.extra)
        let key = uniqueKey()
        let c = Collector()
        let (rc, t) = client.send(try Request("GET", "/flaky?key=\(key)&fails=5&status=503"), c)
        let task = try #require(t)
        #expect(rc == NC_OK)
        // In queue mode the events, too, arrive inside dispatch.
        if path == .queue {
            #expect(
                waitUntil {
                    _ = nc_client_dispatch(client.handle)
                    return !log.of("retry").isEmpty
                })
        } else {
            #expect(log.waitFor("retry"))
        }
        nc_task_cancel(task)
        if path == .queue {
            _ = waitUntil {
                _ = nc_client_dispatch(client.handle)
                return c.calls > 0
            }
        }
        #expect(c.calls == 1)
        #expect(c.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
        #expect(c.outcome?.error?.attempts == 1)
        nc_task_cancel(task)
        if path == .queue { _ = nc_client_dispatch(client.handle) }
        #expect(hits(key) == 1)
        client.free()
        nc_task_free(task)
        #expect(c.calls == 1)
    }

    // MARK: no silent resend

    /// A POST whose kept-alive connection the server closes after reading it is sent
    /// once: libcurl would send it again by itself on a new connection.
    @Test(arguments: [Path.async, Path.sync])
    func aDroppedPOSTIsSentExactlyOnce(path: Path) throws {
        let (client, log) = try retryClient(nil, path.extra)
        for (method, body) in [("POST", #"{"order":1}"#), ("POST", nil), ("PATCH", #"{"a":1}"#)] {
            // A first request leaves a kept-alive connection for the next to reuse.
            #expect(path.send(client, try Request("GET", "/env/code/ok")).0?.succeeded == true)
            let key = uniqueKey()
            let r = try Request(method, "/drop?key=\(key)")
            if let body { r.params(body) }
            let (o, calls) = path.send(client, r)
            #expect(calls == 1)
            let e = try #require(o?.error, "\(method) \(body ?? "no body")")
            #expect(e.domain == NC_DOMAIN_TRANSPORT)
            #expect([52, 65].contains(e.code), "\(e)")
            #expect(e.attempts == 1)
            #expect(hits(key) == 1, "\(method) \(body ?? "no body") was sent \(hits(key)) times")
        }
        #expect(log.of("retry").isEmpty)
        client.free()
    }

    @Test func aDroppedPOSTIsResentOnlyByAPolicyThatAllowsIt() throws {
        let (client, log) = try retryClient(quickRetry)
        #expect(client.sync(try Request("GET", "/env/code/ok")).succeeded)
        let key = uniqueKey()
        let r = try Request("POST", "/drop?key=\(key)")
        r.params(#"{"order":1}"#)
        r.header("Idempotency-Key", "order-1")
        let o = client.sync(r)
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT && o.error?.attempts == 4)
        #expect(hits(key) == 4)   // each one an attempt the events show
        #expect(log.of("retry").count == 3)
        #expect(log.of("attempt_end").filter { $0["method"] as? String == "POST" }.count == 4)
        client.free()
    }
}

/// A retry handler as a Swift closure behind nc_retry_fn.
final class RetryBox: @unchecked Sendable {
    let body: (OpaquePointer?, OpaquePointer?, Int32) -> Int64
    init(_ body: @escaping (OpaquePointer?, OpaquePointer?, Int32) -> Int64) { self.body = body }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

let retryBoxFn: nc_retry_fn = { response, error, attempt, ud in
    guard let ud else { return -2 }
    return Unmanaged<RetryBox>.fromOpaque(ud).takeUnretainedValue().body(response, error, attempt)
}
