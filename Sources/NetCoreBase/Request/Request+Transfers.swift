import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// How far a transfer got (nc_request_set_progress): bytes received and sent, and
/// the totals when known (0: unknown). A resumed download counts the whole file.
public struct TransferProgress: Sendable, Equatable {
    /// Body bytes received so far (a resumed download's earlier bytes included).
    public var downloaded: Int64
    /// The body's expected size, 0 when unknown.
    public var downloadTotal: Int64
    /// Request body bytes sent so far.
    public var uploaded: Int64
    /// The request body's size, 0 when there is none or it is unknown.
    public var uploadTotal: Int64

    /// A progress report of these counts.
    public init(downloaded: Int64, downloadTotal: Int64, uploaded: Int64, uploadTotal: Int64) {
        self.downloaded = downloaded
        self.downloadTotal = downloadTotal
        self.uploaded = uploaded
        self.uploadTotal = uploadTotal
    }
}

/// What a request asked to see while it transfers: its progress, its 2xx body as
/// chunks. Each is a C function and its userdata (the C API passes the caller's
/// own; a Swift closure goes through a trampoline and `owner` keeps it alive).
/// Nil on a request that asked for neither, so the others cost nothing.
package struct TransferCallbacks: Sendable {
    package struct Progress: @unchecked Sendable {
        let fn: ncprogress_fn
        let userdata: UnsafeMutableRawPointer?
        let owner: AnyObject?
    }
    package struct Body: @unchecked Sendable {
        let fn: ncstream_fn
        let userdata: UnsafeMutableRawPointer?
        let owner: AnyObject?
    }
    /// The head callback: `fn(response, userdata)` with the response unretained
    /// (nc_response's pointer; module CNetAPI casts its nc_head_fn to this).
    package typealias HeadFn = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Void
    package struct Head: @unchecked Sendable {
        let fn: HeadFn
        let userdata: UnsafeMutableRawPointer?
        let owner: AnyObject?
    }
    var progress: Progress?
    var body: Body?
    var head: Head?

    var isEmpty: Bool { progress == nil && body == nil && head == nil }
}

/// A Swift closure behind a C callback's userdata.
private final class ClosureBox<F>: @unchecked Sendable {
    let f: F
    init(_ f: F) { self.f = f }
}

extension Request {
    /// Calls `fn(down_now, down_total, up_now, up_total, userdata)` while the
    /// request transfers (see `setProgress(_:)`); nil `fn` removes it.
    package mutating func setProgress(fn: ncprogress_fn?, userdata: UnsafeMutableRawPointer?, owner: AnyObject? = nil) {
        var c = transferCallbacks ?? TransferCallbacks()
        c.progress = fn.map { TransferCallbacks.Progress(fn: $0, userdata: userdata, owner: owner) }
        transferCallbacks = c.isEmpty ? nil : c
    }

    /// Calls `fn(chunk, len, userdata)` with each chunk of a 2xx body as it arrives
    /// (see `setBodyHandler(_:)`); nil `fn` removes it.
    package mutating func setBodyCallback(fn: ncstream_fn?, userdata: UnsafeMutableRawPointer?, owner: AnyObject? = nil)
    {
        var c = transferCallbacks ?? TransferCallbacks()
        c.body = fn.map { TransferCallbacks.Body(fn: $0, userdata: userdata, owner: owner) }
        transferCallbacks = c.isEmpty ? nil : c
    }

    /// Calls `fn(response, userdata)` once with the head of the 2xx response whose
    /// body the request receives (see `setHeadHandler(_:)`); nil `fn` removes it.
    package mutating func setHeadCallback(
        fn: TransferCallbacks.HeadFn?, userdata: UnsafeMutableRawPointer?, owner: AnyObject? = nil
    ) {
        var c = transferCallbacks ?? TransferCallbacks()
        c.head = fn.map { TransferCallbacks.Head(fn: $0, userdata: userdata, owner: owner) }
        transferCallbacks = c.isEmpty ? nil : c
    }

    /// Hands `handler` the head of the 2xx response whose body this request
    /// receives — status, headers, URL, HTTP version; an empty body — once, as soon
    /// as its header block has ended: before the first chunk of a body handler (and
    /// before the completion when the body is empty). Redirect hops, interim (1xx)
    /// responses and statuses other than 2xx do not call it (the completion carries
    /// them). Once it ran, the request is not retried, as after a body chunk. On
    /// the transfer thread; never coalesced. Nil removes it.
    public mutating func setHeadHandler(_ handler: (@Sendable (Response) -> Void)?) {
        guard let handler else {
            setHeadCallback(fn: nil, userdata: nil)
            return
        }
        let box = ClosureBox(handler)
        setHeadCallback(
            fn: { response, ud in
                guard let ud, let response else { return }
                let f = Unmanaged<ClosureBox<@Sendable (Response) -> Void>>.fromOpaque(ud).takeUnretainedValue().f
                f(Unmanaged<Response>.fromOpaque(response).takeUnretainedValue())
            }, userdata: Unmanaged.passUnretained(box).toOpaque(), owner: box)
    }

