import Glibc
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The core's client against the real loopback server.
@Suite struct ClientTransportTests {
    let server = MockServer.shared

    func client(_ extra: String = #""envelope":{}"#) throws -> NetClient {
        try NetClient(json: #"{"base_url":"\#(server.baseURL)",\#(extra)}"#)
    }

    func sync(_ c: NetClient, _ method: String, _ path: String) throws -> (Response?, NetError?) {
        try c.sendSync(try Request(method: method, target: path)).get()
    }

    @Test func syncSuccessCarriesDataAndHeaders() throws {
        let c = try client()
        defer { c.shutdown() }
        let (r, e) = try sync(c, "GET", "/env/code/ok")
        #expect(e == nil)
        let response = try #require(r)
        #expect(response.status == 200)
        #expect(response.data?.text == #"{"id":7,"name":"Ada"}"#)
        #expect(response.headers.value("content-type")?.hasPrefix("application/json") == true)
        #expect(response.url == server.url("/env/code/ok"))
    }

    @Test func connectionRefusedIsTransport7() throws {
        let c = try NetClient(json: #"{"base_url":"http://127.0.0.1:1"}"#)
        defer { c.shutdown() }
        let (r, e) = try sync(c, "GET", "/x")
        #expect(r == nil)
        #expect(e?.domain == .transport)
        #expect(e?.code == 7)
        #expect(e?.isRetryable == true)
        #expect(e?.message.contains("Check that the server is running") == true)
    }

    @Test func cancelEndsASlowRequestWithCancelled() throws {
        let c = try client()
        defer { c.shutdown() }
        let calls = Mutex<[NetError?]>([])
        let task = try #require(
            c.send(try Request(method: "GET", target: "/slow?ms=5000")) { _, e in
                calls.withLock { $0.append(e) }
            })
        task.cancel()
        // cancel() returns after the completion has run.
        let seen = calls.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first??.code == NetError.ClientCode.cancelled.rawValue)
        task.cancel()
        #expect(calls.withLock { $0.count } == 1)
    }

    @Test func shutdownCompletesEverythingOnce() throws {
        let c = try client()
        let count = Mutex(0)
        let shutdowns = Mutex(0)
        for _ in 0..<20 {
            _ = c.send(try Request(method: "GET", target: "/slow?ms=3000")) { _, e in
                count.withLock { $0 += 1 }
                if e?.code == NetError.ClientCode.shutdown.rawValue { shutdowns.withLock { $0 += 1 } }
            }
        }
        #expect(c.shutdown())
        #expect(count.withLock { $0 } == 20)
        #expect(shutdowns.withLock { $0 } == 20)
        #expect(c.send(try Request(method: "GET", target: "/x")) { _, _ in } == nil)
    }

    @Test func queueModeRunsCompletionsOnlyInDispatch() throws {
        let c = try client(#""callbacks":"queue""#)
        defer { c.shutdown() }
        #expect(c.fd >= 0)
        let done = Mutex(0)
        _ = c.send(try Request(method: "GET", target: "/env/code/ok")) { _, _ in done.withLock { $0 += 1 } }
        var spins = 0
        while done.withLock({ $0 }) == 0 && spins < 500 {
            #expect(c.dispatch() == .ok)
            usleep(2_000)
            spins += 1
        }
        #expect(done.withLock { $0 } == 1)
    }
}
