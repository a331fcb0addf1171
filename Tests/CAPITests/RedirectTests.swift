// docs/contract.md#security-defaults, redirects: following them, their count and
// protocols, the method and body a redirect keeps, and the credential headers dropped
// cross-origin.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct RedirectTests {
    let server = MockServer.shared

    @Test func redirectChainIsFollowed() throws {
        let o = try fetch(config(), "/redirect/chain?n=3")
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.status == 200)
        #expect(o.response?.dataJSON == #"{"redirected":true}"#)
    }

    @Test func redirectFromAnAPIPrefixKeepsIt() throws {
        let o = try fetch(config(base: server.baseURL + "/api"), "/redirect/chain?n=2")
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.dataJSON == #"{"redirected":true}"#)
    }

    @Test func redirectLoopIsTransport47() throws {
        let o = try fetch(config(), "/redirect/loop")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT)
        #expect(e.code == 47)
        #expect(e.codeStr == "47")
        #expect(e.message.contains("redirect"), "\(e.message)")
        #expect(o.response == nil)
    }

    @Test func redirectLoopStopsAfterTenRedirects() throws {
        let server = try privateServer()
        defer { server.stop() }
        let o = try fetch(config(base: server.baseURL), "/redirect/loop")
        #expect(o.error?.code == 47)
        // The first request plus at most 10 followed redirects.
        #expect(serverStats(server).paths["/redirect/loop"] == 11)
    }

    @Test func maxRedirectsLimitsTheChain() throws {
        let limited = config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_redirects":1}"#)
        let tooMany = try fetch(limited, "/redirect/chain?n=3")
        #expect(tooMany.error?.domain == NC_DOMAIN_TRANSPORT)
        #expect(tooMany.error?.code == 47)
        let enough = try fetch(limited, "/redirect/chain?n=1")
        #expect(enough.error == nil, "\(enough)")
        #expect(enough.response?.dataJSON == #"{"redirected":true}"#)
    }

    @Test func redirectToANonHTTPSchemeIsRefused() throws {
        for target in ["ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://127.0.0.1:\(server.port)/x"] {
            let o = try fetch(config(), "/redirect") { $0.query("to", target) }
            let e = try #require(o.error, "\(target)")
            #expect(e.domain == NC_DOMAIN_TRANSPORT, "\(target)")
            #expect(e.code == 1, "\(target): \(e)")   // CURLE_UNSUPPORTED_PROTOCOL
        }
    }

    @Test func credentialsAreDroppedOnACrossOriginRedirect() throws {
        let client = try TestClient(config())
        let crossHost = try client.sync("/redirect") {
            $0.query("to", "http://localhost:\(server.port)/cookie")
            $0.header("Authorization", "Bearer secret-token")
            $0.header("Cookie", "session=abc")
        }
        #expect(crossHost.error == nil, "\(crossHost)")
        let data = try #require(crossHost.response?.object)
        #expect(
            data["authorization"] is NSNull, "Authorization leaked to another host: \(data["authorization"] ?? "nil")")
        #expect(data["cookie"] is NSNull, "Cookie leaked to another host: \(data["cookie"] ?? "nil")")
    }

    @Test func credentialsAreDroppedOnARedirectToAnotherPort() throws {
        let other = try privateServer()
        defer { other.stop() }
        let o = try fetch(config(), "/redirect") {
            $0.query("to", other.url("/echo"))
            $0.header("Authorization", "Bearer secret-token")
            $0.header("Cookie", "session=abc")
            $0.header("Proxy-Authorization", "Basic cHJveHk6cGFzcw==")
            $0.header("X-Harmless", "kept")
        }
        #expect(o.error == nil, "\(o)")
        let headers = try #require(o.echo?["headers"] as? [String: String])
        #expect(headers["host"] == "127.0.0.1:\(other.port)")
        #expect(headers["authorization"] == nil)
        #expect(headers["cookie"] == nil)
        #expect(headers["proxy-authorization"] == nil, "Proxy-Authorization leaked to another origin")
        #expect(headers["x-harmless"] == "kept")
    }

    @Test func configuredCredentialHeadersAreDroppedCrossOriginOnly() throws {
        let cfg = config(#""credential_headers":["X-Api-Key"]"#)
        let cross = try fetch(cfg, "/redirect") {
            $0.query("to", "http://localhost:\(server.port)/echo")
            $0.header("x-api-key", "k1")
            $0.header("X-Other", "o")
        }
        let crossHeaders = try #require(cross.echo?["headers"] as? [String: String], "\(cross)")
        #expect(crossHeaders["x-api-key"] == nil)
        #expect(crossHeaders["x-other"] == "o")
        let same = try fetch(cfg, "/redirect") {
            $0.query("to", "/echo")
            $0.header("X-Api-Key", "k1")
        }
        #expect((same.echo?["headers"] as? [String: String])?["x-api-key"] == "k1")
    }

    @Test(arguments: [
        (303, "PUT", "GET", ""), (302, "POST", "GET", ""), (301, "POST", "GET", ""),
        (307, "POST", "POST", "a=1"), (308, "PUT", "PUT", "a=1"), (302, "PUT", "PUT", "a=1")
    ])
    func redirectMethodRules(status: Int, method: String, expectedMethod: String, expectedBody: String) throws {
        let o = try fetch(config(), "/redirect", method: method) {
            $0.query("to", "/echo")
            $0.query("status", String(status))
            $0.params(#"{"a":1}"#)
        }
        #expect(o.error == nil, "\(o)")
        #expect(o.echo?["method"] as? String == expectedMethod)
        #expect(o.echo?["body"] as? String == expectedBody)
    }

    @Test func credentialsAreKeptOnASameOriginRedirect() throws {
        let o = try fetch(config(), "/redirect") {
            $0.query("to", "/cookie")
            $0.header("Authorization", "Bearer secret-token")
            $0.header("Cookie", "session=abc")
        }
        #expect(o.error == nil, "\(o)")
        let data = try #require(o.response?.object)
        #expect(data["authorization"] as? String == "Bearer secret-token")
        #expect(data["cookie"] as? String == "session=abc")
    }

    @Test func defaultAuthorizationHeaderIsAlsoDroppedCrossOrigin() throws {
        let client = try TestClient(config())
        #expect(nc_client_set_header(client.handle, "Authorization", "Bearer default") == NC_OK)
        let same = try client.sync("/redirect") { $0.query("to", "/cookie") }
        #expect(same.response?.object?["authorization"] as? String == "Bearer default")
        let cross = try client.sync("/redirect") { $0.query("to", "http://localhost:\(server.port)/cookie") }
        #expect(cross.error == nil, "\(cross)")
        #expect(cross.response?.object?["authorization"] is NSNull)
    }

    @Test func redirectWithoutFollowingIsASuccessForAnEmpty302() throws {
        let o = try fetch(
            config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_redirects":0}"#), "/redirect/chain?n=1")
        // Not followed: the 302 itself is the final response; an empty body is a
        // success with data null (as rule 2), not a PARSE error (since 0.3).
        #expect(o.response?.status == 302)
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.dataJSON == "null")
    }
}
