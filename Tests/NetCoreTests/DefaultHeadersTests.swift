import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// What the Swift API sends by default, against the loopback server's /echo (which
/// joins a repeated header with ", "): `HeaderFields.defaultUserAgent` unless the
/// configuration or the request sets a User-Agent, every encoding libcurl decodes in
/// Accept-Encoding, and a `JSONValue`'s nulls as written in a JSON body.
@Suite struct DefaultHeadersTests {
    let server = MockServer.shared

    func client(_ configure: (inout Configuration) -> Void = { _ in }) throws -> NetClient {
        var config = Configuration(baseURL: server.baseURL, envelope: EnvelopeSchema())
        configure(&config)
        return try NetClient(configuration: config)
    }

    /// What /echo saw (the envelope's data).
    struct Echo: Decodable {
        let headers: [String: String]
        let body: String
    }

    func echoed(_ c: NetClient, _ request: Request) async throws -> Echo {
        try await c.decode(Echo.self, from: request)
    }

    func header(_ echo: Echo, _ name: String) -> String? { echo.headers[name] }

    @Test func userAgentIsTheDefaultUnlessConfiguredOrSet() async throws {
        let plain = try client()
        defer { plain.shutdown() }
        let echo = try await echoed(plain, Request(method: "GET", target: "/echo"))
        #expect(header(echo, "user-agent") == HeaderFields.defaultUserAgent)
        #expect(HeaderFields.defaultUserAgent.hasPrefix("netcore/\(NetCoreVersion.string) libcurl/"))
        #expect(header(echo, "accept-encoding") == DefaultHeaders.acceptEncoding)

        let named = try client { $0.headers.set("user-agent", "shop/2.3 " + HeaderFields.defaultUserAgent) }
        defer { named.shutdown() }
        let own = try await echoed(named, Request(method: "GET", target: "/echo"))
        #expect(header(own, "user-agent") == "shop/2.3 " + HeaderFields.defaultUserAgent)
        var request = try Request(method: "GET", target: "/echo")
        try request.setHeader("USER-AGENT", "req/1")
        #expect(header(try await echoed(named, request), "user-agent") == "req/1")
    }

    @Test func jsonParamsSendTheirNullsAsWritten() async throws {
        let c = try client()
        defer { c.shutdown() }
        var request = try Request(method: "PATCH", target: "/echo")
        request.encoding = .json
        let text = #"{"nickname":null,"profile":{"address":{"city":null}},"tags":[null]}"#
        try request.setParams(try JSONValue.parse(text).get())
        #expect(try await echoed(c, request).body == text)
    }
}