    /// Reports the transfer's progress to `handler`: at most about 20 times a
    /// second, values that never go backwards (a retry or redirect holds them until
    /// the new hop passes them), never after the completion, on the transfer thread
    /// (docs/transfers.md). Nil removes it.
    public mutating func setProgress(_ handler: (@Sendable (TransferProgress) -> Void)?) {
        guard let handler else {
            setProgress(fn: nil, userdata: nil)
            return
        }
        let box = ClosureBox(handler)
        setProgress(
            fn: { dn, dt, un, ut, ud in
                guard let ud else { return }
                Unmanaged<ClosureBox<@Sendable (TransferProgress) -> Void>>.fromOpaque(ud).takeUnretainedValue().f(
                    TransferProgress(downloaded: dn, downloadTotal: dt, uploaded: un, uploadTotal: ut))
            }, userdata: Unmanaged.passUnretained(box).toOpaque(), owner: box)
    }

    /// Hands each chunk of a 2xx body to `handler` as it arrives instead of keeping
    /// it (the response's body is then empty; raw mode; never coalesced; not
    /// retried once a chunk was delivered). Returning false aborts the transfer:
    /// it completes with `NetError.cancelled`. Bodies of other statuses stay in
    /// memory for the error. The buffer is valid during the call only. Nil removes it.
    public mutating func setBodyHandler(_ handler: (@Sendable (UnsafeRawBufferPointer) -> Bool)?) {
        guard let handler else {
            setBodyCallback(fn: nil, userdata: nil)
            return
        }
        setBodyHandler { (chunk: UnsafeRawBufferPointer) -> BodyAnswer in handler(chunk) ? .more : .abort }
    }

    /// What a body handler answers for a chunk (`setBodyHandler(_:)`'s answer form).
    public enum BodyAnswer: Sendable {
        /// Go on.
        case more
        /// Abort: the request completes with `NetError.cancelled`.
        case abort
        /// Pause the transfer (NC_BODY_PAUSE): libcurl keeps this chunk and reads
        /// nothing more until `Transfer.resumeBody()`, then hands the same chunk
        /// over again. The idle limit does not count the pause; the total timeout
        /// and the deadline do.
        case pause
    }

    /// `setBodyHandler(_:)` whose handler may also pause the transfer (`.pause`).
    public mutating func setBodyHandler(_ handler: @escaping @Sendable (UnsafeRawBufferPointer) -> BodyAnswer) {
        let box = ClosureBox(handler)
        setBodyCallback(
            fn: { chunk, len, ud in
                guard let ud else { return 1 }
                let f = Unmanaged<ClosureBox<@Sendable (UnsafeRawBufferPointer) -> BodyAnswer>>.fromOpaque(ud)
                    .takeUnretainedValue().f
                switch f(UnsafeRawBufferPointer(start: chunk, count: len)) {
                case .more: return 0
                case .abort: return 1
                case .pause: return Int32(NCSINK_BODY_PAUSE)
                }
            }, userdata: Unmanaged.passUnretained(box).toOpaque(), owner: box)
    }

    /// The request streams its body to a callback (raw mode, never coalesced).
    var streamsBody: Bool { transferCallbacks?.body != nil }
}

/// The per-transfer state of a request's callbacks (Transfer.extras): the progress
/// counters libcurl's xferinfo function updates, the body callback's forwarder, the
/// head callback's state and a paused body's resume. Made only for requests that
/// asked for one.
final class TransferExtras {
    let callbacks: TransferCallbacks
    let progress: UnsafeMutablePointer<ncprogress>?
    let stream: UnsafeMutablePointer<ncstream>?
    /// The head callback ran (once per send; the request is then not retried).
    /// Driving thread.
    var headSeen = false
    /// The hop the head callback reads (applyExtras): its handle and URL, and the
    /// transfer (unretained: it owns `self`). Driving thread.
    unowned(unsafe) var hopEasy: EasyHandle?
    var hopURL: CString?
    var task: UnsafeMutableRawPointer?

