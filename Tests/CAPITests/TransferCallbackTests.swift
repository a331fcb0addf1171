// nc_request_set_progress and nc_request_set_body_callback (docs/transfers.md).
import CNetCore
import Foundation
import MockServerSupport
import Testing

/// Every progress call of one request, with what it saw when it was called.
final class ProgressLog: @unchecked Sendable {
    struct Call: Equatable {
        var down: Int64, downTotal: Int64, up: Int64, upTotal: Int64
    }
    let lock = NSLock()
    var calls: [Call] = []
    /// Calls made after the completion had started to run.
    var afterCompletion = 0
    var completed = false
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

let progressFn: nc_progress_fn = { dn, dt, un, ut, ud in
    guard let ud else { return }
    let log = Unmanaged<ProgressLog>.fromOpaque(ud).takeUnretainedValue()
    log.lock.withLock {
        log.calls.append(.init(down: dn, downTotal: dt, up: un, upTotal: ut))
        if log.completed { log.afterCompletion += 1 }
    }
}

/// The chunks one body callback received; `abortAfter` bytes makes it return 1.
final class ChunkLog: @unchecked Sendable {
    let lock = NSLock()
    var bytes: [UInt8] = []
    var chunks = 0
    var abortAfter = Int.max
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

let chunkFn: nc_body_fn = { chunk, len, ud in
    guard let ud else { return 1 }
    let log = Unmanaged<ChunkLog>.fromOpaque(ud).takeUnretainedValue()
    return log.lock.withLock {
        log.chunks += 1
        if let chunk { log.bytes.append(contentsOf: UnsafeRawBufferPointer(start: chunk, count: len)) }
        return log.bytes.count >= log.abortAfter ? 1 : 0
    }
}

/// A progress log that also runs `check` inside each call.
final class ProgressProbe: @unchecked Sendable {
    let log: ProgressLog
    let check: () -> Void
    init(log: ProgressLog, check: @escaping () -> Void) {
        self.log = log
        self.check = check
    }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

let probeFn: nc_progress_fn = { dn, dt, un, ut, ud in
    guard let ud else { return }
    let probe = Unmanaged<ProgressProbe>.fromOpaque(ud).takeUnretainedValue()
    probe.check()
    progressFn(dn, dt, un, ut, probe.log.userdata)
}

@Suite struct TransferCallbackTests {
    let server = MockServer.shared

    func isMonotonic(_ calls: [ProgressLog.Call]) -> Bool {
        zip(calls, calls.dropFirst()).allSatisfy {
            $0.down <= $1.down && $0.downTotal <= $1.downTotal && $0.up <= $1.up && $0.upTotal <= $1.upTotal
        }
    }

    @Test func progressIsMonotonicThrottledAndEndsBeforeTheCompletion() throws {
        let n = 8_000_000
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let request = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=\(n)")
        let log = ProgressLog()
        #expect(nc_request_set_progress(request.handle, progressFn, log.userdata) == NC_OK)
        let c = Collector { _, _ in log.lock.withLock { log.completed = true } }
        let started = Date()
        client.send(request, c, task: false)
        #expect(c.wait(timeout: 30))
        let seconds = Date().timeIntervalSince(started)
        // Calls made after the completion would show up now (the same thread runs both).
        _ = try client.sync("/text")
        let calls = log.lock.withLock { log.calls }
        #expect(c.outcome?.error == nil, "\(String(describing: c.outcome))")
        #expect(calls.count >= 1)
        #expect(calls.count <= Int(seconds * 25) + 5, "\(calls.count) calls in \(seconds) s")
        #expect(isMonotonic(calls))
        #expect(calls.last == .init(down: Int64(n), downTotal: Int64(n), up: 0, upTotal: 0))
        #expect(log.lock.withLock { log.afterCompletion } == 0)
    }

