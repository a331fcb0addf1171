// nc_task_cancel and nc_client_free with requests in flight: every callback runs
// exactly once, and cancel returns only after the callback has returned.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One request of the cancel race: calls counted, result kept, without snapshots
/// (kept light so 1,000 of them run quickly).
final class RaceSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var _calls = 0
    private var _domain: Int32 = -1
    private var _code: Int64 = -1
    private var _data: String?
    private var _attempts: Int32 = -1
    private var _callsWhenCancelReturned = -1

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    fileprivate func complete(_ response: OpaquePointer?, _ error: OpaquePointer?) {
        let domain = error.map { nc_error_domain($0) } ?? 0
        let code = error.map { nc_error_code($0) } ?? 0
        let attempts = error.map { nc_error_attempts($0) } ?? 1
        let data = response.flatMap { string(nc_response_data_json($0, nil)) }
        lock.withLock {
            _calls += 1
            _domain = domain
            _code = code
            _data = data
            _attempts = attempts
        }
    }

    var calls: Int { lock.withLock { _calls } }
    /// Called right after nc_task_cancel returned: remembers how many calls had completed.
    func cancelReturned() { lock.withLock { _callsWhenCancelReturned = _calls } }
    var callsWhenCancelReturned: Int { lock.withLock { _callsWhenCancelReturned } }
    var result: (domain: Int32, code: Int64, data: String?, attempts: Int32) {
        lock.withLock { (_domain, _code, _data, _attempts) }
    }
}

private let raceFn: nc_complete_fn = { response, error, userdata in
    guard let userdata else { return }
    Unmanaged<RaceSlot>.fromOpaque(userdata).takeUnretainedValue().complete(response, error)
}

@Suite struct CancelTests {
    @Test func thousandCancelVersusCompleteRaces() throws {
        let server = try privateServer()
        defer { server.stop() }
        let client = try TestClient(config(base: server.baseURL))
        let request = try Request("GET", "/env/code/ok")
        let n = 1000
        let slots = (0..<n).map { _ in RaceSlot() }

        // Half: cancelled by the sending thread right after nc_client_send.
        // Half: cancelled by another thread while the sender goes on sending.
        let canceller = DispatchQueue(label: "canceller")
        let group = DispatchGroup()
        let clientHandle = Handle(client.handle)
        let requestHandle = Handle(request.handle)
        let refused = Box(0)
        let refusedLock = NSLock()
        onThreads(2) { worker in
            for i in stride(from: worker, to: n, by: 2) {
                var t: OpaquePointer?
                guard
                    nc_client_send(clientHandle.pointer, requestHandle.pointer, raceFn, slots[i].userdata, &t) == NC_OK,
                    let task = t
                else {
                    refusedLock.withLock { refused.value += 1 }
                    continue
                }
                if i % 4 < 2 {
                    nc_task_cancel(task)
                    slots[i].cancelReturned()
                    nc_task_free(task)
                } else {
                    let h = Handle(task)
                    group.enter()
                    canceller.async {
                        nc_task_cancel(h.pointer)
                        slots[i].cancelReturned()
                        nc_task_free(h.pointer)
                        group.leave()
                    }
                }
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        client.free()
        #expect(refused.value == 0)

        var succeeded = 0, cancelled = 0, other: [String] = []
        for (i, slot) in slots.enumerated() {
            #expect(slot.calls == 1, "request \(i) called back \(slot.calls) times")
            #expect(
                slot.callsWhenCancelReturned == 1,
                "request \(i): callback had not returned when nc_task_cancel returned")
            let r = slot.result
            if r.domain == 0 && r.data == #"{"id":7,"name":"Ada"}"# {
                succeeded += 1
            } else if r.domain == NC_DOMAIN_CLIENT && r.code == Int64(NC_CLIENT_CANCELLED)
                && (r.attempts == 0 || r.attempts == 1)
            {
                cancelled += 1
            } else {
                other.append("request \(i): domain \(r.domain) code \(r.code) attempts \(r.attempts)")
            }
        }
        #expect(other.isEmpty, "\(other.prefix(5))")
        #expect(succeeded + cancelled == n)
        #expect(cancelled > 0)
    }

