// timeout_ms is the total of a request: it bounds all redirect hops together
// (libnetcore follows redirects itself, one libcurl transfer per hop). No timing
// is asserted: a chain whose hops each fit the timeout but whose sum does not
// fails with TRANSPORT 28; the same chain succeeds without a timeout or with a
// generous one.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct RedirectTimeoutTests {
    let server = MockServer.shared
    /// Five redirects and the final answer, each after 300 ms: 1.8 s in all.
    let chain = "/redirect/slow-chain?n=5&ms=300"

    func expectTotalTimeout(_ o: Outcome, _ what: String) {
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT, "\(what): \(o)")
        #expect(o.error?.code == 28, "\(what): \(o)")   // CURLE_OPERATION_TIMEDOUT
        #expect(o.error?.attempts == 1, "\(what): \(o)")
        let message = o.error?.message ?? ""
        #expect(message.contains("timeout_ms"), "\(what): \(message)")
        #expect(message.contains("1000 ms"), "\(what): \(message)")
        #expect(message.contains("redirect"), "\(what): \(message)")
        #expect(o.response == nil, "\(what): \(o)")
    }

    @Test func aRequestTimeoutBoundsAllHopsOnTheLoop() throws {
        let client = try TestClient(config())
        let request = try Request("GET", chain)
        request.timeout(1000)
        let c = client.sendAndWait(request)
        expectTotalTimeout(try #require(c.outcome), "loop")
        let next = try client.sync("/env/code/ok")
        #expect(next.succeeded, "\(next)")
        client.free()
        #expect(c.calls == 1)
    }

    @Test func aRequestTimeoutBoundsAllHopsOnTheSyncPath() throws {
        let client = try TestClient(config())
        expectTotalTimeout(try client.sync(chain) { $0.timeout(1000) }, "sync")
        let next = try client.sync("/env/code/ok")
        #expect(next.succeeded, "\(next)")
    }

    @Test func theClientTimeoutBoundsAllHopsToo() throws {
        let client = try TestClient(config(base: server.baseURL, envelope: Envelope.a, #""timeout_ms":1000"#))
        let c = client.sendAndWait(try Request("GET", chain))
        expectTotalTimeout(try #require(c.outcome), "client timeout_ms")
        client.free()
        #expect(c.calls == 1)
    }

    @Test func theSameChainSucceedsWithoutATimeout() throws {
        let client = try TestClient(config())
        let o = try client.sync(chain) { $0.timeout(0) }
        #expect(o.succeeded, "\(o)")
        #expect(o.response?.dataJSON == #"{"redirected":true,"hops":5}"#)
    }

    @Test func theSameChainSucceedsWithAGenerousTimeout() throws {
        let client = try TestClient(config())
        let request = try Request("GET", chain)
        request.timeout(20_000)
        let c = client.sendAndWait(request)
        let o = try #require(c.outcome)
        #expect(o.succeeded, "\(o)")
        #expect(o.response?.dataJSON == #"{"redirected":true,"hops":5}"#)
        client.free()
        #expect(c.calls == 1)
    }
}
