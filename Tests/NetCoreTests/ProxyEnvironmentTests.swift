import Glibc
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// Which variable wins (ProxyEnvironment.swift; end to end in Tests/python/test_proxy.py).
@Suite struct ProxyEnvironmentTests {
    func proxies(_ vars: [String: String]) -> ProxyEnvironment { ProxyEnvironment { vars[$0] } }
    func text(_ s: CString) -> String { String(cString: s.pointer) }

    @Test func libcurlsPrecedence() {
        let none = proxies([:])
        #expect(text(none.http) == "" && text(none.https) == "" && text(none.noProxy) == "")
        let all = proxies(["ALL_PROXY": "http://A:1", "all_proxy": "http://a:1", "NO_PROXY": "N", "no_proxy": "n"])
        #expect(text(all.http) == "http://a:1" && text(all.https) == "http://a:1" && text(all.noProxy) == "n")
        let upper = proxies(["ALL_PROXY": "http://A:1", "HTTP_PROXY": "http://H:1", "HTTPS_PROXY": "http://S:1"])
        #expect(text(upper.http) == "http://A:1")   // HTTP_PROXY is never read
        #expect(text(upper.https) == "http://S:1")
        let lower = proxies([
            "http_proxy": "http://h:1", "https_proxy": "http://s:1", "HTTPS_PROXY": "http://S:1",
            "all_proxy": "http://a:1"
        ])
        #expect(text(lower.proxy(https: false)) == "http://h:1")
        #expect(text(lower.proxy(https: true)) == "http://s:1")
        let empty = proxies(["http_proxy": "", "all_proxy": "http://a:1", "no_proxy": "", "NO_PROXY": "N"])
        #expect(text(empty.http) == "http://a:1" && text(empty.noProxy) == "N")
    }

    /// "proxy" in the configuration wins over the environment (ProxyOptions.swift).
    @Test func theConfiguredProxyWins() {
        let env = ["http_proxy": "http://env:1", "https_proxy": "http://envs:1", "no_proxy": "envhost"]
        func configured(_ url: String?, _ noProxy: String?) -> ProxyEnvironment {
            ProxyEnvironment(configured: ProxyOptions(url: url, noProxy: noProxy)) { env[$0] }
        }
        let url = configured("http://conf:3128", nil)
        #expect(text(url.http) == "http://conf:3128" && text(url.https) == "http://conf:3128")
        #expect(text(url.noProxy) == "", "a configured URL ignores the environment's no_proxy too")
        let both = configured("socks5h://conf:1080", "a.example,10.0.0.1")
        #expect(text(both.http) == "socks5h://conf:1080" && text(both.noProxy) == "a.example,10.0.0.1")
        let none = configured("", nil)
        #expect(text(none.http) == "" && text(none.https) == "", "\"\" = no proxy, whatever the environment")
        let onlyNoProxy = configured(nil, "conf.example")
        #expect(text(onlyNoProxy.http) == "http://env:1" && text(onlyNoProxy.https) == "http://envs:1")
        #expect(text(onlyNoProxy.noProxy) == "conf.example")
        let unset = configured(nil, nil)
        #expect(text(unset.http) == "http://env:1" && text(unset.noProxy) == "envhost")
    }
}

/// `count` requests in flight at once, each held `ms` by the server; how many succeeded.
func sendBurst(_ c: NetClient, count: Int, ms: Int) async throws -> Int {
    let requests = try (0..<count).map { try Request(method: "GET", target: "/slow?ms=\(ms)&i=\($0)") }
    return await withTaskGroup(of: Bool.self) { group in
        for r in requests {
            group.addTask {
                do throws(NetError) {
                    _ = try await c.send(r)
                    return true
                } catch { return false }
            }
        }
        var ok = 0
        for await good in group where good { ok += 1 }
        return ok
    }
}
