// limits.max_header_count / max_header_bytes against scripted raw responses: an
// "HTTP/" line inside a header block and a flood of 1xx interim responses must
// neither reset the counts nor lose the final response's headers.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct HeaderLimitTests {
    let server = MockServer.shared

    func headerValue(_ o: Outcome, _ name: String) -> String? {
        o.response?.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    func expectHeadersTooLarge(_ o: Outcome, _ what: String) {
        #expect(o.error?.domain == NC_DOMAIN_CLIENT, "\(what): \(o)")
        #expect(o.error?.code == Int64(NC_CLIENT_HEADERS_TOO_LARGE), "\(what): \(o)")
        #expect(o.error?.attempts == 1, "\(what): \(o)")
        #expect(o.error?.message.contains("limits.max_header_count") == true, "\(what): \(o)")
        #expect(o.response == nil, "\(what): \(o)")
    }

    @Test func httpLinesInsideTheBlockCannotResetTheCount() throws {
        // 10,000 header lines, every 50th starting with "HTTP/": each stretch
        // between two of them is under the default 100 lines.
        let client = try TestClient(config())
        let c = client.sendAndWait(try Request("GET", "/raw/headers-http-lines?n=10000&every=50"))
        expectHeadersTooLarge(try #require(c.outcome), "loop")
        // The synchronous path, then the same client serves the next request.
        expectHeadersTooLarge(try client.sync("/raw/headers-http-lines?n=10000&every=50"), "sync")
        let next = try client.sync("/env/code/ok")
        #expect(next.succeeded, "\(next)")
        client.free()
        #expect(c.calls == 1)
    }

    @Test func httpLinesInsideTheBlockCountTowardsTheByteLimit() throws {
        let cfg = config(
            base: server.baseURL, envelope: Envelope.a,
            #""limits":{"max_header_count":100000,"max_header_bytes":4096}"#)
        let o = try fetch(cfg, "/raw/headers-http-lines?n=1000&every=50")
        #expect(o.error?.isClient(NC_CLIENT_HEADERS_TOO_LARGE) == true, "\(o)")
        #expect(o.error?.attempts == 1)
    }

    @Test func anHTTPLineInsideTheBlockIsAnOrdinaryHeaderAndKeepsTheOthers() throws {
        let o = try fetch(config(), "/raw/headers-http-lines?n=6&every=3")
        #expect(o.succeeded, "\(o)")
        #expect(o.response?.status == 200)
        #expect(o.response?.dataJSON == #"{"raw":true}"#)
        // The lines before the "HTTP/" ones are kept (they used to be dropped).
        #expect(headerValue(o, "X-Line-1") == "v")
        #expect(headerValue(o, "X-Line-2") == "v")
        #expect(headerValue(o, "X-Line-5") == "v")
        #expect(headerValue(o, "Content-Length") == "41")
        // 6 lines + Content-Type + Content-Length, the two "HTTP/" ones included.
        #expect(o.response?.headers.count == 8, "\(o.response?.headers ?? [])")
    }

    @Test func aFloodOfInterimResponsesCannotResetTheLimits() throws {
        let client = try TestClient(config())
        // 200 interim responses with one header line each: 200 lines in all.
        let c = client.sendAndWait(try Request("GET", "/raw/1xx-flood?n=200&headers=1"))
        expectHeadersTooLarge(try #require(c.outcome), "lines")
        // No header lines at all: each response after the first counts as a line.
        expectHeadersTooLarge(try client.sync("/raw/1xx-flood?n=300&headers=0"), "status lines")
        let next = try client.sync("/env/code/ok")
        #expect(next.succeeded, "\(next)")
        client.free()
        #expect(c.calls == 1)
    }

    @Test func interimResponsesCountTowardsBothLimitsTogether() throws {
        // 30 blocks of 3 lines: each alone is far below 50 lines, together not.
        let few = config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_header_count":50}"#)
        #expect(try fetch(few, "/raw/1xx-flood?n=30&headers=3").error?.isClient(NC_CLIENT_HEADERS_TOO_LARGE) == true)
        #expect(try fetch(few, "/raw/1xx-flood?n=3&headers=3").succeeded)
        // Bare interim responses (26 bytes each) against the byte limit.
        let small = config(
            base: server.baseURL, envelope: Envelope.a,
            #""limits":{"max_header_count":100000,"max_header_bytes":4096}"#)
        #expect(try fetch(small, "/raw/1xx-flood?n=500&headers=0").error?.isClient(NC_CLIENT_HEADERS_TOO_LARGE) == true)
        #expect(try fetch(small, "/raw/1xx-flood?n=5&headers=0").succeeded)
    }

    @Test func theFinalResponseHeadersAreKeptAfterInterimOnes() throws {
        let client = try TestClient(config())
        let c = client.sendAndWait(try Request("GET", "/raw/1xx-flood?n=2&headers=2"))
        let o = try #require(c.outcome)
        #expect(o.succeeded, "\(o)")
        #expect(o.response?.status == 200)
        #expect(o.response?.dataJSON == #"{"raw":true}"#)
        #expect(headerValue(o, "X-Final") == "yes")
        #expect(headerValue(o, "X-Final-Count") == "2")
        #expect(headerValue(o, "X-Progress-1") == nil)
        #expect(o.response?.headers.map(\.name) == ["X-Final", "Content-Type", "X-Final-Count", "Content-Length"])
        let next = try client.sync("/env/code/ok")
        #expect(next.succeeded, "\(next)")
        client.free()
        #expect(c.calls == 1)
    }
}
