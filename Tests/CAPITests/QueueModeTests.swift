// "callbacks":"queue": completions wait until nc_client_dispatch() on the caller's
// thread; nc_client_fd() is readable while they wait.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// poll() on the client's descriptor: true if readable within `ms`.
private func readable(_ fd: Int32, within ms: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, ms) == 1 && (p.revents & Int16(POLLIN)) != 0
}

private var queueConfig: String {
    config(base: MockServer.shared.baseURL, envelope: Envelope.a, #""callbacks":"queue""#)
}

@Suite struct QueueModeTests {
    @Test func fdIsReadableOnlyWhileCompletionsWait() throws {
        let client = try TestClient(queueConfig)
        let fd = nc_client_fd(client.handle)
        #expect(fd >= 0)
        #expect(nc_client_fd(client.handle) == fd)   // stable
        #expect(!readable(fd, within: 0))
        let c = Collector()
        client.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(readable(fd, within: 10_000))
        #expect(c.calls == 0)   // queued, not run
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(c.calls == 1)
        #expect(c.outcome?.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
        #expect(!readable(fd, within: 0))
        // Dispatch with nothing queued is fine and calls nothing.
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(c.calls == 1)
        client.free()
        #expect(c.calls == 1)
    }

    @Test func callbacksRunOnlyInsideDispatchOnTheCallingThread() throws {
        let client = try TestClient(queueConfig)
        let fd = nc_client_fd(client.handle)
        let me = pthread_self()
        let paths = ["/env/code/ok", "/env/code/fail", "/status/404", "/echo"]
        let collectors = paths.map { _ in Collector() }
        for (p, c) in zip(paths, collectors) { client.send(try Request("GET", p), c, task: false) }
        let deadline = Date().addingTimeInterval(10)
        while collectors.contains(where: { $0.calls == 0 }) && Date() < deadline {
            if readable(fd, within: 100) {
                #expect(nc_client_dispatch(client.handle) == NC_OK)
            }
        }
        client.free()
        for (p, c) in zip(paths, collectors) {
            #expect(c.calls == 1, "\(p)")
            #expect(c.threads.count == 1 && pthread_equal(c.threads[0], me) != 0, "\(p) ran on another thread")
        }
        #expect(collectors[1].outcome?.error?.code == 1001)
        #expect(collectors[2].outcome?.error?.domain == NC_DOMAIN_HTTP)
        #expect(collectors[3].outcome?.echo?["path"] as? String == "/echo")
    }

    @Test func dispatchInLoopModeIsInvalidState() throws {
        let client = try TestClient(config())
        #expect(nc_client_fd(client.handle) == -1)
        #expect(nc_client_dispatch(client.handle) == NC_ERR_INVALID_STATE)
    }

    @Test func nestedDispatchFromACallbackIsInvalidState() throws {
        let client = try TestClient(queueConfig)
        let handle = Handle(client.handle)
        let nested = Box<nc_status>(-1)
        let c = Collector { _, _ in nested.value = nc_client_dispatch(handle.pointer) }
        client.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(readable(nc_client_fd(client.handle), within: 10_000))
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(c.calls == 1)
        #expect(nested.value == NC_ERR_INVALID_STATE)
    }

    @Test func clientFreeInsideADispatchedCallbackIsRefused() throws {
        let client = try TestClient(queueConfig)
        let handle = Handle(client.handle)
        let c = Collector { _, _ in nc_client_free(handle.pointer) }
        client.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(readable(nc_client_fd(client.handle), within: 10_000))
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(c.calls == 1)
        // Still usable.
        let again = Collector()
        client.send(try Request("GET", "/env/code/fail"), again, task: false)
        #expect(readable(nc_client_fd(client.handle), within: 10_000))
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(again.outcome?.error?.code == 1001)
        #expect(try client.sync("/env/code/ok").error == nil)
    }

    @Test func sendSyncWorksWithoutDispatchButNotInsideACallback() throws {
        let client = try TestClient(queueConfig)
        let o = try client.sync("/env/code/ok")
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
        #expect(!readable(nc_client_fd(client.handle), within: 0))   // nothing was queued for it
        let handle = Handle(client.handle)
        let inside = Box<nc_status>(-1)
        let c = Collector { _, _ in
            guard let r = try? Request("GET", "/env/code/ok") else { return }
            inside.value = nc_client_send_sync(handle.pointer, r.handle, nil, nil)
        }
        client.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(readable(nc_client_fd(client.handle), within: 10_000))
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(inside.value == NC_ERR_INVALID_STATE)
    }

    @Test func cancelReturnsWithoutWaitingAndCompletesAtNextDispatch() throws {
        let server = try privateServer()
        defer { server.stop() }
        let client = try TestClient(config(base: server.baseURL, envelope: Envelope.a, #""callbacks":"queue""#))
        let fd = nc_client_fd(client.handle)
        let c = Collector()
        let (_, t) = client.send(try Request("GET", "/slow?ms=5000"), c)
        let task = try #require(t)
        #expect(waitForServer(server, path: "/slow"))
        nc_task_cancel(task)   // returns without waiting for the callback, which only a dispatch runs
        #expect(c.calls == 0)   // not run yet: queued for dispatch
        #expect(readable(fd, within: 2_000))
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(c.calls == 1)
        #expect(c.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
        nc_task_cancel(task)   // idempotent
        #expect(!readable(fd, within: 50))
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        client.free()
        nc_task_free(task)
        #expect(c.calls == 1)
    }

    @Test func cancelInsideDispatchedCallbackQueuesTheCancellation() throws {
        let client = try TestClient(queueConfig)
        let handle = Handle(client.handle)
        let inner = Collector()
        let innerCallsAfterCancel = Box(-1)
        let outer = Collector { _, _ in
            guard let r = try? Request("GET", "/slow?ms=3000") else { return }
            var t: OpaquePointer?
            guard nc_client_send(handle.pointer, r.handle, collectFn, inner.userdata, &t) == NC_OK else { return }
            nc_task_cancel(t)
            innerCallsAfterCancel.value = inner.calls
            nc_task_free(t)
        }
        client.send(try Request("GET", "/env/code/ok"), outer, task: false)
        let fd = nc_client_fd(client.handle)
        #expect(readable(fd, within: 10_000))
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(outer.calls == 1)
        #expect(innerCallsAfterCancel.value == 0)   // queued, runs at a later dispatch
        #expect(readable(fd, within: 2_000))
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(inner.calls == 1)
        #expect(inner.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
    }

    @Test func clientFreeRunsQueuedCompletionsOnTheFreeingThreadOnce() throws {
        let client = try TestClient(queueConfig)
        let fd = nc_client_fd(client.handle)
        let done = Collector()
        let slow = Collector()
        client.send(try Request("GET", "/env/code/ok"), done, task: false)
        client.send(try Request("GET", "/slow?ms=5000"), slow, task: false)
        #expect(readable(fd, within: 10_000))   // the first is queued
        #expect(done.calls == 0 && slow.calls == 0)
        let me = pthread_self()
        client.free()   // ends /slow, which the server would answer in 5 s
        #expect(done.calls == 1)
        #expect(slow.calls == 1)
        #expect(done.outcome?.error == nil)
        #expect(done.outcome?.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
        #expect(slow.outcome?.error?.isClient(NC_CLIENT_SHUTDOWN) == true)
        for c in [done, slow] {
            #expect(c.threads.count == 1 && pthread_equal(c.threads[0], me) != 0)
        }
    }

    @Test func completionsRunInCompletionOrder() throws {
        let client = try TestClient(queueConfig)
        let fd = nc_client_fd(client.handle)
        let order = Box<[Int]>([])
        let lock = NSLock()
        let collectors = (0..<3).map { i in Collector { _, _ in lock.withLock { order.value.append(i) } } }
        // Finishing order is forced by the delays: 2, then 1, then 0.
        for (i, ms) in [(0, 900), (1, 450), (2, 0)] {
            client.send(try Request("GET", "/slow?ms=\(ms)"), collectors[i], task: false)
        }
        let deadline = Date().addingTimeInterval(10)
        while collectors.contains(where: { $0.calls == 0 }) && Date() < deadline {
            if readable(fd, within: 100) { nc_client_dispatch(client.handle) }
        }
        #expect(order.value == [2, 1, 0])
    }
}
