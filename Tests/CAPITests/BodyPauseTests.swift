// NC_BODY_PAUSE, nc_task_resume_body, nc_task_current and nc_request_set_head_callback
// (docs/transfers.md, "Pausing a body" and "The head first"), on the loop path
// (nc_client_send) and the synchronous path (nc_client_send_sync).
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A body callback that pauses: every `pauseEvery`-th call (up to `maxPauses`)
/// answers NC_BODY_PAUSE without taking the chunk, takes the task with
/// nc_task_current and hands it to `onPause`; everything else is appended.
final class PausingReader: @unchecked Sendable {
    let lock = NSLock()
    var bytes: [UInt8] = []
    var calls = 0
    var pauses = 0
    var pauseEvery = 3
    var maxPauses = Int.max
    var paused = false
    /// Chunks handed over while the reader had paused (libcurl must hand none).
    var callsWhilePaused = 0
    /// The chunk refused by the last pause, and whether the next chunk began with it.
    var refused: [UInt8] = []
    var handedAgain = 0
    var events: [String] = []
    var task: OpaquePointer?
    var currentStatus: nc_status = NC_OK
    var onPause: (Handle) -> Void = { _ in }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Resumes `task` after `delay` seconds from another thread.
    func resumeLater(_ task: Handle, after delay: Double = 0.01) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            self.lock.withLock { self.paused = false }
            _ = nc_task_resume_body(task.pointer)
        }
    }

    deinit { nc_task_free(task) }
}

let pausingFn: nc_body_fn = { chunk, len, ud in
    guard let ud else { return 1 }
    let r = Unmanaged<PausingReader>.fromOpaque(ud).takeUnretainedValue()
    let data = chunk.map { Array(UnsafeRawBufferPointer(start: $0, count: len)) } ?? []
    r.lock.lock()
    r.calls += 1
    r.events.append("chunk")
    if r.paused { r.callsWhilePaused += 1 }
    if !r.refused.isEmpty {
        let n = min(r.refused.count, data.count)
        if n > 0 && data.prefix(n).elementsEqual(r.refused.prefix(n)) { r.handedAgain += 1 }
        r.refused = []
    }
    if r.calls % r.pauseEvery == 0 && r.pauses < r.maxPauses {
        r.pauses += 1
        r.paused = true
        r.refused = data
        if r.task == nil {
            var t: OpaquePointer?
            r.currentStatus = nc_task_current(&t)
            r.task = t
        }
        let task = r.task
        r.lock.unlock()
        if let task { r.onPause(Handle(task)) }
        return Int32(NC_BODY_PAUSE)
    }
    r.bytes.append(contentsOf: data)
    r.lock.unlock()
    return 0
}

/// What a head callback saw, and when (`events`, shared with a PausingReader).
final class HeadLog: @unchecked Sendable {
    let lock = NSLock()
    var calls = 0
    var status: Int32 = 0
    var etag: String?
    var url: String?
    var httpVersion: String?
    var bodyLength = -1
    var hadTask = false
    var reader: PausingReader?
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

let headFn: nc_head_fn = { head, ud in
    guard let ud, let head else { return }
    let log = Unmanaged<HeadLog>.fromOpaque(ud).takeUnretainedValue()
    var n = -1
    _ = nc_response_body(head, &n)
    var task: OpaquePointer?
    let current = nc_task_current(&task)
    nc_task_free(task)
    log.lock.withLock {
        log.calls += 1
        log.status = nc_response_status(head)
        log.etag = string(nc_response_header(head, "etag"))
        log.url = string(nc_response_url(head))
        log.httpVersion = string(nc_response_http_version(head))
        log.bodyLength = n
        log.hadTask = current == NC_OK
    }
    log.reader?.lock.withLock { log.reader?.events.append("head") }
}

/// A value shared with a closure that runs on another thread.
private final class Shared<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: T
    init(_ value: T) { _value = value }
    var value: T {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
}

@Suite struct BodyPauseTests {
    let server = MockServer.shared

    enum Path: String, CaseIterable {
        case loop, sync
    }

