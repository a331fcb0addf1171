// Batches through the C API (netcore.h "Batches"): one completion when every member
// has ended, results in the order added, fail-fast cancels the rest, cancelling the
// batch's task cancels its members, the handle may be freed after sending, bad
// arguments change nothing, queue mode completes inside nc_client_dispatch().
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Collects a batch's completions: how often, on which thread, which handle, and a
/// snapshot of every member's result taken inside the callback.
final class BatchCollector: @unchecked Sendable {
    private let cond = NSCondition()
    private var _calls = 0
    private var _results: [Outcome] = []
    private var _threads: [pthread_t] = []
    private var _handle: OpaquePointer?

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    fileprivate func complete(_ batch: OpaquePointer?) {
        let n = nc_batch_count(batch)
        let results = (0..<n).map { Outcome(response: nc_batch_response(batch, $0), error: nc_batch_error(batch, $0)) }
        cond.withLock {
            _calls += 1
            if _calls == 1 {
                _results = results
                _handle = batch
            }
            _threads.append(pthread_self())
            cond.broadcast()
        }
    }

    var calls: Int { cond.withLock { _calls } }
    var results: [Outcome] { cond.withLock { _results } }
    var threads: [pthread_t] { cond.withLock { _threads } }
    var handle: OpaquePointer? { cond.withLock { _handle } }

    @discardableResult
    func wait(timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock()
        defer { cond.unlock() }
        while _calls == 0 {
            if !cond.wait(until: deadline) { return _calls > 0 }
        }
        return true
    }
}

let batchFn: nc_batch_fn = { batch, userdata in
    guard let userdata else { return }
    Unmanaged<BatchCollector>.fromOpaque(userdata).takeUnretainedValue().complete(batch)
}

/// A new batch of GET `paths` (the requests are freed as soon as they are added).
private func makeBatch(_ client: TestClient, _ policy: Int32, _ paths: [String]) throws -> OpaquePointer {
    var b: OpaquePointer?
    #expect(nc_batch_new(client.handle, policy, &b) == NC_OK)
    let batch = try #require(b)
    for p in paths {
        let r = try Request("GET", p)
        #expect(nc_batch_add(batch, r.handle) == NC_OK)
    }
    #expect(nc_batch_count(batch) == paths.count)
    return batch
}

@Suite struct BatchTests {
    @Test func settleKeepsTheOrderWithMixedResults() throws {
        let client = try TestClient(config())
        defer { client.free() }
        let paths = [
            "/echo?i=0", "/status/404", "/slow?ms=150", "/env/code/fail", "/echo?i=4", "http://127.0.0.1:1/refused"
        ]
        let batch = try makeBatch(client, NC_BATCH_SETTLE, paths)
        let c = BatchCollector()
        var task: OpaquePointer?
        #expect(nc_batch_send(batch, batchFn, c.userdata, &task) == NC_OK)
        #expect(c.wait())
        let r = c.results
        try #require(r.count == paths.count)
        #expect(r[0].succeeded && r[0].echo?["raw_path"] as? String == "/echo?i=0", "\(r[0])")
        #expect(r[1].error?.domain == NC_DOMAIN_HTTP && r[1].error?.code == 404 && r[1].response?.status == 404)
        #expect(r[2].succeeded && r[2].data == #"{"slept_ms":150}"#, "\(r[2])")
        #expect(r[3].error?.domain == NC_DOMAIN_API, "\(r[3])")
        #expect(r[4].succeeded && r[4].echo?["raw_path"] as? String == "/echo?i=4", "\(r[4])")
        #expect(r[5].error?.domain == NC_DOMAIN_TRANSPORT && r[5].error?.code == 7, "\(r[5])")
        // After the callback, from this thread, the same results.
        #expect(nc_batch_response(batch, 0) != nil && nc_batch_error(batch, 0) == nil)
        #expect(nc_batch_response(batch, 5) == nil && nc_batch_error(batch, 5) != nil)
        #expect(nc_batch_error(batch, 5) == nc_batch_error(batch, 5))   // one handle, lent out
        #expect(nc_batch_response(batch, 6) == nil && nc_batch_error(batch, 6) == nil)
        #expect(nc_task_id(task) == 0)
        nc_task_free(task)
        nc_batch_free(batch)
        client.free()
        #expect(c.calls == 1)
    }

