// Cancellation groups: nc_request_set_group, nc_client_cancel_group,
// nc_client_cancel_all, and an endpoint's "group", against the loopback server.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

private func isCancelled(_ c: Collector) -> Bool {
    c.calls == 1 && c.outcome?.error?.domain == NC_DOMAIN_CLIENT
        && c.outcome?.error?.code == Int64(NC_CLIENT_CANCELLED)
}

@Suite struct GroupTests {
    @Test func aGroupIsCancelledExactlyOnceOverAThousandRequestsAndOthersGoOn() throws {
        let client = try TestClient(config())
        let screen = try Request("GET", "/slow?ms=10000")
        #expect(nc_request_set_group(screen.handle, "screen") == NC_OK)
        let other = try Request("GET", "/slow?ms=50")
        #expect(nc_request_set_group(other.handle, "other") == NC_OK)
        let doomed = (0..<1000).map { _ in Collector() }
        for c in doomed { #expect(client.send(screen, c, task: false).0 == NC_OK) }
        let kept = (0..<3).map { _ in Collector() }
        for c in kept { #expect(client.send(other, c, task: false).0 == NC_OK) }
        // Some are on the wire, most wait for a connection: all count.
        #expect(waitForServer(MockServer.shared, path: "/slow", count: 1))
        var cancelled = -1
        #expect(nc_client_cancel_group(client.handle, "screen", &cancelled) == NC_OK)
        #expect(cancelled == 1000)
        for c in doomed { #expect(c.wait(timeout: 20)) }
        #expect(doomed.allSatisfy(isCancelled))
        // The other group was not touched and completes normally.
        for c in kept { #expect(c.wait(timeout: 20)) }
        #expect(kept.allSatisfy { $0.calls == 1 && $0.outcome?.succeeded == true })
        // Nothing left: 0, and still exactly one completion each.
        var again = -1
        #expect(nc_client_cancel_group(client.handle, "screen", &again) == NC_OK)
        #expect(again == 0)
        #expect(doomed.allSatisfy { $0.calls == 1 })
        client.free()
    }

    /// A request of the group waiting in a retry's delay counts and ends at once
    /// with CANCELLED, its one attempt made; nothing more reaches the server.
    @Test func aGroupCancelReachesARequestWaitingForItsRetry() throws {
        let (client, log) = try retryClient(
            #"{"max_attempts":3,"backoff":"constant","initial_ms":60000,"jitter":false}"#)
        let key = uniqueKey()
        let r = try Request("GET", "/flaky?key=\(key)&fails=9&status=503")
        #expect(nc_request_set_group(r.handle, "backoff") == NC_OK)
        let c = Collector()
        #expect(client.send(r, c, task: false).0 == NC_OK)
        #expect(log.waitFor("retry"))   // in its 60 s delay now
        var n = -1
        #expect(nc_client_cancel_group(client.handle, "backoff", &n) == NC_OK)
        #expect(n == 1)
        #expect(c.wait(timeout: 5))
        #expect(isCancelled(c))
        #expect(c.outcome?.error?.attempts == 1)
        #expect(hits(key) == 1)
        client.free()
    }

    @Test func cancelAllCancelsEveryGroupAndNoneAndTheClientStaysUsable() throws {
        let client = try TestClient(config())
        let grouped = try Request("GET", "/slow?ms=10000")
        nc_request_set_group(grouped.handle, "g")
        let plain = try Request("GET", "/slow?ms=10000")
        let cs = (0..<20).map { _ in Collector() }
        for (i, c) in cs.enumerated() { client.send(i % 2 == 0 ? grouped : plain, c, task: false) }
        var n = -1
        #expect(nc_client_cancel_all(client.handle, &n) == NC_OK)
        #expect(n == 20)
        for c in cs { #expect(c.wait(timeout: 20)) }
        #expect(cs.allSatisfy(isCancelled))
        #expect(nc_client_cancel_all(client.handle, nil) == NC_OK)   // NULL out-param is fine
        #expect(try client.sync("/env/code/ok").succeeded)
        client.free()
    }

    @Test func aGroupCanBeCancelledFromInsideACallbackAndInQueueMode() throws {
        // From a completion on the transfer thread: acts at once, without waiting for itself.
        let client = try TestClient(config())
        let slow = try Request("GET", "/slow?ms=10000")
        nc_request_set_group(slow.handle, "g")
        let victims = (0..<5).map { _ in Collector() }
        for c in victims { client.send(slow, c, task: false) }
        var fromCallback = -1
        let trigger = Collector { _, _ in
            var n = 0
            if nc_client_cancel_group(client.handle, "g", &n) == NC_OK { fromCallback = n }
        }
        client.send(try Request("GET", "/env/code/ok"), trigger, task: false)
        #expect(trigger.wait(timeout: 20))
        for c in victims { #expect(c.wait(timeout: 20)) }
        #expect(fromCallback == 5)
        #expect(victims.allSatisfy(isCancelled))
        client.free()

        // Queue mode: the cancelled completions run inside dispatch.
        let queued = try TestClient(config(#""callbacks":"queue""#))
        let qs = (0..<4).map { _ in Collector() }
        for c in qs { queued.send(slow, c, task: false) }
        var n = -1
        #expect(nc_client_cancel_group(queued.handle, "g", &n) == NC_OK)
        #expect(n == 4)
        #expect(qs.allSatisfy { $0.calls == 0 })
        var spins = 0
        while qs.contains(where: { $0.calls == 0 }) && spins < 2000 {
            _ = nc_client_dispatch(queued.handle)
            usleep(1000)
            spins += 1
        }
        #expect(qs.allSatisfy(isCancelled))
        queued.free()
    }

    @Test func anEndpointsGroupAppliesAndTheRequestsOwnWins() throws {
        let client = try TestClient(
            config(#""endpoints":{"slow":{"path":"/slow","group":"feed"}}"#))
        let viaEndpoint = Collector()
        var t: OpaquePointer?
        let params = Array(#"{"ms":10000}"#.utf8CString)
        let rc = params.withUnsafeBufferPointer {
            nc_client_call(client.handle, "slow", $0.baseAddress, params.count - 1, collectFn, viaEndpoint.userdata, &t)
        }
        #expect(rc == NC_OK)
        nc_task_free(t)
        let own = try Request(endpoint: "slow")
        own.params(#"{"ms":10000}"#)
        nc_request_set_group(own.handle, "mine")
        let overridden = Collector()
        client.send(own, overridden, task: false)
        var n = -1
        #expect(nc_client_cancel_group(client.handle, "feed", &n) == NC_OK)
        #expect(n == 1)
        #expect(viaEndpoint.wait(timeout: 20) && isCancelled(viaEndpoint))
        #expect(overridden.calls == 0)
        #expect(nc_client_cancel_group(client.handle, "mine", &n) == NC_OK)
        #expect(n == 1)
        #expect(overridden.wait(timeout: 20) && isCancelled(overridden))
        client.free()
    }

    @Test func badArgumentsChangeNothing() throws {
        let client = try TestClient(config())
        let r = try Request("GET", "/slow?ms=10000")
        #expect(nc_request_set_group(nil, "g") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_group(r.handle, "") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_group(r.handle, "a\nb") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_group(r.handle, "g") == NC_OK)
        #expect(nc_request_set_group(r.handle, "") == NC_ERR_INVALID_ARGUMENT)   // still "g"
        let c = Collector()
        client.send(r, c, task: false)
        var n = 99
        #expect(nc_client_cancel_group(nil, "g", &n) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_cancel_group(client.handle, nil, &n) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_cancel_group(client.handle, "", &n) == NC_ERR_INVALID_ARGUMENT)
        // A name nc_request_set_group refuses is refused here too (it returned NC_OK
        // with 0 before 0.4): control characters anywhere, DEL included.
        for bad in ["g\n", "\u{1}g", "g\u{7f}", "\tg"] {
            let rc = nc_client_cancel_group(client.handle, bad, &n)
            #expect(rc == NC_ERR_INVALID_ARGUMENT, "\(bad.debugDescription)")
        }
        #expect(nc_client_cancel_all(nil, &n) == NC_ERR_INVALID_ARGUMENT)
        #expect(n == 99)   // written on NC_OK only
        #expect(c.calls == 0)
        #expect(nc_client_cancel_group(client.handle, "g", &n) == NC_OK)
        #expect(n == 1)   // the group survived the refused change
        #expect(c.wait(timeout: 20) && isCancelled(c))
        // NULL clears the group.
        #expect(nc_request_set_group(r.handle, nil) == NC_OK)
        let c2 = Collector()
        client.send(try Request("GET", "/env/code/ok"), c2, task: false)
        #expect(c2.wait(timeout: 20))
        client.free()
    }
}