    /// Sends `request` on `path`: the outcome, and the collector on the loop path
    /// (its calls are counted after a later request).
    func run(_ client: TestClient, _ request: Request, _ path: Path) -> (Outcome?, Collector?) {
        switch path {
        case .sync:
            return (client.sync(request), nil)
        case .loop:
            let c = Collector()
            let (rc, task) = client.send(request, c)
            nc_task_free(task)
            guard rc == NC_OK, c.wait(timeout: 60) else { return (nil, c) }
            return (c.outcome, c)
        }
    }

    @Test(arguments: Path.allCases)
    func pauseThenResumeDeliversEveryByteInOrderExactlyOnce(_ path: Path) throws {
        let n = 3_000_000
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let request = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=\(n)")
        let reader = PausingReader()
        reader.onPause = { [unowned reader] in reader.resumeLater($0) }
        #expect(nc_request_set_body_callback(request.handle, pausingFn, reader.userdata) == NC_OK)
        let (o, _) = run(client, request, path)
        #expect(o?.succeeded == true, "\(String(describing: o))")
        #expect(o?.response?.body.isEmpty == true)
        reader.lock.withLock {
            #expect(reader.bytes.count == n)
            #expect(reader.bytes == downloadContent(n), "every byte once, in order")
            #expect(reader.pauses > 5)
            #expect(reader.handedAgain == reader.pauses, "each refused chunk is handed over again")
            #expect(reader.callsWhilePaused == 0, "nothing is handed over while paused")
            #expect(reader.currentStatus == NC_OK)
        }
    }