    @Test func aResumedDownloadReportsTheWholeFile() throws {
        let dir = downloadDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("f.bin").path
        let key = uniqueKey(), n = 2_000_000
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        _ = try client.sync("/dl/cut?key=\(key)&bytes=\(n)") { _ = nc_request_set_output_file($0.handle, path) }
        let request = try Request("GET", "/dl/cut?key=\(key)&bytes=\(n)")
        #expect(nc_request_set_output_file(request.handle, path) == NC_OK)
        let log = ProgressLog()
        #expect(nc_request_set_progress(request.handle, progressFn, log.userdata) == NC_OK)
        let o = client.sync(request)
        #expect(o.response?.status == 206, "\(o)")
        let calls = log.lock.withLock { log.calls }
        #expect(isMonotonic(calls))
        // The first call with body bytes already counts the half in the .part.
        #expect(calls.first(where: { $0.down > 0 }).map { $0.down >= Int64(n / 2) } == true, "\(calls.prefix(3))")
        #expect(calls.last == .init(down: Int64(n), downTotal: Int64(n), up: 0, upTotal: 0))
    }

    @Test func aResumeAnsweredWithA200ReportsTheNewBodyOnly() throws {
        let dir = downloadDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("f.bin").path
        let key = uniqueKey(), n = 2_000_000
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        _ = try client.sync("/dl/cut?key=\(key)&bytes=\(n)") { _ = nc_request_set_output_file($0.handle, path) }
        // Another version: If-Range does not match, a 200 starts the .part over.
        let request = try Request("GET", "/dl/cut?key=\(key)&bytes=\(n)&version=2")
        #expect(nc_request_set_output_file(request.handle, path) == NC_OK)
        let log = ProgressLog()
        #expect(nc_request_set_progress(request.handle, progressFn, log.userdata) == NC_OK)
        let o = client.sync(request)
        #expect(o.response?.status == 200, "\(o)")
        let calls = log.lock.withLock { log.calls }
        #expect(isMonotonic(calls))
        #expect(calls.last == .init(down: Int64(n), downTotal: Int64(n), up: 0, upTotal: 0))
    }

    @Test func aRequestWithoutProgressIsNotReportedAndNullRemovesIt() throws {
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let request = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=100000")
        let log = ProgressLog()
        #expect(nc_request_set_progress(request.handle, progressFn, log.userdata) == NC_OK)
        #expect(nc_request_set_progress(request.handle, nil, nil) == NC_OK)
        #expect(nc_request_set_progress(nil, progressFn, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(client.sync(request).succeeded)
        // The same pooled handle, used again by a request with progress, then without.
        let with = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=100000")
        #expect(nc_request_set_progress(with.handle, progressFn, log.userdata) == NC_OK)
        #expect(client.sync(with).succeeded)
        let count = log.lock.withLock { log.calls.count }
        #expect(count >= 1)
        #expect(client.sync(request).succeeded)
        #expect(log.lock.withLock { log.calls.count } == count)
    }

    @Test func anUploadReportsItsBytesSent() throws {
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let request = try Request("POST", "/text")
        let n = 1_000_000
        #expect(request.body(String(repeating: "u", count: n), "text/plain") == NC_OK)
        let log = ProgressLog()
        #expect(nc_request_set_progress(request.handle, progressFn, log.userdata) == NC_OK)
        let o = client.sync(request)
        #expect(o.succeeded, "\(o)")
        let calls = log.lock.withLock { log.calls }
        #expect(isMonotonic(calls))
        #expect(calls.last?.up == Int64(n))
        #expect(calls.last?.upTotal == Int64(n))
    }

