// Advice that is true about what failed: a proxy that is down or refuses the
// tunnel, HTTP/2 assumed against an HTTP/1 server, a 404 on an absolute URL, the
// redirect limit — through the header against the mock server (docs/errors.md).
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct AdviceContextTests {
    let server = MockServer.shared

    @Test func aProxyThatIsDownIsNamedNotTheBaseURL() throws {
        let (port, fd) = refusingPort()
        defer { close(fd) }
        let o = try fetch(#"{"proxy":{"url":"http://127.0.0.1:\#(port)"}}"#, server.url("/echo"))
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT && e.code == 7, "\(e)")
        #expect(e.message.contains("proxy 127.0.0.1:\(port)"), "\(e.message)")
        #expect(!e.message.contains("base URL"), "\(e.message)")
        #expect(e.retryable == 1, "a proxy restarting may be back")
    }

    @Test func aTunnelTheProxyRefusesIsNotRetryable() throws {
        // The mock server as the proxy: it answers CONNECT with an error status.
        let o = try fetch(#"{"proxy":{"url":"\#(server.baseURL)"}}"#, "https://127.0.0.1:1/x")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT, "\(e)")
        #expect(e.message.contains("refused to open a tunnel"), "\(e.message)")
        #expect(e.retryable == 0)
        // Not retried either, with a retry policy that retries its CURLcode.
        let retried = try fetch(
            #"{"proxy":{"url":"\#(server.baseURL)"},"retry":{"max_attempts":3,"initial_ms":1,"jitter":false}}"#,
            "https://127.0.0.1:1/x")
        #expect(retried.error?.attempts == 1, "\(retried)")
    }

    @Test func http2PriorKnowledgeAgainstAnHTTP1ServerIsAMismatch() throws {
        let o = try fetch(#"{"envelope":null,"http_version":"2-prior-knowledge"}"#, server.url("/echo"))
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT, "\(e)")
        #expect(e.message.contains("protocol mismatch"), "\(e.message)")
        #expect(e.retryable == 0, "the same request gets the same answer")
        let retried = try fetch(
            #"{"envelope":null,"http_version":"2-prior-knowledge","retry":{"max_attempts":3,"initial_ms":1}}"#,
            server.url("/echo"))
        #expect(retried.error?.attempts == 1, "\(retried)")
    }

    @Test func a404OnAnAbsoluteURLNamesNoBaseURLAndShowsTheServersReason() throws {
        let absolute = try fetch(#"{"envelope":null}"#, server.url("/no/such/thing"))
        let e = try #require(absolute.error)
        #expect(e.domain == NC_DOMAIN_HTTP && e.code == 404, "\(e)")
        #expect(!e.message.contains("base URL"), "\(e.message)")
        #expect(e.message.contains(#"The server said: "not found""#), "\(e.message)")
        let relative = try fetch(config(envelope: nil), "/no/such/thing")
        #expect(relative.error?.message.contains("base URL") == true, "\(relative)")
    }

    @Test func theRedirectLimitNamesTheURLAskedForAndTheHops() throws {
        let asked = server.url("/redirect/loop")
        let o = try fetch(#"{"envelope":null,"limits":{"max_redirects":3}}"#, asked)
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT && e.code == 47, "\(e)")
        #expect(e.message.hasPrefix("GET \(asked) failed"), "\(e.message)")
        #expect(e.message.contains("3 redirects followed (limits.max_redirects 3)"), "\(e.message)")
    }
}
