// Completion callbacks: exactly once, what they receive, and what they may call.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where the userdata test's C callback (which cannot capture) reports.
private enum UserdataProbe {
    static let seen = Box<UInt?>(nil)
    static let done = DispatchSemaphore(value: 0)
}

@Suite struct CallbackTests {
    let server = MockServer.shared

    @Test func successFailureAndTransportErrorEachCompleteExactlyOnce() throws {
        let client = try TestClient(config())
        let (port, fd) = refusingPort()
        defer { close(fd) }
        let paths = [
            "/env/code/ok", "/env/code/fail", "/status/404", "/text", "http://127.0.0.1:\(port)/x", "/nocontent"
        ]
        var collectors: [Collector] = []
        for path in paths {
            let c = Collector()
            let (rc, task) = client.send(try Request("GET", path), c)
            #expect(rc == NC_OK)
            #expect(task != nil)
            nc_task_free(task)
            collectors.append(c)
        }
        for c in collectors { #expect(c.wait()) }
        client.free()   // waits for every callback: no late second call can follow
        for (path, c) in zip(paths, collectors) { #expect(c.calls == 1, "\(path)") }
        let o = collectors.map { $0.outcome }
        #expect(o[0]?.error == nil && o[0]?.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
        #expect(o[1]?.error?.domain == NC_DOMAIN_API && o[1]?.response?.status == 200)
        #expect(o[2]?.error?.domain == NC_DOMAIN_HTTP && o[2]?.response?.status == 404)
        #expect(o[3]?.error?.domain == NC_DOMAIN_PARSE && o[3]?.response?.status == 200)
        // No response was received for a transport failure.
        #expect(o[4]?.error?.domain == NC_DOMAIN_TRANSPORT && o[4]?.response == nil)
        #expect(o[5]?.error == nil && o[5]?.response?.status == 204)
    }

    @Test func userdataIsPassedUntouched() throws {
        let client = try TestClient(config())
        defer { client.free() }
        // A userdata that is not a pointer to anything: an arbitrary bit pattern.
        let sentinel = UnsafeMutableRawPointer(bitPattern: 0xDEAD_BEE0)
        let fn: nc_complete_fn = { _, _, userdata in
            UserdataProbe.seen.value = userdata.map { UInt(bitPattern: $0) }
            UserdataProbe.done.signal()
        }
        let request = try Request("GET", "/env/code/ok")
        #expect(nc_client_send(client.handle, request.handle, fn, sentinel, nil) == NC_OK)
        #expect(UserdataProbe.done.wait(timeout: .now() + 10) == .success)
        #expect(UserdataProbe.seen.value == 0xDEAD_BEE0)
    }

    @Test func fireAndForgetStillCallsBack() throws {
        let client = try TestClient(config())
        let c = Collector()
        let (rc, task) = client.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(rc == NC_OK)
        #expect(task == nil)
        #expect(c.wait())
        client.free()
        #expect(c.calls == 1)
        #expect(c.outcome?.error == nil)
    }

    @Test func freeingTheTaskDoesNotCancel() throws {
        let client = try TestClient(config())
        let c = Collector()
        let (rc, task) = client.send(try Request("GET", "/slow?ms=150"), c)
        #expect(rc == NC_OK)
        nc_task_free(task)
        #expect(c.wait())
        client.free()
        #expect(c.calls == 1)
        #expect(c.outcome?.error == nil, "\(String(describing: c.outcome))")
        #expect(c.outcome?.response?.dataJSON == #"{"slept_ms":150}"#)
    }

    @Test func builderMayBeFreedRightAfterSend() throws {
        let client = try TestClient(config())
        let c = Collector()
        var r: OpaquePointer?
        #expect(nc_request_new("GET", "/echo", &r) == NC_OK)
        #expect(nc_request_set_query(r, "k", "v") == NC_OK)
        var t: OpaquePointer?
        #expect(nc_client_send(client.handle, r, collectFn, c.userdata, &t) == NC_OK)
        nc_request_free(r)
        #expect(c.wait())
        nc_task_free(t)
        client.free()
        #expect(c.outcome?.echo?["raw_path"] as? String == "/echo?k=v")
    }

    @Test func callbacksRunOnTheTransferThreadInLoopMode() throws {
        let client = try TestClient(config())
        let me = pthread_self()
        let collectors = (0..<4).map { _ in Collector() }
        for c in collectors { client.send(try Request("GET", "/env/code/ok"), c, task: false) }
        for c in collectors { #expect(c.wait()) }
        client.free()
        let threads = collectors.flatMap { $0.threads }
        #expect(threads.count == 4)
        #expect(threads.allSatisfy { pthread_equal($0, me) == 0 })
        #expect(threads.allSatisfy { pthread_equal($0, threads[0]) != 0 })
    }

    @Test func clientFreeInsideACallbackIsRefusedAndTheClientStaysUsable() throws {
        let client = try TestClient(config())
        let handle = Handle(client.handle)
        let returned = Box(false)
        let c = Collector { _, _ in
            nc_client_free(handle.pointer)   // refused: must return without freeing
            returned.value = true
        }
        client.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(c.wait())
        #expect(returned.value)
        // Still usable: sync and async requests work.
        let o = try client.sync("/env/code/ok")
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
        let again = Collector()
        client.send(try Request("GET", "/env/code/fail"), again, task: false)
        #expect(again.wait())
        #expect(again.outcome?.error?.code == 1001)
        client.free()
        #expect(c.calls == 1)
    }

    @Test func chainedSendFromACallback() throws {
        let client = try TestClient(config())
        let handle = Handle(client.handle)
        let second = Collector()
        let sendStatus = Box<nc_status>(-1)
        let first = Collector { response, error in
            guard error == nil, let r = try? Request("GET", "/echo") else { return }
            // Use the first result to build the second request.
            let id =
                canonical(nc_response_data(response)).flatMap { foundationJSON($0) as? [String: Any] }?["id"] as? Int
            r.query("id", "\(id ?? -1)")
            sendStatus.value = nc_client_send(handle.pointer, r.handle, collectFn, second.userdata, nil)
        }
        client.send(try Request("GET", "/env/code/ok"), first, task: false)
        #expect(first.wait())
        #expect(second.wait())
        client.free()
        #expect(sendStatus.value == NC_OK)
        #expect(first.calls == 1 && second.calls == 1)
        #expect(second.outcome?.echo?["raw_path"] as? String == "/echo?id=7")
    }

    @Test func sendSyncInsideACallbackIsInvalidState() throws {
        let client = try TestClient(config())
        let handle = Handle(client.handle)
        let status = Box<nc_status>(-1)
        let wroteOut = Box(false)
        let c = Collector { _, _ in
            guard let r = try? Request("GET", "/env/code/ok") else { return }
            var response: OpaquePointer?
            var error: OpaquePointer?
            status.value = nc_client_send_sync(handle.pointer, r.handle, &response, &error)
            wroteOut.value = response != nil || error != nil
            nc_response_free(response)
            nc_error_free(error)
        }
        client.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(c.wait())
        client.free()
        #expect(status.value == NC_ERR_INVALID_STATE)
        #expect(wroteOut.value == false)
        #expect(c.calls == 1)
    }

    @Test func sendSyncFromAnotherClientsCallbackIsAllowed() throws {
        let a = try TestClient(config())
        let b = try TestClient(config())
        let bHandle = Handle(b.handle)
        let data = Box<String?>(nil)
        let c = Collector { _, _ in
            guard let r = try? Request("GET", "/env/code/ok") else { return }
            var response: OpaquePointer?
            if nc_client_send_sync(bHandle.pointer, r.handle, &response, nil) == NC_OK {
                var n = 0
                data.value = string(nc_response_data_json(response, &n))
            }
            nc_response_free(response)
        }
        a.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(c.wait())
        a.free()
        b.free()
        #expect(data.value == #"{"id":7,"name":"Ada"}"#)
    }

    @Test func cancellingAJustSentRequestInsideACallbackCompletesItBeforeReturning() throws {
        let client = try TestClient(config())
        let handle = Handle(client.handle)
        let inner = Collector()
        let callsWhenCancelReturned = Box(-1)
        let outer = Collector { _, _ in
            guard let r = try? Request("GET", "/slow?ms=3000") else { return }
            var t: OpaquePointer?
            guard nc_client_send(handle.pointer, r.handle, collectFn, inner.userdata, &t) == NC_OK else { return }
            nc_task_cancel(t)
            callsWhenCancelReturned.value = inner.calls
            nc_task_cancel(t)   // idempotent
            nc_task_free(t)
        }
        client.send(try Request("GET", "/env/code/ok"), outer, task: false)
        #expect(outer.wait())
        #expect(inner.wait())
        client.free()
        #expect(callsWhenCancelReturned.value == 1)
        #expect(inner.calls == 1)
        let e = try #require(inner.outcome?.error)
        #expect(e.isClient(NC_CLIENT_CANCELLED))
        #expect(e.attempts == 0)   // never sent
        #expect(inner.outcome?.response == nil)
    }

    @Test func cancellingAnInFlightRequestInsideAnotherCallback() throws {
        let client = try TestClient(config())
        let slow = Collector()
        let (_, t) = client.send(try Request("GET", "/slow?ms=3000"), slow)
        let slowTask = Handle(try #require(t))
        let slowCallsWhenCancelReturned = Box(-1)
        let fast = Collector { _, _ in
            nc_task_cancel(slowTask.pointer)
            slowCallsWhenCancelReturned.value = slow.calls
        }
        client.send(try Request("GET", "/env/code/ok"), fast, task: false)
        #expect(fast.wait())
        #expect(slow.wait())
        client.free()
        nc_task_free(slowTask.pointer)
        #expect(slowCallsWhenCancelReturned.value == 1)
        #expect(slow.calls == 1 && fast.calls == 1)
        #expect(slow.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
        #expect(fast.outcome?.error == nil)
    }

    @Test func cancellingTheRunningTaskFromItsOwnCallbackDoesNothing() throws {
        let client = try TestClient(config())
        let task = Box<OpaquePointer?>(nil)
        let taskStored = DispatchSemaphore(value: 0)
        let c = Collector { _, _ in
            _ = taskStored.wait(timeout: .now() + 10)
            nc_task_cancel(task.value)   // the callback that is running: must not wait for itself
        }
        let (rc, t) = client.send(try Request("GET", "/env/code/ok"), c)
        #expect(rc == NC_OK)
        task.value = t
        taskStored.signal()
        #expect(c.wait())
        client.free()
        nc_task_free(t)
        #expect(c.calls == 1)
        #expect(c.outcome?.error == nil)
    }

    @Test func sendFromACallbackDuringClientFree() throws {
        // A send from a callback while another thread frees the client: the chained
        // request either is refused (INVALID_STATE, never called back) or completes once.
        let client = try TestClient(config())
        let handle = Handle(client.handle)
        let chained = Collector()
        let status = Box<nc_status>(-1)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let c = Collector { _, _ in
            entered.signal()
            _ = proceed.wait(timeout: .now() + 10)
            guard let r = try? Request("GET", "/env/code/ok") else { return }
            status.value = nc_client_send(handle.pointer, r.handle, collectFn, chained.userdata, nil)
        }
        client.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(entered.wait(timeout: .now() + 10) == .success)
        let freed = DispatchSemaphore(value: 0)
        let freeing = Thread {
            client.free()
            freed.signal()
        }
        freeing.start()
        usleep(50_000)   // timing is the subject: let nc_client_free begin
        proceed.signal()
        #expect(freed.wait(timeout: .now() + 10) == .success)
        #expect(c.calls == 1)
        if status.value == NC_OK {
            #expect(chained.calls == 1)
            #expect(chained.outcome?.error.map { $0.isClient(NC_CLIENT_SHUTDOWN) } ?? true)
        } else {
            #expect(status.value == NC_ERR_INVALID_STATE)
            #expect(chained.calls == 0)
        }
    }
}
