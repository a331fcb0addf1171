import CCurlShim

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
    var progress: Progress?
    var body: Body?
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
        transferCallbacks = c.progress == nil && c.body == nil ? nil : c
    }

    /// Calls `fn(chunk, len, userdata)` with each chunk of a 2xx body as it arrives
    /// (see `setBodyHandler(_:)`); nil `fn` removes it.
    package mutating func setBodyCallback(fn: ncstream_fn?, userdata: UnsafeMutableRawPointer?, owner: AnyObject? = nil)
    {
        var c = transferCallbacks ?? TransferCallbacks()
        c.body = fn.map { TransferCallbacks.Body(fn: $0, userdata: userdata, owner: owner) }
        transferCallbacks = c.progress == nil && c.body == nil ? nil : c
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
        let box = ClosureBox(handler)
        setBodyCallback(
            fn: { chunk, len, ud in
                guard let ud else { return 1 }
                let f = Unmanaged<ClosureBox<@Sendable (UnsafeRawBufferPointer) -> Bool>>.fromOpaque(ud)
                    .takeUnretainedValue().f
                return f(UnsafeRawBufferPointer(start: chunk, count: len)) ? 0 : 1
            }, userdata: Unmanaged.passUnretained(box).toOpaque(), owner: box)
    }

    /// The request streams its body to a callback (raw mode, never coalesced).
    var streamsBody: Bool { transferCallbacks?.body != nil }
}

/// The per-transfer state of a request's callbacks (Transfer.extras): the progress
/// counters libcurl's xferinfo function updates and the body callback's forwarder.
/// Made only for requests that asked for one.
final class TransferExtras {
    let callbacks: TransferCallbacks
    let progress: UnsafeMutablePointer<ncprogress>?
    let stream: UnsafeMutablePointer<ncstream>?

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
            state.initialize(to: ncstream(fn: b.fn, userdata: b.userdata, delivered: 0))
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

    /// A chunk of the body reached the caller: the request is not retried.
    var delivered: Bool { (stream?.pointee.delivered ?? 0) != 0 }

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

extension EasyHandle {
    /// Sets the transfer's progress and body callbacks on this hop (cleared for the
    /// handle's next transfer by clearTransferExtras).
    func applyExtras(_ x: TransferExtras, download: Download?) {
        if let s = x.stream {
            sink.pointee.out_fn = ncstream_chunk
            sink.pointee.out_ud = UnsafeMutableRawPointer(s)
        }
        if let p = x.progress {
            p.pointee.dl = download.flatMap { $0.inPlace ? nil : UnsafePointer($0.state) }
            _ = ncprogress_install(handle, p)
            hasTransferExtras = true
        }
    }
}