    // A synchronous send's side of nc_task_resume_body and nc_task_cancel (SyncLanes.swift),
    // guarded by the loop's monitor: the lane driving it (nil before and after),
    // what was asked, and whether the send has returned.
    var lane: SyncLane?
    var laneResume = false
    var laneCancel = false
    var laneEnded = false

    init(_ c: TransferCallbacks) {
        callbacks = c
        if let p = c.progress {
            let state = UnsafeMutablePointer<ncprogress>.allocate(capacity: 1)
            state.initialize(to: ncprogress())
            state.pointee.fn = p.fn
            state.pointee.userdata = p.userdata
            progress = state
        } else {
            progress = nil
        }
        if let b = c.body {
            let state = UnsafeMutablePointer<ncstream>.allocate(capacity: 1)
            state.initialize(to: ncstream(fn: b.fn, userdata: b.userdata, delivered: 0, task: nil))
            stream = state
        } else {
            stream = nil
        }
    }

    deinit {
        progress?.deinitialize(count: 1)
        progress?.deallocate()
        stream?.deinitialize(count: 1)
        stream?.deallocate()
    }

    /// A chunk of the body or the head reached the caller: the request is not retried.
    var delivered: Bool { headSeen || (stream?.pointee.delivered ?? 0) != 0 }

    /// The sink's head callback (ncsink.h): the head of the hop's 2xx response,
    /// borrowed by the caller's function for the call. Driving thread.
    fileprivate func deliverHead() {
        guard let head = callbacks.head, !headSeen, let easy = hopEasy, let url = hopURL else { return }
        headSeen = true
        let sink = easy.sink
        var status: Int = 0
        var version: Int = 0
        _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_RESPONSE_CODE, &status)
        _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_HTTP_VERSION, &version)
        var headers = HeaderStore()
        var keep = NetBytes()
        let count = sink.pointee.head_len
        if count > 0, let lines = sink.pointee.head, let copy = malloc(count + 1) {
            memcpy(copy, lines, count)
            copy.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
            keep = NetBytes(adopting: copy.assumingMemoryBound(to: UInt8.self), count: count, capacity: count + 1)
            headers = HeaderStore(
                lines: copy.assumingMemoryBound(to: CChar.self), count: count, owner: keep)
        }
        let response = Response(
            status: Int32(clamping: status), headers: headers, body: NetBytes(), url: url, json: nil, source: .body)
        response.completionInfo.httpVersion = HTTPVersionSeen(curl: version)
        withExtendedLifetime(keep) {
            let previous = ncstream_enter(task)
            head.fn(UnsafeRawPointer(Unmanaged.passUnretained(response).toOpaque()), head.userdata)
            ncstream_leave(previous)
        }
        withExtendedLifetime(response) {}
    }

    /// The last progress values, if not reported yet: before the completion.
    func finish() { if let progress { ncprogress_flush(progress) } }

    /// The answer is a stored body of `bytes` bytes (served without a transfer, or
    /// after a 304): the progress reports it whole, `bytes` of `bytes`, in the last
    /// call before the completion (`finish`). An empty body is not reported, as on
    /// the network.
    func servedFromCache(bytes: Int) {
        guard let p = progress else { return }
        let n = Int64(bytes)
        if n > p.pointee.seen.0 { p.pointee.seen.0 = n }
        if n > p.pointee.seen.1 { p.pointee.seen.1 = n }
    }
}

/// The sink's head_fn: the TransferExtras is its userdata.
private func headTrampoline(_ ud: UnsafeMutableRawPointer?) {
    guard let ud else { return }
    Unmanaged<TransferExtras>.fromOpaque(ud).takeUnretainedValue().deliverHead()
}

extension EasyHandle {
    /// Sets the transfer's progress, body and head callbacks on this hop of `t`
    /// (cleared for the handle's next transfer by ncsink_reset and
    /// clearTransferExtras).
    func applyExtras(_ x: TransferExtras, for t: Transfer, _ p: PreparedRequest) {
        let download = t.download
        let me = Unmanaged.passUnretained(t).toOpaque()
        if let s = x.stream {
            s.pointee.task = me
            sink.pointee.out_fn = ncstream_chunk
            sink.pointee.out_ud = UnsafeMutableRawPointer(s)
        }
        if x.callbacks.head != nil && !x.headSeen {
            x.hopEasy = self
            x.hopURL = p.url
            x.task = me
            sink.pointee.head_fn = headTrampoline
            sink.pointee.head_ud = Unmanaged.passUnretained(x).toOpaque()
        }
        if let p = x.progress {
            p.pointee.dl = download.flatMap { $0.inPlace ? nil : UnsafePointer($0.state) }
            _ = ncprogress_install(handle, p)
            hasTransferExtras = true
        }
    }
}
