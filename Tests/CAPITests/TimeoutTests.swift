// Which time limit fired, through the C header: connect_timeout_ms, timeout_ms,
// idle_timeout_ms and deadline_ms each name themselves in the message and in
// nc_error_json's "timeout". The tests read what the error says, never the clock.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port whose listen queue is full, so a new connection is never
/// accepted (the kernel drops its SYN): a connect that hangs until the connect
/// timeout. Close the descriptors when done.
func stalledPort() -> (port: Int, fds: [Int32]) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) }
    }
    _ = listen(listener, 0)
    _ = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) }
    }
    var fds = [listener]
    // Fill the queue (backlog 0 holds one): these connections are never accepted.
    for _ in 0..<3 {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, len) }
        }
        fds.append(s)
    }
    usleep(100_000)
    return (Int(UInt16(bigEndian: addr.sin_port)), fds)
}

/// Runs a blocking call (a synchronous send that waits for a timeout) on a thread
/// of its own and awaits it, so that the test does not hold one of the few threads
/// of Swift's cooperative pool for seconds (other tests' tasks need them).
func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// nc_error_json's "timeout" (nil when it is null).
func timeoutField(_ e: ErrorInfo?) -> String? {
    (foundationJSON(e?.json) as? [String: Any])?["timeout"] as? String
}

@Suite struct TimeoutTests {
    @Test func aConnectTimeoutSaysConnect() async throws {
        let (port, fds) = stalledPort()
        defer { for fd in fds { close(fd) } }
        let client = try TestClient(#"{"connect_timeout_ms":300,"timeout_ms":20000}"#)
        let r0 = try Request("GET", "http://127.0.0.1:\(port)/x")
        let o = await blocking { client.sync(r0) }
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT && e.code == 28)
        #expect(timeoutField(e) == "connect", "\(e)")
        #expect(e.message.contains("connect_timeout_ms (300 ms)"))
        #expect(e.retryable == 1)
        client.free()
    }