    @Test func inQueueModeProgressRunsOnTheTransferThreadBeforeTheQueuedCompletion() throws {
        let client = try TestClient(config(envelope: nil, #""callbacks":"queue""#))
        defer { client.free() }
        let request = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=2000000")
        let log = ProgressLog()
        #expect(nc_request_set_progress(request.handle, progressFn, log.userdata) == NC_OK)
        let me = pthread_self()
        let onMyThread = Box(0)
        let probe = ProgressProbe(log: log) { if pthread_equal(pthread_self(), me) != 0 { onMyThread.value += 1 } }
        #expect(nc_request_set_progress(request.handle, probeFn, probe.userdata) == NC_OK)
        let c = Collector { _, _ in log.lock.withLock { log.completed = true } }
        client.send(request, c, task: false)
        #expect(
            waitUntil(timeout: 20) {
                _ = nc_client_dispatch(client.handle)
                return c.calls == 1
            })
        let calls = log.lock.withLock { log.calls }
        #expect(!calls.isEmpty)
        #expect(calls.last?.down == 2_000_000)
        #expect(log.lock.withLock { log.afterCompletion } == 0)
        #expect(onMyThread.value == 0, "progress is not queued for dispatch")
    }

    @Test func aBodyCallbackGetsEveryByteInOrderAndTheResponseBodyIsEmpty() throws {
        let n = 3_000_000
        // An envelope client: the callback's request is read raw all the same.
        let client = try TestClient(config())
        defer { client.free() }
        let request = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=\(n)")
        let log = ChunkLog()
        #expect(nc_request_set_body_callback(request.handle, chunkFn, log.userdata) == NC_OK)
        let o = client.sync(request)
        #expect(o.succeeded, "\(o)")
        #expect(o.response?.status == 200)
        #expect(o.response?.body.isEmpty == true)
        #expect(log.lock.withLock { log.bytes } == downloadContent(n))
        #expect(log.lock.withLock { log.chunks } > 1)
    }

    @Test func returningNonZeroAbortsWithCancelled() throws {
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let request = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=5000000")
        let log = ChunkLog()
        log.abortAfter = 100_000
        #expect(nc_request_set_body_callback(request.handle, chunkFn, log.userdata) == NC_OK)
        let o = client.sync(request)
        #expect(o.error?.isClient(NC_CLIENT_CANCELLED) == true, "\(o)")
        let received = log.lock.withLock { log.bytes.count }
        #expect(received >= 100_000 && received < 5_000_000)
    }

    @Test func anHTTPErrorKeepsItsBodyForTheErrorAndTheCallbackSeesNothing() throws {
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let request = try Request("GET", "/status/404?body=text")
        let log = ChunkLog()
        #expect(nc_request_set_body_callback(request.handle, chunkFn, log.userdata) == NC_OK)
        let o = client.sync(request)
        #expect(o.error?.domain == NC_DOMAIN_HTTP)
        #expect(o.error?.body?.isEmpty == false)
        #expect(log.lock.withLock { log.chunks } == 0)
    }

    @Test func aCutStreamIsNotRetriedOnceAChunkWasDelivered() throws {
        let key = uniqueKey()
        let client = try TestClient(config(envelope: nil, #""retry":{"max_attempts":3,"backoff":"immediate"}"#))
        defer { client.free() }
        let request = try Request("GET", "/dl/cut?key=\(key)&bytes=1000000")
        let log = ChunkLog()
        #expect(nc_request_set_body_callback(request.handle, chunkFn, log.userdata) == NC_OK)
        let o = client.sync(request)
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT, "\(o)")
        #expect(o.error?.attempts == 1)
        #expect(downloadStats(key)["requests"] as? Int == 1)
    }

    @Test func identicalStreamingRequestsAreNotCoalesced() throws {
        let key = uniqueKey()
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let logs = [ChunkLog(), ChunkLog()]
        var requests: [Request] = []
        let collectors = [Collector(), Collector()]
        for i in 0..<2 {
            let r = try Request("GET", "/dl/file?key=\(key)&bytes=300000&stall_after=0")
            #expect(nc_request_set_body_callback(r.handle, chunkFn, logs[i].userdata) == NC_OK)
            requests.append(r)
        }
        var tasks: [OpaquePointer?] = []
        for i in 0..<2 { tasks.append(client.send(requests[i], collectors[i]).1) }
        #expect(waitUntil(timeout: 20) { downloadStats(key)["requests"] as? Int == 2 })
        for t in tasks {
            nc_task_cancel(t)
            nc_task_free(t)
        }
        for c in collectors { #expect(c.wait()) }
    }
}
