// docs/contract.md#security-defaults, limits: response size (with and without
// Content-Length), header count and bytes, connections per host.
import CNetCore
import Foundation
import MockServerSupport
import Testing

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
        let client = try TestClient(
            config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_connections_per_host":1}"#))
        let collectors = (0..<6).map { _ in Collector() }
        for c in collectors { client.send(try Request("GET", "/slow?ms=20"), c, task: false) }
        for c in collectors { #expect(c.wait()) }
        client.free()
        #expect(collectors.allSatisfy { $0.calls == 1 && $0.outcome?.response?.dataJSON == #"{"slept_ms":20}"# })
    }
}