    @Test func aRequestsOwnConnectTimeoutWins() async throws {
        let (port, fds) = stalledPort()
        defer { for fd in fds { close(fd) } }
        let client = try TestClient(#"{"connect_timeout_ms":60000,"timeout_ms":20000}"#)
        let r = try Request("GET", "http://127.0.0.1:\(port)/x")
        #expect(nc_request_set_connect_timeout_ms(r.handle, 200) == NC_OK)
        let e = try #require(await blocking { client.sync(r) }.error)
        #expect(timeoutField(e) == "connect")
        #expect(e.message.contains("connect_timeout_ms (200 ms)"))
        client.free()
    }

    /// GET `path` on a client with the "envelope" of Envelope.a and the timeout
    /// members `settings` fails with TRANSPORT 28 whose `"timeout"` field is `kind`
    /// and whose message contains `message`.
    private func expectTimeout(
        _ settings: String, _ path: String, kind: String, message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let client = try TestClient(config(envelope: Envelope.a, settings))
        defer { client.free() }
        let rq = try Request("GET", path)
        let e = try #require(await blocking { client.sync(rq) }.error, sourceLocation: sourceLocation)
        #expect(e.domain == NC_DOMAIN_TRANSPORT && e.code == 28, sourceLocation: sourceLocation)
        #expect(timeoutField(e) == kind, "\(e)", sourceLocation: sourceLocation)
        #expect(e.message.contains(message), "\(e.message)", sourceLocation: sourceLocation)
    }

    @Test func theTotalTimeoutSaysTotal() async throws {
        try await expectTimeout(
            #""timeout_ms":300"#, "/slow?ms=5000", kind: "total",
            message: "the total timeout_ms (300 ms) ran out")
    }

    @Test func aStalledBodySaysIdle() async throws {
        try await expectTimeout(
            #""timeout_ms":30000,"idle_timeout_ms":1000"#, "/stall?bytes=10&ms=30000", kind: "idle",
            message: "idle_timeout_ms (1000 ms")
    }

    @Test func anIdleLimitNotShorterThanTheTotalLeavesTheStallToTheTotal() async throws {
        // The total timeout comes first and says so, with how far the body got.
        try await expectTimeout(
            #""timeout_ms":800,"idle_timeout_ms":1000"#, "/stall?bytes=10&ms=30000", kind: "total",
            message: "the total timeout_ms (800 ms) ran out")
    }

    @Test func aRequestsOwnIdleTimeoutWins() async throws {
        let client = try TestClient(config(envelope: nil, #""timeout_ms":30000"#, #""idle_timeout_ms":0"#))
        let r = try Request("GET", "/slow?ms=30000")   // not a byte until then
        #expect(nc_request_set_idle_timeout_ms(r.handle, 1500) == NC_OK)
        let e = try #require(await blocking { client.sync(r) }.error)
        #expect(timeoutField(e) == "idle", "\(e)")
        #expect(e.message.contains("idle_timeout_ms (1500 ms"))
        client.free()
    }

    @Test func otherErrorsHaveNoTimeout() async throws {
        let client = try TestClient(config(envelope: Envelope.a))
        let rq = try Request("GET", "/status/503")
        let e = try #require(await blocking { client.sync(rq) }.error)
        #expect(e.json?.contains(#""timeout":null"#) == true)
        client.free()
    }

    @Test func aDeadlineWithoutRetryBoundsTheOneAttempt() async throws {
        let client = try TestClient(config(envelope: Envelope.a, #""timeout_ms":20000"#, #""deadline_ms":300"#))
        let rq = try Request("GET", "/slow?ms=5000")
        let e = try #require(await blocking { client.sync(rq) }.error)
        #expect(e.isClient(NC_CLIENT_DEADLINE_EXCEEDED), "\(e)")
        #expect(timeoutField(e) == "deadline")
        // 0 on the request: no deadline, the total timeout (300 ms) fires instead.
        let r = try Request("GET", "/slow?ms=5000")
        #expect(nc_request_set_deadline_ms(r.handle, 0) == NC_OK)
        #expect(nc_request_set_timeout_ms(r.handle, 300) == NC_OK)
        let e2 = try #require(await blocking { client.sync(r) }.error)
        #expect(timeoutField(e2) == "total", "\(e2)")
        client.free()
    }

    /// A request's own timeout_ms may be any Int64: the largest is no limit in effect.
    @Test func theLargestRequestTimeoutIsNoLimit() async throws {
        let client = try TestClient(config(envelope: Envelope.a))
        defer { client.free() }
        for mode in ["loop", "sync"] {
            let r = try Request("GET", "/slow?ms=300")
            #expect(nc_request_set_timeout_ms(r.handle, Int64.max) == NC_OK)
            let o: Outcome
            if mode == "sync" {
                o = await blocking { client.sync(r) }
            } else {
                let c = Collector()
                #expect(nc_client_send(client.handle, r.handle, collectFn, c.userdata, nil) == NC_OK)
                #expect(c.wait(timeout: 10))
                o = try #require(c.outcome)
            }
            #expect(o.succeeded, "\(mode): \(o)")
        }
    }

    /// A request waiting for one of its host's connections (all busy: libcurl's
    /// CURLMOPT_MAX_HOST_CONNECTIONS queue) still ends at its deadline and at its
    /// total timeout, while the request holding the connection goes on: libcurl
    /// 7.88 alone let it wait until the connection was free (IdleWatch.swift).
    @Test func aRequestWaitingForABusyHostEndsAtItsDeadlineAndTotalTimeout() async throws {
        let client = try TestClient(
            config(envelope: Envelope.a, #""coalesce":false"#, #""limits":{"max_connections_per_host":1}"#))
        defer { client.free() }
        let holder = Collector()
        let busy = try Request("GET", "/slow?ms=6000")   // holds the only connection for 6 s
        #expect(nc_client_send(client.handle, busy.handle, collectFn, holder.userdata, nil) == NC_OK)
        usleep(300_000)   // its connection is made (loopback) and its request sent

        let byDeadline = Collector()
        let r1 = try Request("GET", "/echo?waits=deadline")
        #expect(nc_request_set_deadline_ms(r1.handle, 400) == NC_OK)
        #expect(nc_client_send(client.handle, r1.handle, collectFn, byDeadline.userdata, nil) == NC_OK)
        let byTotal = Collector()
        let r2 = try Request("GET", "/echo?waits=total")
        #expect(nc_request_set_timeout_ms(r2.handle, 400) == NC_OK)
        #expect(nc_client_send(client.handle, r2.handle, collectFn, byTotal.userdata, nil) == NC_OK)

        #expect(byDeadline.wait(timeout: 5) && byTotal.wait(timeout: 5))
        // Both ended while the request ahead of them still held the connection.
        #expect(holder.calls == 0)
        let e1 = try #require(byDeadline.outcome?.error)
        #expect(e1.isClient(NC_CLIENT_DEADLINE_EXCEEDED), "\(e1)")
        #expect(timeoutField(e1) == "deadline")
        let e2 = try #require(byTotal.outcome?.error)
        #expect(e2.domain == NC_DOMAIN_TRANSPORT && e2.code == 28, "\(e2)")
        #expect(timeoutField(e2) == "total")
        #expect(
            e2.message.contains("the total timeout_ms (400 ms) ran out while it waited for a connection"),
            "\(e2.message)")
        #expect(byDeadline.calls == 1 && byTotal.calls == 1)
        #expect(holder.wait(timeout: 15) && holder.outcome?.succeeded == true)
    }
}
