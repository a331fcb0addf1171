import Glibc
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore

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