    @Test(arguments: Path.allCases)
    func aPausedTransferIsNotEndedByTheIdleTimeout(_ path: Path) throws {
        let n = 400_000
        let client = try TestClient(config(envelope: nil, #""idle_timeout_ms":150"#))
        defer { client.free() }
        let request = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=\(n)")
        let reader = PausingReader()
        reader.pauseEvery = 1
        reader.maxPauses = 1
        let paused = DispatchSemaphore(value: 0)
        reader.onPause = { [unowned reader] task in
            // Six times the idle limit (four looks of the watch at least) before the resume.
            reader.resumeLater(task, after: 0.9)
            paused.signal()
        }
        #expect(nc_request_set_body_callback(request.handle, pausingFn, reader.userdata) == NC_OK)
        let other = Shared<Outcome?>(nil)
        if path == .loop {
            // While the stream is paused, another request of the client goes through.
            DispatchQueue.global().async {
                paused.wait()
                let c = Collector()
                if let r = try? Request("GET", "/dl/file?key=\(uniqueKey())&bytes=1000") {
                    let (rc, task) = client.send(r, c)
                    nc_task_free(task)
                    if rc == NC_OK && c.wait(timeout: 20) { other.value = c.outcome }
                }
                paused.signal()
            }
        }
        let (o, _) = run(client, request, path)
        #expect(o?.succeeded == true, "\(String(describing: o))")
        reader.lock.withLock {
            #expect(reader.bytes == downloadContent(n))
            #expect(reader.pauses == 1)
        }
        if path == .loop {
            paused.wait()
            #expect(other.value?.succeeded == true, "another request completes while one is paused")
            #expect(other.value?.response?.body == downloadContent(1000))
        }
        // Without a pause, the same limit ends a stalled transfer (the test can fail).
        let stalled = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=\(n)&stall_after=1000")
        let log = ChunkLog()
        #expect(nc_request_set_body_callback(stalled.handle, chunkFn, log.userdata) == NC_OK)
        let (s, _) = run(client, stalled, path)
        #expect(s?.error?.domain == NC_DOMAIN_TRANSPORT && s?.error?.code == 28, "\(String(describing: s))")
    }

    @Test(arguments: Path.allCases)
    func cancelWhilePausedCompletesOnceWithCancelled(_ path: Path) throws {
        let n = 2_000_000
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let request = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=\(n)")
        let reader = PausingReader()
        reader.pauseEvery = 4
        reader.maxPauses = 1
        let gotTask = DispatchSemaphore(value: 0)
        let cancelled = Shared<Handle?>(nil)
        reader.onPause = { task in
            cancelled.value = task
            gotTask.signal()
        }
        #expect(nc_request_set_body_callback(request.handle, pausingFn, reader.userdata) == NC_OK)
        let outcome: Outcome?
        var collector: Collector?
        switch path {
        case .loop:
            let c = Collector()
            let (rc, task) = client.send(request, c)
            #expect(rc == NC_OK)
            #expect(gotTask.wait(timeout: .now() + 20) == .success)
            if let task = cancelled.value { nc_task_cancel(task.pointer) }   // waits for the completion
            #expect(c.calls == 1, "the completion has run when nc_task_cancel returns")
            nc_task_free(task)
            outcome = c.outcome
            collector = c
        case .sync:
            DispatchQueue.global().async {
                if gotTask.wait(timeout: .now() + 20) == .success, let task = cancelled.value {
                    nc_task_cancel(task.pointer)   // never waits for a synchronous send
                }
            }
            outcome = client.sync(request)
        }
        #expect(outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true, "\(String(describing: outcome))")
        #expect(reader.lock.withLock { reader.bytes.count } < n)
        #expect(reader.lock.withLock { reader.callsWhilePaused } == 0)
        // The client (and on the synchronous path the same lane and easy handle) goes on.
        let again = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=\(n)")
        let log = ChunkLog()
        #expect(nc_request_set_body_callback(again.handle, chunkFn, log.userdata) == NC_OK)
        let (o, _) = run(client, again, path)
        #expect(o?.succeeded == true, "\(String(describing: o))")
        #expect(log.lock.withLock { log.bytes } == downloadContent(n))
        #expect(collector.map { $0.calls } ?? 1 == 1, "completed exactly once")
        // Resuming or cancelling the finished task does nothing.
        if let task = cancelled.value {
            #expect(nc_task_resume_body(task.pointer) == NC_ERR_INVALID_STATE)
            nc_task_cancel(task.pointer)
        }
    }

    @Test(arguments: Path.allCases)
    func resumeOnAFinishedTaskIsHarmless(_ path: Path) throws {
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let request = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=100000")
        let reader = PausingReader()
        reader.pauseEvery = 1
        reader.maxPauses = 1
        reader.onPause = { [unowned reader] in reader.resumeLater($0, after: 0) }
        #expect(nc_request_set_body_callback(request.handle, pausingFn, reader.userdata) == NC_OK)
        var loopTask: OpaquePointer?
        switch path {
        case .loop:
            // From its own completion: the request still counts as running, and
            // the resume finds nothing paused.
            let inCompletion = Shared<nc_status>(NC_ERR_FAILED)
            let c = Collector { _, _ in
                if let t = reader.lock.withLock({ reader.task }) { inCompletion.value = nc_task_resume_body(t) }
            }
            loopTask = client.send(request, c).1
            #expect(c.wait(timeout: 20))
            #expect(c.outcome?.succeeded == true)
            #expect(inCompletion.value == NC_OK)
            // Once the completion has returned: INVALID_STATE.
            #expect(waitUntil(timeout: 20) { nc_task_resume_body(loopTask) == NC_ERR_INVALID_STATE })
        case .sync:
            #expect(client.sync(request).succeeded)
        }
        let task = try #require(loopTask ?? reader.lock.withLock { reader.task })
        #expect(nc_task_resume_body(task) == NC_ERR_INVALID_STATE)
        #expect(nc_task_resume_body(task) == NC_ERR_INVALID_STATE)
        nc_task_free(loopTask)
        #expect(reader.lock.withLock { reader.bytes } == downloadContent(100_000))
    }

    @Test func resumeAndCurrentRefuseWhatTheyCannotUse() throws {
        #expect(nc_task_resume_body(nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_task_current(nil) == NC_ERR_INVALID_ARGUMENT)
        var t: OpaquePointer? = OpaquePointer(bitPattern: 0x1)
        #expect(nc_task_current(&t) == NC_ERR_INVALID_STATE, "outside a body or head callback")
        #expect(t == OpaquePointer(bitPattern: 0x1), "untouched")
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        // A request without a body callback has no body to resume.
        let plain = try Request("GET", "/slow?ms=300")
        let c = Collector()
        let (rc, task) = client.send(plain, c)
        #expect(rc == NC_OK)
        #expect(nc_task_resume_body(task) == NC_ERR_INVALID_ARGUMENT)
        #expect(c.wait(timeout: 20))
        nc_task_free(task)
        #expect(nc_request_set_head_callback(nil, headFn, nil) == NC_ERR_INVALID_ARGUMENT)
    }

    @Test(arguments: Path.allCases)
    func theHeadComesOnceBeforeTheFirstChunk(_ path: Path) throws {
        let key = uniqueKey()
        let n = 500_000
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        // Through a redirect: the head is the final response's, the 302 is not reported.
        let target = "/dl/file?key=\(key)&bytes=\(n)"
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let request = try Request("GET", "/redirect?to=\(encoded)")
        let reader = PausingReader()
        reader.maxPauses = 0
        let head = HeadLog()
        head.reader = reader
        #expect(nc_request_set_body_callback(request.handle, pausingFn, reader.userdata) == NC_OK)
        #expect(nc_request_set_head_callback(request.handle, headFn, head.userdata) == NC_OK)
        let (o, _) = run(client, request, path)
        #expect(o?.succeeded == true, "\(String(describing: o))")
        head.lock.withLock {
            #expect(head.calls == 1)
            #expect(head.status == 200)
            #expect(head.etag == "\"\(key)-\(n)-v1\"")
            #expect(head.url?.hasSuffix(target) == true, "\(head.url ?? "nil")")
            #expect(head.httpVersion == "HTTP/1.1")
            #expect(head.bodyLength == 0)
            #expect(head.hadTask, "nc_task_current works in a head callback")
        }
        reader.lock.withLock {
            #expect(reader.events.first == "head")
            #expect(reader.events.filter { $0 == "head" }.count == 1)
            #expect(reader.bytes == downloadContent(n))
        }
    }

    @Test(arguments: Path.allCases)
    func anEmptyBodyGetsItsHeadBeforeTheCompletionAndAnErrorNone(_ path: Path) throws {
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        // 204: a head and no chunk; the completion comes after.
        let empty = try Request("GET", "/status/204?body=empty")
        let head = HeadLog()
        #expect(nc_request_set_head_callback(empty.handle, headFn, head.userdata) == NC_OK)
        let order = NSLock()
        var headsAtCompletion = -1
        switch path {
        case .loop:
            let c = Collector { _, _ in order.withLock { headsAtCompletion = head.lock.withLock { head.calls } } }
            let (rc, task) = client.send(empty, c)
            nc_task_free(task)
            #expect(rc == NC_OK && c.wait(timeout: 20))
            #expect(c.outcome?.response?.status == 204)
        case .sync:
            let o = client.sync(empty)
            #expect(o.response?.status == 204, "\(o)")
            headsAtCompletion = head.lock.withLock { head.calls }
        }
        #expect(order.withLock { headsAtCompletion } == 1, "the head ran before the completion")
        #expect(head.lock.withLock { head.status } == 204)
        // An HTTP error: the completion carries it; no head.
        let missing = try Request("GET", "/status/404?body=text")
        let none = HeadLog()
        #expect(nc_request_set_head_callback(missing.handle, headFn, none.userdata) == NC_OK)
        let (e, _) = run(client, missing, path)
        #expect(e?.error?.domain == NC_DOMAIN_HTTP, "\(String(describing: e))")
        #expect(none.lock.withLock { none.calls } == 0)
        // A head callback alone: the body stays in memory as usual.
        let whole = try Request("GET", "/dl/file?key=\(uniqueKey())&bytes=70000")
        let alone = HeadLog()
        #expect(nc_request_set_head_callback(whole.handle, headFn, alone.userdata) == NC_OK)
        let (w, _) = run(client, whole, path)
        #expect(w?.response?.body == downloadContent(70000))
        #expect(alone.lock.withLock { alone.calls } == 1)
        // NULL removes it.
        #expect(nc_request_set_head_callback(whole.handle, nil, nil) == NC_OK)
        _ = run(client, whole, path)
        #expect(alone.lock.withLock { alone.calls } == 1)
    }
}
