// Messages that name what happened and what to do, against scripted
// raw-socket routes of the mock server and its plain-HTTP port; docs/errors.md
// lists every code with its typical cause and fix.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct ErrorAdviceTests {
    let server = MockServer.shared

    @Test func aResponseThatIsNotHTTPSaysSo() throws {
        let client = try TestClient(config())
        let o = try client.sync("/raw/garbage-status")
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT && o.error?.code == 1, "\(o)")   // CURLE_UNSUPPORTED_PROTOCOL
        #expect(o.error?.message.contains("not HTTP") == true, "\(o)")
        #expect(o.error?.message.contains("Only http and https are allowed") == false, "\(o)")
        #expect(o.error?.attempts == 1)
        // A redirect to another scheme keeps its own advice.
        let ftp = try client.sync("/redirect") { $0.query("to", "ftp://127.0.0.1/x") }
        #expect(ftp.error?.code == 1 && ftp.error?.message.contains("Only http and https") == true, "\(ftp)")
        #expect(try client.sync("/env/code/ok").succeeded, "the same client serves the next request")
    }

    @Test func httpsToAPlainHTTPPortSaysTheServerDidNotSpeakTLS() throws {
        let url = "https://127.0.0.1:\(server.port)/api/env/code/ok"
        let o = try fetch(config(base: nil), url)
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT && o.error?.code == 35, "\(o)")   // CURLE_SSL_CONNECT_ERROR
        #expect(o.error?.message.contains("did not answer in TLS") == true, "\(o)")
        #expect(o.error?.message.contains("Use http://") == true, "\(o)")
        #expect(o.error?.message.contains("certificate") == false, "not a certificate problem: \(o)")
    }

    @Test func aHeaderLineOfOneMegabyteIsHeadersTooLarge() throws {
        let client = try TestClient(config())
        let c = client.sendAndWait(try Request("GET", "/raw/huge-header-line?bytes=1048576"))
        let o = try #require(c.outcome)
        #expect(o.error?.isClient(NC_CLIENT_HEADERS_TOO_LARGE) == true, "\(o)")
        #expect(o.error?.message.contains("header line is longer") == true, "\(o)")
        #expect(o.response == nil)
        // A line within libcurl's 100 KiB but over max_header_bytes: the sink's limit.
        let over = try client.sync("/raw/huge-header-line?bytes=70000")
        #expect(over.error?.isClient(NC_CLIENT_HEADERS_TOO_LARGE) == true, "\(over)")
        #expect(over.error?.message.contains("limits.max_header_bytes") == true, "\(over)")
        #expect(try client.sync("/env/code/ok").succeeded, "the same client serves the next request")
        client.free()
        #expect(c.calls == 1)
    }
}
