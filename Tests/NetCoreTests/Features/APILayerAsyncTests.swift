import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The API layer from Swift's async surface against the loopback server: endpoints
/// called with `try await client.call(…)`, their errors, a `RequestAdapter` run
/// before each attempt, an `EventMonitor`, and a response's URL and redirect history.
@Suite struct APILayerAsyncTests {
    let server = MockServer.shared

    func client(_ extra: String = "") throws -> NetClient {
        try NetClient(
            json: #"{"base_url":"\#(server.baseURL)","envelope":{}"# + extra
                + #","endpoints":{"user.get":{"path":"/users/{id}"},"echo":{"method":"POST","path":"/echo","encoding":"json"}}}"#
        )
    }

    func error(_ body: () async throws(NetError) -> Response) async -> NetError? {
        do throws(NetError) {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test func anEndpointIsCalledWithItsParams() async throws {
        let c = try client()
        defer { c.shutdown() }
        let r = try await c.call("user.get", params: JSONValue.parse(#"{"id":7}"#).get())
        #expect(r.status == 200)
        #expect(r.data?.text.contains("Ada") == true)
        #expect(r.url.hasSuffix("/users/7"))
        // The rest of the params go where the endpoint says: a JSON body here.
        let echo = try await c.call("echo", params: JSONValue.parse(#"{"name":"x y"}"#).get())
        #expect(echo.data?.text.contains("POST") == true)
        #expect(echo.data?.text.contains("x y") == true)
    }

    @Test func unknownEndpointsAndMissingPlaceholdersAreInvalidRequests() async throws {
        let c = try client()
        defer { c.shutdown() }
        let unknown = await error { () async throws(NetError) -> Response in try await c.call("user.nope") }
        #expect(unknown?.domain == .client && unknown?.code == NetError.ClientCode.invalidRequest.rawValue)
        #expect(unknown?.message.contains("user.nope") == true)
        let missing = await error { () async throws(NetError) -> Response in try await c.call("user.get") }
        #expect(missing?.domain == .client && missing?.code == NetError.ClientCode.invalidRequest.rawValue)
        #expect(missing?.message.contains("id") == true)
        // A definition at run time is used by the next call.
        try c.defineEndpoint("user.me", json: #"{"path":"/users/7"}"#)
        #expect(try await c.call("user.me").status == 200)
    }

    final class Stamp: RequestAdapter, @unchecked Sendable {
        let attempts = Locked<[Int32]>([])
        func adapt(_ request: inout OutgoingRequest) throws(NetError) {
            attempts.mutate { $0.append(request.attempt) }
            try request.setHeader("X-Stamp", "s\(request.attempt)")
        }
    }

    final class Monitor: EventMonitor, @unchecked Sendable {
        let kinds = Locked<[RequestEvent.Kind]>([])
        func requestDidStart(_ event: RequestEvent) { kinds.mutate { $0.append(event.kind) } }
        func attemptDidEnd(_ event: RequestEvent) { kinds.mutate { $0.append(event.kind) } }
        func requestDidComplete(_ event: RequestEvent) { kinds.mutate { $0.append(event.kind) } }
    }

    @Test func adaptersAndMonitorsSeeEveryAsyncRequest() async throws {
        let c = try client()
        defer { c.shutdown() }
        let stamp = Stamp()
        c.addAdapter(stamp)
        let monitor = Monitor()
        c.eventMonitor = monitor
        let r = try await c.send(Request(method: "GET", target: "/echo"))
        #expect(r.data?.text.contains("s1") == true)
        #expect(stamp.attempts.value == [1])
        #expect(monitor.kinds.value == [.requestStart, .attemptEnd, .requestEnd])
        #expect(r.metrics.attemptLog.count == 1 && r.metrics.attempts == 1)
    }

    @Test func aResponseTellsItsURLAndRedirectHistory() async throws {
        let c = try client()
        defer { c.shutdown() }
        let r = try await c.send(Request(method: "GET", target: "/redirect/chain?n=2"))
        #expect(r.url.hasSuffix("/redirect/chain?n=0"))
        #expect(r.metrics.redirects == 2)
        #expect(r.metrics.history.map(\.status) == [302, 302])
        #expect(r.metrics.history.first?.url.hasSuffix("/redirect/chain?n=2") == true)
        let direct = try await c.send(Request(method: "GET", target: "/echo"))
        #expect(direct.metrics.history.isEmpty)
    }
}