    @Test func cancelOfAnInFlightRequestCompletesWithCancelledBeforeReturning() throws {
        let server = try privateServer()
        defer { server.stop() }
        let client = try TestClient(config(base: server.baseURL))
        let c = Collector()
        let (rc, t) = client.send(try Request("GET", "/slow?ms=5000"), c)
        #expect(rc == NC_OK)
        let task = try #require(t)
        // Cancel once the server has the request: the transfer is in flight.
        #expect(waitForServer(server, path: "/slow"))
        nc_task_cancel(task)
        #expect(c.calls == 1)   // the callback has returned
        let e = try #require(c.outcome?.error)
        #expect(e.isClient(NC_CLIENT_CANCELLED))
        #expect(e.domainName == "NCClientErrorDomain")
        #expect(e.codeStr == "1")
        #expect(e.attempts == 1)   // it was sent
        #expect(e.httpStatus == 0)
        #expect(!e.message.isEmpty)
        #expect(c.outcome?.response == nil)
        // Idempotent, and harmless after completion.
        nc_task_cancel(task)
        nc_task_cancel(task)
        client.free()
        nc_task_cancel(task)   // the task outlives its client
        nc_task_free(task)
        #expect(c.calls == 1)
    }

    @Test func cancelWhileWaitingForAConnectionCountsNoAttempt() throws {
        let server = try privateServer()
        defer { server.stop() }
        let client = try TestClient(config(base: server.baseURL, #""limits":{"max_connections_per_host":1}"#))
        defer { client.free() }
        let first = Collector(), second = Collector()
        let (_, t1) = client.send(try Request("GET", "/slow?ms=1000"), first)
        #expect(waitForServer(server, path: "/slow"))
        let (_, t2) = client.send(try Request("GET", "/slow?ms=1000&second=1"), second)
        let task2 = try #require(t2)
        nc_task_cancel(task2)   // still queued behind the only connection
        let e = try #require(second.outcome?.error)
        #expect(e.isClient(NC_CLIENT_CANCELLED))
        #expect(e.attempts == 0)
        #expect(serverStats(server).paths["/slow"] == 1)
        nc_task_free(task2)
        if let t1 { nc_task_cancel(t1); #expect(first.outcome?.error?.attempts == 1); nc_task_free(t1) }
    }

    @Test func cancelAfterCompletionKeepsTheRealResult() throws {
        let client = try TestClient(config())
        let c = Collector()
        let (_, t) = client.send(try Request("GET", "/env/code/ok"), c)
        let task = try #require(t)
        #expect(c.wait())
        nc_task_cancel(task)
        nc_task_cancel(task)
        client.free()
        nc_task_free(task)
        #expect(c.calls == 1)
        #expect(c.outcome?.error == nil)
        #expect(c.outcome?.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
    }

    @Test func cancelFromManyThreadsAtOnceCallsBackOnce() throws {
        let client = try TestClient(config())
        let c = Collector()
        let (_, t) = client.send(try Request("GET", "/slow?ms=3000"), c)
        let task = Handle(try #require(t))
        let sawCalls = Box([Int]())
        let lock = NSLock()
        onThreads(8) { _ in
            nc_task_cancel(task.pointer)
            let n = c.calls
            lock.withLock { sawCalls.value.append(n) }
        }
        #expect(sawCalls.value == [Int](repeating: 1, count: 8))
        client.free()
        nc_task_free(task.pointer)
        #expect(c.calls == 1)
        #expect(c.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
    }

    @Test func clientFreeWithRequestsInFlightCompletesEachWithShutdown() throws {
        let server = try privateServer()
        defer { server.stop() }
        // Five transfers on the wire (identical requests would share one: coalescing off).
        let client = try TestClient(config(base: server.baseURL, #""coalesce":false"#))
        let collectors = (0..<5).map { _ in Collector() }
        var tasks: [OpaquePointer] = []
        for c in collectors {
            let (rc, t) = client.send(try Request("GET", "/slow?ms=5000"), c)
            #expect(rc == NC_OK)
            if let t { tasks.append(t) }
        }
        #expect(waitForServer(server, path: "/slow", count: 5))
        // More requests that may not have started yet.
        let late = (0..<5).map { _ in Collector() }
        for c in late { client.send(try Request("GET", "/slow?ms=5000"), c, task: false) }
        client.free()   // the server would answer each in 5 s
        for (i, c) in (collectors + late).enumerated() {
            #expect(c.calls == 1, "request \(i)")
            let e = c.outcome?.error
            #expect(e?.isClient(NC_CLIENT_SHUTDOWN) == true, "request \(i): \(String(describing: e))")
            #expect(c.outcome?.response == nil)
        }
        for c in collectors { #expect(c.outcome?.error?.attempts == 1) }
        // Tasks stay valid after the client is gone.
        for t in tasks {
            nc_task_cancel(t)
            nc_task_free(t)
        }
        for c in collectors + late { #expect(c.calls == 1) }
    }

    @Test func cancelledRequestDoesNotDisturbOthersOnTheSameClient() throws {
        let client = try TestClient(config())
        let slow = Collector()
        let fast = Collector()
        let (_, t) = client.send(try Request("GET", "/slow?ms=3000"), slow)
        client.send(try Request("GET", "/env/code/ok"), fast, task: false)
        nc_task_cancel(t)
        nc_task_free(t)
        #expect(fast.wait())
        let after = try client.sync("/env/code/fail")
        client.free()
        #expect(slow.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
        #expect(fast.outcome?.error == nil)
        #expect(fast.outcome?.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
        #expect(after.error?.code == 1001)
    }

    @Test func cancelWaitsForARunningCallbackAndKeepsItsResult() throws {
        let client = try TestClient(config())
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let c = Collector { _, _ in
            entered.signal()
            _ = release.wait(timeout: .now() + 10)
        }
        let (_, t) = client.send(try Request("GET", "/env/code/ok"), c)
        let task = Handle(try #require(t))
        #expect(entered.wait(timeout: .now() + 10) == .success)
        let cancelReturned = Box(false)
        let callsSeenByCanceller = Box(-1)
        let cancelled = DispatchSemaphore(value: 0)
        Thread {
            nc_task_cancel(task.pointer)
            callsSeenByCanceller.value = c.calls
            cancelReturned.value = true
            cancelled.signal()
        }.start()
        usleep(100_000)   // timing is the subject: cancel must still be waiting
        #expect(cancelReturned.value == false)
        release.signal()
        #expect(cancelled.wait(timeout: .now() + 10) == .success)
        #expect(callsSeenByCanceller.value == 1)
        client.free()
        nc_task_free(task.pointer)
        #expect(c.calls == 1)
        #expect(c.outcome?.error == nil)   // the real result, not CANCELLED
        #expect(c.outcome?.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
    }

    @Test func clientFreeWaitsForARunningCallback() throws {
        let client = try TestClient(config())
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let c = Collector { _, _ in
            entered.signal()
            _ = release.wait(timeout: .now() + 10)
        }
        client.send(try Request("GET", "/env/code/ok"), c, task: false)
        #expect(entered.wait(timeout: .now() + 10) == .success)
        let freeReturned = Box(false)
        let freed = DispatchSemaphore(value: 0)
        Thread {
            client.free()
            freeReturned.value = true
            freed.signal()
        }.start()
        usleep(100_000)   // timing is the subject: free must still be waiting
        #expect(freeReturned.value == false)
        release.signal()
        #expect(freed.wait(timeout: .now() + 10) == .success)
        #expect(c.calls == 1)
        #expect(c.outcome?.error == nil)
    }

    @Test func clientFreeEndsABlockedSendSyncWithShutdown() throws {
        let server = try privateServer()
        defer { server.stop() }
        let client = try TestClient(config(base: server.baseURL))
        let handle = Handle(client.handle)
        let result = Box<Outcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            if let request = try? Request("GET", "/slow?ms=5000") {
                var r: OpaquePointer?
                var e: OpaquePointer?
                let rc = nc_client_send_sync(handle.pointer, request.handle, &r, &e)
                result.value = Outcome(rc: rc, response: r, error: e)
                nc_response_free(r)
                nc_error_free(e)
            }
            done.signal()
        }.start()
        #expect(waitForServer(server, path: "/slow"))
        client.free()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let o = try #require(result.value)
        #expect(o.rc == NC_ERR_FAILED)
        #expect(o.error?.isClient(NC_CLIENT_SHUTDOWN) == true, "\(o)")
        #expect(o.response == nil)
    }

    @Test func cancelsRacingClientFreeCallEachCallbackOnce() throws {
        let server = try privateServer()
        defer { server.stop() }
        let client = try TestClient(config(base: server.baseURL))
        let n = 40
        let slots = (0..<n).map { _ in RaceSlot() }
        let request = try Request("GET", "/slow?ms=2000")
        var tasks: [Handle] = []
        for slot in slots {
            var t: OpaquePointer?
            #expect(nc_client_send(client.handle, request.handle, raceFn, slot.userdata, &t) == NC_OK)
            if let t { tasks.append(Handle(t)) }
        }
        #expect(tasks.count == n)
        let all = tasks
        let go = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for w in 0..<4 {
            finished.enter()
            Thread {
                go.wait()
                for i in stride(from: w, to: n, by: 4) {
                    nc_task_cancel(all[i].pointer)
                    slots[i].cancelReturned()
                }
                finished.leave()
            }.start()
        }
        for _ in 0..<4 { go.signal() }
        client.free()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        for t in tasks { nc_task_free(t.pointer) }
        for (i, slot) in slots.enumerated() {
            #expect(slot.calls == 1, "request \(i)")
            #expect(slot.callsWhenCancelReturned == 1, "request \(i)")
            let r = slot.result
            #expect(r.domain == NC_DOMAIN_CLIENT, "request \(i)")
            #expect(
                r.code == Int64(NC_CLIENT_CANCELLED) || r.code == Int64(NC_CLIENT_SHUTDOWN), "request \(i): \(r.code)")
        }
    }
}
