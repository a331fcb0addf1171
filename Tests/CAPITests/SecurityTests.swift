// DESIGN.md §5: redirects (count, protocols, credentials), size and header limits,
// compressed bodies.
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
        #expect(data["authorization"] is NSNull, "Authorization leaked to another host: \(data["authorization"] ?? "nil")")
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

    @Test(arguments: [(303, "PUT", "GET", ""), (302, "POST", "GET", ""), (301, "POST", "GET", ""),
                      (307, "POST", "POST", "a=1"), (308, "PUT", "PUT", "a=1"), (302, "PUT", "PUT", "a=1")])
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

    @Test func redirectWithoutFollowingIsAParseErrorForAnEmpty302() throws {
        let o = try fetch(config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_redirects":0}"#), "/redirect/chain?n=1")
        // Not followed: the 302 itself is the final response (empty body, status < 400).
        #expect(o.response?.status == 302)
        #expect(o.error?.domain == NC_DOMAIN_PARSE)
    }
}

@Suite struct LimitTests {
    let server = MockServer.shared

    @Test func responseLargerThanTheLimitIsStopped() throws {
        let limited = config(base: server.baseURL, envelope: "null", #""limits":{"max_response_bytes":1000}"#)
        let o = try fetch(limited, "/large?bytes=100000")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_CLIENT)
        #expect(e.code == Int64(NC_CLIENT_RESPONSE_TOO_LARGE))
        #expect(e.message.contains("max_response_bytes"), "\(e.message)")
        #expect(o.response == nil)
        // Exactly at the limit is fine.
        let atLimit = try fetch(limited, "/large?bytes=1000")
        #expect(atLimit.error == nil, "\(atLimit)")
        #expect(atLimit.response?.body.count == 1000)
        #expect(atLimit.response?.body.prefix(16) == Array("0123456789abcdef".utf8)[...])
        // One byte over is not.
        let over = try fetch(limited, "/large?bytes=1001")
        #expect(over.error?.isClient(NC_CLIENT_RESPONSE_TOO_LARGE) == true)
    }

    @Test func streamedResponseWithoutContentLengthIsCountedToo() throws {
        let limited = config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_response_bytes":50}"#)
        // Transfer-Encoding: chunked, no Content-Length, 106 bytes in 6 pieces.
        let o = try fetch(limited, "/chunked?chunks=6")
        #expect(o.error?.isClient(NC_CLIENT_RESPONSE_TOO_LARGE) == true, "\(o)")
        let fine = try fetch(config(), "/chunked?chunks=6")
        #expect(fine.error == nil, "\(fine)")
    }

    @Test func tooManyResponseHeaders() throws {
        let o = try fetch(config(), "/headers/many?n=500")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_CLIENT)
        #expect(e.code == Int64(NC_CLIENT_HEADERS_TOO_LARGE))
        #expect(o.response == nil)
        let fine = try fetch(config(), "/headers/many?n=20")
        #expect(fine.error == nil)
        #expect(fine.response?.dataJSON == #"{"headers":20}"#)
        #expect(fine.response?.headers.filter { $0.name.hasPrefix("X-H-") }.count == 20)
    }

    @Test func headerCountAndByteLimitsAreConfigurable() throws {
        let fewLines = config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_header_count":8}"#)
        #expect(try fetch(fewLines, "/headers/many?n=10").error?.isClient(NC_CLIENT_HEADERS_TOO_LARGE) == true)
        #expect(try fetch(fewLines, "/headers/many?n=2").error == nil)
        let fewBytes = config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_header_bytes":300}"#)
        #expect(try fetch(fewBytes, "/headers/many?n=30").error?.isClient(NC_CLIENT_HEADERS_TOO_LARGE) == true)
        #expect(try fetch(fewBytes, "/headers/many?n=0").error == nil)
    }

    @Test func oneConnectionPerHostStillCompletesEveryRequest() throws {
        let client = try TestClient(config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_connections_per_host":1}"#))
        let collectors = (0..<6).map { _ in Collector() }
        for c in collectors { client.send(try Request("GET", "/slow?ms=20"), c, task: false) }
        for c in collectors { #expect(c.wait()) }
        client.free()
        #expect(collectors.allSatisfy { $0.calls == 1 && $0.outcome?.response?.dataJSON == #"{"slept_ms":20}"# })
    }

    @Test func compressionIsAskedForByDefaultAndOffOnRequest() throws {
        let asked = try fetch(config(), "/echo")
        #expect((asked.echo?["headers"] as? [String: Any])?["accept-encoding"] as? String == "gzip, deflate")
        let off = try fetch(config(base: server.baseURL, envelope: Envelope.a, #""compression":false"#), "/echo")
        #expect(off.error == nil, "\(off)")
        #expect((off.echo?["headers"] as? [String: Any])?["accept-encoding"] == nil)
        let plain = try fetch(config(base: server.baseURL, envelope: Envelope.a, #""compression":false"#), "/gzip")
        #expect(plain.response?.object?["compressed"] as? Bool == false)
        // A request's own header wins, and is sent once.
        let own = try fetch(config(), "/echo") { #expect($0.header("Accept-Encoding", "identity") == NC_OK) }
        #expect((own.echo?["headers"] as? [String: Any])?["accept-encoding"] as? String == "identity")
        // Asking by header with compression off still gets the body decompressed.
        let byHeader = try fetch(config(base: server.baseURL, envelope: Envelope.a, #""compression":false"#), "/gzip") {
            #expect($0.header("Accept-Encoding", "gzip") == NC_OK)
        }
        #expect(byHeader.response?.object?["compressed"] as? Bool == true)
        #expect(byHeader.response?.body.first == UInt8(ascii: "{"))
    }

    @Test func gzipBodyIsDecompressed() throws {
        let o = try fetch(config(), "/gzip")
        #expect(o.error == nil, "\(o)")
        let r = try #require(o.response)
        #expect(r.object?["compressed"] as? Bool == true)
        #expect(r.object?["pad"] as? String == String(repeating: "a", count: 2000))
        #expect(r.headers.first { $0.name.lowercased() == "content-encoding" }?.value == "gzip")
        #expect(r.body.first == UInt8(ascii: "{"))
        #expect(r.body.count > 2000)
    }
}
