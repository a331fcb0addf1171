import Foundation
import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The timeout model, what was negotiated and the advice, from Swift's async API
/// (`try await send`) against the loopback server — the same core as the C and
/// Python surfaces, in Swift's idiom (`NetError.timeout`, `Response.httpVersion`).
extension NetClient {
    /// `send` as a Result (the tests read the error's fields).
    fileprivate func sendResult(_ r: Request) async -> Result<Response, NetError> {
        do { return .success(try await send(r)) } catch { return .failure(error) }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}

@Suite struct RealServerSurfaceTests {
    let server = MockServer.shared

    func client(_ extra: String = "") throws -> NetClient {
        try NetClient(json: #"{"base_url":"\#(server.baseURL)"\#(extra)}"#)
    }

    @Test func theDefaultsAreInactivityNotATotal() throws {
        let c = Configuration()
        #expect(c.timeoutMs == 0 && c.idleTimeoutMs == 15_000 && c.connectTimeoutMs == 10_000)
    }

    @Test func aStallEndsAsIdleAndATrickleLives() async throws {
        let c = try client()
        defer { c.shutdown() }
        var stalled = try Request(method: "GET", target: "/stall?bytes=100&ms=6000")
        try stalled.setIdleTimeout(ms: 400)
        let e = try #require(await c.sendResult(stalled).failure)
        #expect(e.domain == .transport && e.code == 28, "\(e)")
        #expect(e.timeout == .idle, "\(e)")
        #expect(e.message.contains("after 100 of 101 bytes of the body"), "\(e.message)")
        var trickle = try Request(method: "GET", target: "/drip?chunks=8&ms=250&size=1")
        try trickle.setIdleTimeout(ms: 1000)
        let r = try await c.send(trickle)
        #expect(r.status == 200 && r.body.count == 8)
    }

    @Test func theResponseSaysWhichHTTPVersionAnswered() async throws {
        let c = try client()
        defer { c.shutdown() }
        let r = try await c.send(Request(method: "GET", target: "/echo"))
        #expect(r.httpVersion == .http1_1)
        #expect(r.httpVersion?.text == "HTTP/1.1")
        #expect(r.metrics.httpVersion == "HTTP/1.1")
    }

    @Test func aProxyThatIsDownIsNamed() async throws {
        let (port, fd) = refusingPort()
        defer { close(fd) }
        let c = try client(#","proxy":{"url":"http://127.0.0.1:\#(port)"}"#)
        defer { c.shutdown() }
        let e = try #require(await c.sendResult(Request(method: "GET", target: "/echo")).failure)
        #expect(e.domain == .transport && e.code == 7)
        #expect(e.message.contains("proxy 127.0.0.1:\(port)"), "\(e.message)")
    }
}