    @Test func failFastCancelsTheRest() throws {
        let client = try TestClient(config())
        defer { client.free() }
        let key = uniqueKey()
        // /flaky with fails=1 status 500 fails at once; the slow ones are cancelled.
        let paths = ["/slow?ms=10000", "/flaky?key=\(key)&fails=1&status=500", "/slow?ms=10000", "/slow?ms=10000"]
        let batch = try makeBatch(client, NC_BATCH_FAIL_FAST, paths)
        let c = BatchCollector()
        #expect(nc_batch_send(batch, batchFn, c.userdata, nil) == NC_OK)
        nc_batch_free(batch)
        #expect(c.wait(timeout: 8))   // long before the slow ones would answer
        let r = c.results
        try #require(r.count == 4)
        #expect(r[1].error?.domain == NC_DOMAIN_HTTP && r[1].error?.code == 500, "\(r[1])")
        for i in [0, 2, 3] { #expect(r[i].error?.isClient(NC_CLIENT_CANCELLED) == true, "\(i): \(r[i])") }
        client.free()
        #expect(c.calls == 1)
    }

    @Test func failFastAfterTheLastFailureChangesNothing() throws {
        // Every member fails: each reports its own error (none is left to cancel at the end).
        let client = try TestClient(config())
        defer { client.free() }
        let batch = try makeBatch(client, NC_BATCH_FAIL_FAST, ["/status/404"])
        let c = BatchCollector()
        #expect(nc_batch_send(batch, batchFn, c.userdata, nil) == NC_OK)
        #expect(c.wait())
        #expect(c.results.first?.error?.code == 404)
        nc_batch_free(batch)
    }

    @Test(arguments: ["loop", "queue"])
    func cancellingTheTaskCancelsEveryMember(mode: String) throws {
        let client = try TestClient(
            config(base: MockServer.shared.baseURL, envelope: Envelope.a, #""callbacks":"\#(mode)""#))
        defer { client.free() }
        let batch = try makeBatch(client, NC_BATCH_SETTLE, ["/slow?ms=10000", "/slow?ms=10000", "/slow?ms=10000"])
        let c = BatchCollector()
        var task: OpaquePointer?
        #expect(nc_batch_send(batch, batchFn, c.userdata, &task) == NC_OK)
        nc_batch_free(batch)
        usleep(100_000)
        nc_task_cancel(task)
        if mode == "queue" {
            let fd = nc_client_fd(client.handle)
            while c.calls == 0 {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 8_000) == 1 else { break }
                #expect(nc_client_dispatch(client.handle) == NC_OK)
            }
        }
        #expect(c.calls == 1)   // loop mode: done when nc_task_cancel returns
        #expect(c.results.count == 3)
        for r in c.results { #expect(r.error?.isClient(NC_CLIENT_CANCELLED) == true, "\(r)") }
        nc_task_cancel(task)   // idempotent
        nc_task_free(task)
        client.free()
        #expect(c.calls == 1)
    }

    @Test func freedAfterSendTheCallbackGetsTheSameHandle() throws {
        let client = try TestClient(config())
        defer { client.free() }
        let batch = try makeBatch(client, NC_BATCH_SETTLE, ["/slow?ms=100", "/echo"])
        let c = BatchCollector()
        #expect(nc_batch_send(batch, batchFn, c.userdata, nil) == NC_OK)
        nc_batch_free(batch)
        #expect(c.wait())
        #expect(c.handle == batch)
        #expect(c.results.count == 2 && c.results.allSatisfy(\.succeeded))
        client.free()
        #expect(c.calls == 1)
    }

    @Test func anEmptyBatchCompletesAtOnceOnTheTransferThread() throws {
        let client = try TestClient(config())
        defer { client.free() }
        let batch = try makeBatch(client, NC_BATCH_FAIL_FAST, [])
        let c = BatchCollector()
        #expect(nc_batch_send(batch, batchFn, c.userdata, nil) == NC_OK)
        #expect(c.wait())
        #expect(c.results.isEmpty)
        #expect(c.threads.allSatisfy { pthread_equal($0, pthread_self()) == 0 })
        let late = try Request("GET", "/echo")
        #expect(nc_batch_add(batch, late.handle) == NC_ERR_INVALID_STATE)
        #expect(nc_batch_count(batch) == 0)
        nc_batch_free(batch)
        client.free()
        #expect(c.calls == 1)
    }

    @Test func queueModeCompletesInsideDispatchAfterTheLastMember() throws {
        let client = try TestClient(
            config(base: MockServer.shared.baseURL, envelope: Envelope.a, #""callbacks":"queue""#))
        defer { client.free() }
        let batch = try makeBatch(client, NC_BATCH_SETTLE, ["/echo?i=0", "/slow?ms=100", "/status/500"])
        let c = BatchCollector()
        #expect(nc_batch_send(batch, batchFn, c.userdata, nil) == NC_OK)
        nc_batch_free(batch)
        let fd = nc_client_fd(client.handle)
        usleep(300_000)
        #expect(c.calls == 0)   // only inside dispatch
        while c.calls == 0 {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 10_000) == 1 else { break }
            #expect(nc_client_dispatch(client.handle) == NC_OK)
        }
        #expect(c.calls == 1)
        #expect(c.threads.count == 1 && pthread_equal(c.threads[0], pthread_self()) != 0)
        #expect(c.results.map { $0.error?.code ?? 0 } == [0, 0, 500])
    }

    @Test func badArgumentsChangeNothing() throws {
        let client = try TestClient(config())
        defer { client.free() }
        var b: OpaquePointer? = nil
        #expect(nc_batch_new(nil, NC_BATCH_SETTLE, &b) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_batch_new(client.handle, 2, &b) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_batch_new(client.handle, -1, &b) == NC_ERR_INVALID_ARGUMENT)
        #expect(b == nil)
        #expect(nc_batch_new(client.handle, NC_BATCH_SETTLE, nil) == NC_ERR_INVALID_ARGUMENT)
        let batch = try makeBatch(client, NC_BATCH_SETTLE, ["/echo"])
        let r = try Request("GET", "/echo")
        #expect(nc_batch_add(nil, r.handle) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_batch_add(batch, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_batch_count(batch) == 1)
        #expect(nc_batch_send(nil, batchFn, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        var task: OpaquePointer? = nil
        #expect(nc_batch_send(batch, nil, nil, &task) == NC_ERR_INVALID_ARGUMENT)
        #expect(task == nil)
        #expect(nc_batch_response(batch, 0) == nil && nc_batch_error(batch, 0) == nil)   // not sent
        #expect(nc_batch_count(nil) == 0)
        #expect(nc_batch_response(nil, 0) == nil && nc_batch_error(nil, 0) == nil)
        nc_batch_free(nil)
        // Sent once; a second send and a later add are refused and change nothing.
        let c = BatchCollector()
        #expect(nc_batch_send(batch, batchFn, c.userdata, nil) == NC_OK)
        #expect(nc_batch_send(batch, batchFn, c.userdata, &task) == NC_ERR_INVALID_STATE)
        #expect(task == nil)
        #expect(nc_batch_add(batch, r.handle) == NC_ERR_INVALID_STATE)
        #expect(nc_batch_count(batch) == 1)
        #expect(c.wait())
        #expect(c.results.count == 1 && c.results[0].succeeded)
        nc_batch_free(batch)
        // A client shutting down refuses the batch: fn never runs.
        let gone = try TestClient(config())
        let late = try makeBatch(gone, NC_BATCH_SETTLE, ["/echo"])
        gone.free()
        let never = BatchCollector()
        #expect(nc_batch_send(late, batchFn, never.userdata, nil) == NC_ERR_INVALID_STATE)
        #expect(nc_batch_add(late, r.handle) == NC_OK)   // still unsent
        nc_batch_free(late)
        #expect(never.calls == 0)
        client.free()
        #expect(c.calls == 1)
    }
}
