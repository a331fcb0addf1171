import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// Retry and time limits from Swift: `RetryPolicy` values on the configuration, the
/// client and the request, `NetClient.retryHandler`, `NetError.timeout`, through
/// `try await send` against the loopback server.
@Suite struct RetrySurfaceTests {
    let server = MockServer.shared

    var quick: RetryPolicy {
        var p = RetryPolicy()
        p.maxAttempts = 3
        p.backoff = .constant
        p.initialMs = 5
        p.jitter = false
        return p
    }

    func client(_ retry: RetryPolicy?) throws -> (NetClient, RecordingMonitor) {
        var config = Configuration(baseURL: server.baseURL, envelope: EnvelopeSchema())
        config.retry = retry
        let c = try NetClient(configuration: config)
        let monitor = RecordingMonitor()
        c.eventMonitor = monitor
        return (c, monitor)
    }

    func key() -> String { "sw\(UInt64.random(in: 0..<UInt64.max))" }

    func hits(_ key: String) throws -> Int {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let (r, _) = try c.sendSync(try Request(method: "GET", target: "/_hits?key=\(key)")).get()
        let text = try #require(r?.body.text)
        let digits = try #require(text.split(separator: "\"hits\":").last?.prefix { $0.isNumber })
        return try #require(Int(digits))
    }

    @Test func aConfiguredPolicyRetriesAnAsyncSend() async throws {
        let (c, monitor) = try client(quick)
        defer { c.shutdown() }
        let k = key()
        let r = try await c.send(Request(method: "GET", target: "/flaky?key=\(k)&fails=2&status=500"))
        #expect(r.status == 200)
        #expect(r.metrics.attempts == 3)
        #expect(try hits(k) == 3)
        let retries = monitor.events.withLock { $0.filter { $0.kind == .retry } }
        #expect(retries.map(\.delayMs) == [5, 5])
        #expect(retries.map(\.reason) == ["HTTP 500", "HTTP 500"])
    }

    @Test func theClientsPolicyChangesForLaterRequestsAndARequestOverrides() async throws {
        let (c, _) = try client(nil)
        defer { c.shutdown() }
        #expect(c.retryPolicy == nil)
        let k1 = key()
        do {
            _ = try await c.send(Request(method: "GET", target: "/flaky?key=\(k1)&fails=1"))
            Issue.record("no retry configured: expected the 503")
        } catch {
            #expect(error.code == 503 && error.attempts == 1)
        }
        c.retryPolicy = quick
        let k2 = key()
        _ = try await c.send(Request(method: "GET", target: "/flaky?key=\(k2)&fails=1"))
        #expect(try hits(k2) == 2)
        var once = try Request(method: "GET", target: "/flaky?key=\(key())&fails=1")
        once.retry = .disabled
        await #expect(throws: NetError.self) { try await c.send(once) }
        var more = try Request(method: "POST", target: "/flaky?key=\(key())&fails=3")
        var patch = RetryPolicy.Patch()
        patch.maxAttempts = 4
        patch.methods = ["POST"]
        more.retry = .merge(patch)
        let r = try await c.send(more)
        #expect(r.metrics.attempts == 4)
    }

    @Test func theHandlerRetriesAnAPIError() async throws {
        let (c, _) = try client(nil)
        defer { c.shutdown() }
        let seen = Mutex<[Int32]>([])
        c.retryHandler = { _, error, attempt in
            seen.withLock { $0.append(attempt) }
            return error.domain == .api ? .retry(afterMs: 1) : .useDefault
        }
        let k = key()
        do {
            _ = try await c.send(Request(method: "GET", target: "/env/code/fail?key=\(k)"))
            Issue.record("expected the API error")
        } catch {
            #expect(error.domain == .api && error.attempts == 3)
        }
        #expect(seen.withLock { $0 } == [1, 2])
        #expect(try hits(k) == 3)
        c.retryHandler = nil
        #expect(c.retryHandler == nil)
    }

    @Test func timeoutsAndTheDeadlineSayWhichFired() async throws {
        let (c, _) = try client(quick)
        defer { c.shutdown() }
        var total = try Request(method: "GET", target: "/slow?ms=5000")
        try total.setTimeout(ms: 200)
        try total.setDeadline(ms: 0)
        do {
            _ = try await c.send(total)
        } catch {
            #expect(error.domain == .transport && error.code == 28 && error.timeout == .total)
        }
        var late = try Request(method: "GET", target: "/slow?ms=5000")
        try late.setDeadline(ms: 250)
        do {
            _ = try await c.send(late)
        } catch {
            #expect(error.domain == .client && error.code == NetError.ClientCode.deadlineExceeded.rawValue)
            #expect(error.timeout == .deadline)
        }
        #expect(late.deadlineMs == 250)
        #expect(throws: NetError.self) { try late.setIdleTimeout(ms: -1) }
        #expect(throws: NetError.self) { try late.setConnectTimeout(ms: Int64(Int32.max) + 1) }
    }

    @Test func aBadSwiftPolicyIsRefusedByTheClient() throws {
        var config = Configuration(baseURL: server.baseURL)
        var p = RetryPolicy()
        p.statuses = [42]
        config.retry = p
        #expect(throws: NetError.self) { try NetClient(configuration: config) }
    }
}
