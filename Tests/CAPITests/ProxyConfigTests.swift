// "proxy" through the C header. The loopback mock server plays the proxy: it
// answers absolute-form request targets (and counts them in /_stats), and refuses
// CONNECT with 501. The origin is a loopback port nothing listens on, so a request
// that goes direct fails at once with TRANSPORT 7 (couldn't connect), and one that
// arrives at the mock server went through the proxy. The environment's variables
// and their precedence against "proxy" are tested in Tests/python/test_proxy.py
// (each case in a subprocess with its own environment) and ProxyEnvironmentTests.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port nothing listens on (bound, then closed).
func closedLoopbackPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Int32 in
            _ = bind(fd, p, len)
            return getsockname(fd, p, &len)
        }
    }
    return Int(UInt16(bigEndian: addr.sin_port))
}

@Suite struct ProxyConfigTests {
    let server = MockServer.shared
    let origin = "127.0.0.1:\(closedLoopbackPort())"

    func proxied(_ proxy: String, _ url: String) throws -> Outcome {
        try fetch(#"{"envelope":{},"proxy":\#(proxy)}"#, url)
    }

    @Test func theConfiguredProxyCarriesRequests() throws {
        let target = "http://\(origin)/api/echo?x=1"
        let o = try proxied(#"{"url":"\#(server.baseURL)"}"#, target)
        #expect(o.succeeded, "\(o)")
        #expect(o.echo?["raw_path"] as? String == target, "the proxy got the absolute-form target: \(o)")
        #expect((o.echo?["headers"] as? [String: Any])?["host"] as? String == origin)
    }

    @Test func noProxyHostsGoDirect() throws {
        let target = "http://\(origin)/api/echo"
        for hosts in ["127.0.0.1", "example.com,127.0.0.1", "*"] {
            let o = try proxied(#"{"url":"\#(server.baseURL)","no_proxy":"\#(hosts)"}"#, target)
            #expect(o.error?.domain == NC_DOMAIN_TRANSPORT && o.error?.code == 7, "\(hosts): \(o)")
        }
        let other = try proxied(#"{"url":"\#(server.baseURL)","no_proxy":"example.com"}"#, target)
        #expect(other.succeeded, "a list that does not match keeps the proxy: \(other)")
    }

    @Test func anEmptyURLMeansNoProxy() throws {
        let o = try proxied(#"{"url":""}"#, "http://\(origin)/api/echo")
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT && o.error?.code == 7, "\(o)")
    }

    @Test func httpsGoesThroughACONNECTTunnelOfTheConfiguredProxy() throws {
        // The mock proxy refuses CONNECT (501): the request reached it.
        let o = try proxied(#"{"url":"\#(server.baseURL)"}"#, "https://\(origin)/api/echo")
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT && o.error?.code == 56, "\(o)")
        #expect(o.error?.message.contains("CONNECT") == true, "\(o)")
    }

    @Test func badProxyValuesAreRefusedNamingTheKey() {
        for (proxy, key) in [
            (#"{"url":"ftp://p:21"}"#, "'proxy.url'"), (#"{"url":"p:3128"}"#, "'proxy.url'"),
            (#"{"url":"http://p 1"}"#, "'proxy.url'"), (#"{"url":7}"#, "'proxy.url'"),
            (#"{"no_proxy":["a"]}"#, "'proxy.no_proxy'"), (#"{"host":"p"}"#, "'proxy.host'"),
            (#""http://p:1""#, "'proxy'")
        ] {
            var c: OpaquePointer?
            var e: OpaquePointer?
            let rc = nc_client_new(#"{"proxy":\#(proxy)}"#, &c, &e)
            #expect(rc == NC_ERR_INVALID_ARGUMENT && c == nil, "\(proxy)")
            let message = string(nc_error_message(e)) ?? ""
            #expect(message.contains(key), "\(proxy): \(message)")
            nc_error_free(e)
            nc_client_free(c)
        }
    }
}
