// Reachability through the C API (netcore.h "Reachability"): forced OFFLINE fails
// every request unsent (loopback included), ONLINE and AUTO reach the loopback
// server, wait_for_network_ms holds a request until the mode changes (or fails it
// when the wait runs out), and a cancel ends a waiting request at once, exactly once.
// The network namespace without routes is tested by Tests/C/run.sh (reach_netns).
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How many times the mock server saw /flaky with `key` (asking counts once more).
func flakyHits(_ key: String) -> Int {
    guard let outcome = try? fetch("{}", MockServer.shared.url("/flaky?key=\(key)&fails=0")),
        let data = outcome.response?.object?["data"] as? [String: Any] ?? outcome.response?.object,
        let attempt = data["attempt"] as? Int
    else { return -1 }
    return attempt - 1
}

/// A configuration with "reachability": {...} and the default envelope.
private func reachConfig(_ reachability: String, _ extra: String...) -> String {
    var members = [#""reachability":\#(reachability)"#]
    members.append(contentsOf: extra)
    return config(base: MockServer.shared.baseURL, envelope: Envelope.a, members.joined(separator: ","))
}

@Suite struct ReachabilityTests {
    @Test(arguments: ["async", "sync", "queue"])
    func forcedOfflineFailsLoopbackUnsent(path: String) throws {
        let key = uniqueKey()
        let client = try TestClient(
            reachConfig(#"{"mode":"offline"}"#, path == "queue" ? #""callbacks":"queue""# : #""compression":true"#))
        defer { client.free() }
        #expect(nc_client_reachability(client.handle) == NC_REACH_OFFLINE)
        let request = try Request("GET", "/flaky?key=\(key)&fails=0")
        let outcome: Outcome?
        switch path {
        case "sync":
            outcome = client.sync(request)
            #expect(outcome?.rc == NC_ERR_FAILED)
        case "queue":
            let c = Collector()
            client.send(request, c, task: false)
            let fd = nc_client_fd(client.handle)
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            #expect(poll(&p, 1, 10_000) == 1)
            #expect(c.calls == 0)   // only inside dispatch
            #expect(nc_client_dispatch(client.handle) == NC_OK)
            #expect(c.calls == 1)
            outcome = c.outcome
        default:
            let c = client.sendAndWait(request)
            #expect(c.calls == 1)
            outcome = c.outcome
        }
        let e = try #require(outcome?.error)
        #expect(e.isClient(NC_CLIENT_UNREACHABLE), "\(e)")
        #expect(e.message.contains("set offline"), "\(e.message)")
        #expect(e.attempts == 0)
        #expect(e.retryable == 1)
        #expect(outcome?.response == nil)
        #expect(flakyHits(key) == 0)
    }

    @Test(arguments: ["online", "auto"])
    func onlineAndAutoReachLoopback(mode: String) throws {
        let key = uniqueKey()
        let client = try TestClient(reachConfig(#"{"mode":"\#(mode)"}"#))
        defer { client.free() }
        let outcome = client.sync(try Request("GET", "/flaky?key=\(key)&fails=0"))
        #expect(outcome.succeeded, "\(outcome)")
        #expect(flakyHits(key) == 1)
        // "localhost" is loopback too, and never blocked in AUTO.
        let local = client.sync(
            try Request(
                "GET", MockServer.shared.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/echo"))
        #expect(local.succeeded, "\(local)")
    }

    /// AUTO with a host that is not loopback: without a route off the machine it fails
    /// UNREACHABLE with no DNS lookup (a lookup of this name fails with TRANSPORT 6);
    /// with one, it is sent as usual, and the lookup fails with TRANSPORT 6.
    @Test func autoWithAHostElsewhere() throws {
        let client = try TestClient(reachConfig(#"{"mode":"auto"}"#, #""connect_timeout_ms":3000"#))
        defer { client.free() }
        let state = nc_client_reachability(client.handle)
        #expect(state == NC_REACH_ONLINE || state == NC_REACH_OFFLINE)
        let outcome = client.sync(try Request("GET", "http://api.example.invalid/users"))
        let e = try #require(outcome.error)
        if state == NC_REACH_OFFLINE {
            #expect(e.isClient(NC_CLIENT_UNREACHABLE), "\(e)")
            #expect(e.message.contains("api.example.invalid"), "\(e.message)")
        } else {
            #expect(e.domain == NC_DOMAIN_TRANSPORT && e.code == 6, "\(e)")
        }
    }

    /// Held by wait_for_network_ms while offline: nothing is sent; switching the mode
    /// to ONLINE from another thread sends it at once.
    @Test(arguments: ["async", "sync", "queue"])
    func waitingRequestIsSentWhenTheModeTurnsOnline(path: String) throws {
        let key = uniqueKey()
        let client = try TestClient(
            reachConfig(
                #"{"mode":"offline","wait_for_network_ms":60000}"#,
                path == "queue" ? #""callbacks":"queue""# : #""compression":true"#))
        defer { client.free() }
        let handle = Handle(client.handle)
        let request = try Request("GET", "/flaky?key=\(key)&fails=0")
        let c = Collector()
        let syncResult = Box<Outcome?>(nil)
        let syncDone = DispatchSemaphore(value: 0)
        if path == "sync" {
            let thread = Thread {
                syncResult.value = client.sync(request)
                syncDone.signal()
            }
            thread.start()
        } else {
            client.send(request, c, task: false)
        }
        // Whatever the gate does, it must not send while offline.
        usleep(200_000)
        #expect(flakyHits(key) == 0)
        #expect(c.calls == 0)
        #expect(syncResult.value == nil)
        onThreads(1) { _ in #expect(nc_client_set_reachability(handle.pointer, NC_REACH_ONLINE) == NC_OK) }
        let outcome: Outcome?
        switch path {
        case "sync":
            #expect(syncDone.wait(timeout: .now() + 20) == .success)
            outcome = syncResult.value ?? nil
        case "queue":
            let fd = nc_client_fd(client.handle)
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            #expect(poll(&p, 1, 20_000) == 1)
            #expect(nc_client_dispatch(client.handle) == NC_OK)
            outcome = c.outcome
        default:
            #expect(c.wait(timeout: 20))
            outcome = c.outcome
        }
        #expect(outcome?.succeeded == true, "\(String(describing: outcome))")
        #expect(flakyHits(key) == 2)   // the request, and the probe above
        client.free()
        #expect(c.calls == (path == "sync" ? 0 : 1))
    }

    /// When wait_for_network_ms runs out the request fails UNREACHABLE, unsent.
    @Test(arguments: ["async", "sync", "queue"])
    func waitRunsOut(path: String) throws {
        let key = uniqueKey()
        let client = try TestClient(
            reachConfig(
                #"{"mode":"offline","wait_for_network_ms":50}"#,
                path == "queue" ? #""callbacks":"queue""# : #""compression":true"#))
        defer { client.free() }
        let request = try Request("GET", "/flaky?key=\(key)&fails=0")
        let outcome: Outcome?
        switch path {
        case "sync":
            outcome = client.sync(request)
        case "queue":
            let c = Collector()
            client.send(request, c, task: false)
            let fd = nc_client_fd(client.handle)
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            #expect(poll(&p, 1, 20_000) == 1)
            #expect(nc_client_dispatch(client.handle) == NC_OK)
            #expect(c.calls == 1)
            outcome = c.outcome
        default:
            let c = client.sendAndWait(request)
            #expect(c.calls == 1)
            outcome = c.outcome
        }
        let e = try #require(outcome?.error)
        #expect(e.isClient(NC_CLIENT_UNREACHABLE), "\(e)")
        #expect(e.message.contains("Waited 50 ms"), "\(e.message)")
        #expect(e.attempts == 0)
        #expect(flakyHits(key) == 0)
    }

    /// The request's deadline ends the wait for the network before
    /// wait_for_network_ms does: DEADLINE_EXCEEDED, unsent.
    @Test(arguments: ["async", "sync"])
    func theDeadlineEndsTheWaitForTheNetwork(path: String) throws {
        let key = uniqueKey()
        let client = try TestClient(
            reachConfig(#"{"mode":"offline","wait_for_network_ms":60000}"#, #""deadline_ms":300"#))
        defer { client.free() }
        let request = try Request("GET", "/flaky?key=\(key)&fails=0")
        let outcome: Outcome?
        if path == "sync" {
            outcome = client.sync(request)
        } else {
            let c = client.sendAndWait(request)
            #expect(c.calls == 1)
            outcome = c.outcome
        }
        let e = try #require(outcome?.error)
        #expect(e.isClient(NC_CLIENT_DEADLINE_EXCEEDED), "\(e)")
        #expect(e.json?.contains(#""timeout":"deadline""#) == true)
        #expect(e.attempts == 0)
        #expect(flakyHits(key) == 0)
    }

    /// A cancel ends a waiting request at once with CANCELLED, exactly once, and
    /// nothing is sent; later mode changes do not revive it.
    @Test(arguments: ["async", "queue"])
    func cancelDuringTheWait(path: String) throws {
        let key = uniqueKey()
        let client = try TestClient(
            reachConfig(
                #"{"mode":"offline","wait_for_network_ms":60000}"#,
                path == "queue" ? #""callbacks":"queue""# : #""compression":true"#))
        defer { client.free() }
        let c = Collector()
        let (rc, task) = client.send(try Request("GET", "/flaky?key=\(key)&fails=0"), c)
        #expect(rc == NC_OK)
        usleep(100_000)
        #expect(c.calls == 0)
        nc_task_cancel(task)
        if path == "queue" {
            let fd = nc_client_fd(client.handle)
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            #expect(poll(&p, 1, 20_000) == 1)
            #expect(nc_client_dispatch(client.handle) == NC_OK)
        }
        #expect(c.calls == 1)   // loop mode: done when nc_task_cancel returns
        #expect(c.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true, "\(String(describing: c.outcome))")
        nc_task_cancel(task)
        #expect(nc_client_set_reachability(client.handle, NC_REACH_ONLINE) == NC_OK)
        // A later request on the same client completes: a second completion of the
        // cancelled one would have come by then.
        let after = Collector()
        client.send(try Request("GET", "/echo"), after, task: false)
        if path == "queue" {
            let fd = nc_client_fd(client.handle)
            while after.calls == 0 {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 20_000) == 1 else { break }
                #expect(nc_client_dispatch(client.handle) == NC_OK)
            }
        }
        #expect(after.wait(timeout: 20))
        nc_task_free(task)
        client.free()
        #expect(c.calls == 1)
        #expect(flakyHits(key) == 0)
    }

    /// nc_client_free ends a waiting request with SHUTDOWN, once.
    @Test func freeEndsAWaitingRequest() throws {
        let client = try TestClient(reachConfig(#"{"mode":"offline","wait_for_network_ms":60000}"#))
        let c = Collector()
        client.send(try Request("GET", "/echo"), c, task: false)
        usleep(50_000)
        client.free()
        #expect(c.calls == 1)
        #expect(c.outcome?.error?.isClient(NC_CLIENT_SHUTDOWN) == true, "\(String(describing: c.outcome))")
    }

    @Test func badArgumentsChangeNothing() throws {
        let client = try TestClient(reachConfig(#"{"mode":"offline"}"#))
        defer { client.free() }
        #expect(nc_client_set_reachability(nil, NC_REACH_ONLINE) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_reachability(client.handle, 3) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_reachability(client.handle, -1) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_reachability(client.handle) == NC_REACH_OFFLINE)
        #expect(nc_client_reachability(nil) == 0)
        #expect(client.sync(try Request("GET", "/echo")).error?.isClient(NC_CLIENT_UNREACHABLE) == true)
        #expect(nc_client_set_reachability(client.handle, NC_REACH_ONLINE) == NC_OK)
        #expect(nc_client_reachability(client.handle) == NC_REACH_ONLINE)
        #expect(client.sync(try Request("GET", "/echo")).succeeded)
    }

    @Test(arguments: [
        (#"{"mode":"sideways"}"#, "reachability.mode"),
        (#"{"wait_for_network_ms":-1}"#, "reachability.wait_for_network_ms"),
        (#"{"wait_for_network_ms":"5"}"#, "reachability.wait_for_network_ms"),
        (#"{"wait":5}"#, "reachability.wait"),
        (#""offline""#, "reachability")
    ])
    func badConfigurationIsRefusedNamingTheKey(value: String, key: String) throws {
        var c: OpaquePointer?
        var e: OpaquePointer?
        let rc = nc_client_new(#"{"reachability":\#(value)}"#, &c, &e)
        defer { nc_error_free(e) }
        #expect(rc == NC_ERR_INVALID_ARGUMENT)
        #expect(c == nil)
        let message = string(nc_error_message(e)) ?? ""
        #expect(message.contains("'\(key)'"), "\(message)")
    }
}
