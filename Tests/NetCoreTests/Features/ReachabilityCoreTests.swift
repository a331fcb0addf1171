import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The reachability gate's pieces without the network: which hosts are loopback,
/// the mode as Swift sets it, and the Swift API against the loopback server.
@Suite struct ReachabilityCoreTests {
    @Test(arguments: [
        ("http://localhost:8080/x", true), ("http://LOCALHOST./x", true), ("http://api.localhost/x", true),
        ("http://127.0.0.1/x", true), ("http://127.255.3.4:1/x", true), ("http://[::1]:8080/x", true),
        ("http://[::ffff:127.0.0.1]/x", true), ("http://10.0.0.1/x", false), ("http://[::2]/x", false),
        ("http://127.0.0.1.example.com/x", false), ("http://localhost.example/x", false),
        ("http://api.example.invalid/x", false), ("http://128.0.0.1/x", false)
    ])
    func loopbackHosts(url: String, loopback: Bool) {
        #expect(LoopbackHost.isLoopback(RequestURL(url)) == loopback, "\(url)")
    }

    @Test func forcedOnlineInstallsNoGate() throws {
        let c = try NetClient(json: #"{"base_url":"http://h.test/api","reachability":{"mode":"online"}}"#)
        defer { c.shutdown() }
        #expect(c.reachability == .online)
        #expect(c.isReachable)
        #expect(c.transfer(try Request(method: "GET", target: "/x")) { _, _, _ in }.gate == nil)
        c.reachability = .auto
        #expect(c.transfer(try Request(method: "GET", target: "/x")) { _, _, _ in }.gate != nil)
    }

    @Test func swiftPropertySwitchesTheMode() async throws {
        let c = try NetClient(json: #"{"base_url":"\#(MockServer.shared.baseURL)"}"#)
        defer { c.shutdown() }
        #expect(c.reachability == .auto)
        c.reachability = .offline
        #expect(!c.isReachable)
        do {
            _ = try await c.send(try Request(method: "GET", target: "/echo"))
            Issue.record("sent while offline")
        } catch {
            #expect(error.domain == .client && error.code == NetError.ClientCode.unreachable.rawValue, "\(error)")
            #expect(error.isRetryable)
        }
        c.reachability = .online
        let r = try await c.send(try Request(method: "GET", target: "/echo"))
        #expect(r.status == 200)
    }

    /// A request cancelled while it waits for the network is let go by the process's
    /// route watcher at once, not at the end of its wait (minutes, here): 200 such
    /// cancels used to keep 200 transfers (and their requests) alive.
    @Test func aCancelledWaitIsForgottenAtOnce() async throws {
        let c = try NetClient(
            json:
                #"{"base_url":"\#(MockServer.shared.baseURL)","reachability":{"mode":"offline","wait_for_network_ms":600000}}"#
        )
        defer { c.shutdown() }
        let ended = Atomic<Int>(0)
        for i in 0..<200 {   // not coalesced: each its own URL
            _ = c.send(try Request(method: "GET", target: "/echo?i=\(i)")) { _, e in
                if e?.isCancelled == true { ended.add(1, ordering: .relaxed) }
            }
        }
        #expect(await waitUntilAsync { RouteWatcher.shared.heldCount(owner: c.reachabilityGate) == 200 })
        #expect(c.cancelAll() == 200)
        #expect(await waitUntilAsync { ended.load(ordering: .relaxed) == 200 })
        #expect(RouteWatcher.shared.heldCount(owner: c.reachabilityGate) == 0)
    }
}
