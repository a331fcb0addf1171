import CCurlShim
#if canImport(Glibc)
import Glibc
#endif

/// One sent request: what to send, where its bytes arrive, and its single
/// completion. The caller's task handle is a reference to it.
///
/// Threads: receive state is touched only by the client's transfer thread;
/// `done` and `cancelRequested` are guarded by the loop's monitor.
public final class Transfer: @unchecked Sendable {
    /// The completion, given the transfer itself (whose `foreign` words a
    /// non-capturing completion reads), the response and the error.
    public typealias Deliver = (Transfer, Response?, NetError?) -> Void

    /// What is being sent; replaced by each redirect hop (transfer thread only).
    var prepared: PreparedRequest?
    /// Redirects followed so far (transfer thread only).
    var redirects: Int32 = 0
    /// When the first hop launched (monotonic ms, Transfer+TotalTimeout.swift):
    /// timeout_ms bounds all hops together (transfer thread only).
    var startedAtMs: Int64 = 0
    /// Set when the request could not be built: completes with it, sends nothing.
    let presetError: NetError?
    /// The completion. Set before the transfer is submitted and not changed after
    /// (the async API fills it in once it has its continuation).
    var deliver: Deliver
    /// Two words for a completion that is not a Swift closure — the C API's function
    /// pointer and userdata — so a send allocates no closure context.
    public let foreign: (UnsafeRawPointer?, UnsafeMutableRawPointer?)
    let loop: TransferLoop

    // Guarded by loop.monitor.
    var done = false
    var cancelRequested = false
    /// The async API's outcome, handed from the completion to the awaiting task.
    var published: Result<Response, NetError>?
    /// The async API's waiting task: set before submission, resumed once by the
    /// completion (a field rather than a closure capture, so no context is allocated).
    var waiter: UnsafeContinuation<Void, Never>?
    /// The waiting task runs on the client's executor (the loop thread): resumed at
    /// once rather than batched (TransferLoop.deferResume). Set before submission.
    var waiterOnLoop = false
    /// Set by the loop thread when it takes the transfer with a cancel already asked.
    var cancelledBeforeStart = false

    // Transfer thread only.
    var easy: EasyHandle?
    /// The output file (Request.outputPath) while the transfer runs; -1 otherwise.
    var outputFD: Int32 = -1
    /// Index in the loop's list of transfers in the multi handle; -1 when not there.
    var activeSlot = -1
    var result: (Response?, NetError?) = (nil, nil)

    init(prepared: PreparedRequest?, presetError: NetError?, loop: TransferLoop,
         foreign: (UnsafeRawPointer?, UnsafeMutableRawPointer?) = (nil, nil), deliver: @escaping Deliver) {
        self.foreign = foreign
        self.prepared = prepared
        self.presetError = presetError
        self.loop = loop
        self.deliver = deliver
    }

    deinit { if outputFD >= 0 { close(outputFD) } }

    /// Opens (creates or truncates) the request's output file, once per transfer.
    /// Nil on success or when there is none, else the error to complete with
    /// (nothing was sent).
    func openOutput() -> NetError? {
        guard outputFD < 0, let p = prepared, let path = p.outputPath else { return nil }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        if fd < 0 {
            let reason = String(cString: strerror(errno))
            var e = TransportErrors.error(code: CURLE_WRITE_ERROR, detail: "cannot open '\(path)' for writing: \(reason)",
                                          method: p.method, url: String(cString: p.url.pointer))
            e.attempts = 0
            return e
        }
        outputFD = fd
        return nil
    }

    /// Closes the output file, if open. An error text if closing failed (the data
    /// may not have reached the disk).
    func closeOutput() -> String? {
        guard outputFD >= 0 else { return nil }
        let rc = close(outputFD)
        outputFD = -1
        return rc == 0 ? nil : String(cString: strerror(errno))
    }

    /// Cancels the request: when this returns the completion has run (loop mode,
    /// from another thread), with its real result if it had begun, else with
    /// `NetError.cancelled`. Idempotent.
    public func cancel() { loop.cancel(self) }
}

/// A libcurl easy handle with its error buffer and the sink its response bytes
/// go to (ncsink.c); pooled and reused by the loop.
final class EasyHandle {
    let handle: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    let sink: UnsafeMutablePointer<ncsink>
    /// CURLOPT_ACCEPT_ENCODING is set (libcurl decompresses); changed only when a
    /// transfer needs the other state, since libcurl copies the string each time.
    var decodesContent = false
    /// The resolved request whose options are set on the handle (see configure()).
    /// Held strongly so its address cannot be reused by another one while set.
    var configuredFor: PreparedRequest?
    /// The proxy string last given to CURLOPT_PROXY (owned by the client's loop).
    var appliedProxy: CString?

    init?() {
        guard let h = curl_easy_init() else { return nil }
        guard let s = ncsink_new(h) else {
            curl_easy_cleanup(h)
            return nil
        }
        handle = h
        sink = s
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // Options that are the same for every transfer on this handle.
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = ncshim_easy_setopt_long(h, CURLOPT_NOSIGNAL, 1)
        // Security defaults (DESIGN.md §5).
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_PROTOCOLS_STR, CurlGlobal.protocols)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_REDIR_PROTOCOLS_STR, CurlGlobal.protocols)
        _ = ncshim_easy_setopt_long(h, CURLOPT_SSL_VERIFYPEER, 1)
        _ = ncshim_easy_setopt_long(h, CURLOPT_SSL_VERIFYHOST, 2)
        // Redirects are followed by TransferLoop.finish(), see Redirect.swift.
        _ = ncshim_easy_setopt_long(h, CURLOPT_FOLLOWLOCATION, 0)
        // Response bytes go to the sink, in C (ncsink.c).
        _ = ncshim_easy_setopt_data_fn(h, CURLOPT_WRITEFUNCTION, ncsink_write)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_WRITEDATA, s)
        _ = ncshim_easy_setopt_data_fn(h, CURLOPT_HEADERFUNCTION, ncsink_header)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_HEADERDATA, s)
    }

    deinit {
        curl_easy_cleanup(handle)
        ncsink_free(sink)
        errorBuffer.deallocate()
    }

    /// Back to the pool: a large request body is not kept alive for a possible
    /// resend (the next transfer then sets every option again).
    func parked() {
        if let p = configuredFor, (p.body?.count ?? 0) > 65_536 {
            configuredFor = nil
            // The handle must not point at the request's parsed URL once it may be freed.
            _ = ncshim_easy_setopt_ptr(handle, CURLOPT_CURLU, nil)
        }
    }

    /// Empties the sink and arms it with `limits` for the next transfer; a 2xx body
    /// goes to `outputFD` when it is >= 0.
    func arm(_ limits: Configuration.Limits, outputFD: Int32) {
        ncsink_reset(sink, curl_off_t(clamping: limits.maxResponseBytes),
                     Int(clamping: limits.maxHeaderCount), Int(clamping: limits.maxHeaderBytes), outputFD)
    }

    /// errno of a failed write to the output file.
    var outputErrno: Int32 { sink.pointee.out_errno }

    /// Why the sink refused bytes, if it did.
    var abortReason: Int32 { sink.pointee.abort_reason }

    /// The latest header block ended with its blank line (ncsink.c); false when
    /// the connection closed inside it.
    var headerBlockEnded: Bool { sink.pointee.head_ended != 0 }

    /// The received body and header lines, handed over in one block (ncsink_take):
    /// the headers borrow the body's storage and keep it alive. Nil when memory ran
    /// out.
    func takeResponse() -> (body: ByteBuffer, headers: HeaderStore)? {
        var block: UnsafeMutablePointer<UInt8>? = nil
        var bodyCount = 0, headOffset = 0, headCount = 0
        guard ncsink_take(sink, &block, &bodyCount, &headOffset, &headCount) != 0 else { return nil }
        guard let block else { return (ByteBuffer(), HeaderStore()) }
        // Capacity: the body and its NUL only, so the buffer never grows in place
        // over the header lines (a response's buffer is never appended to anyway).
        let body = ByteBuffer(adopting: block, count: bodyCount, capacity: bodyCount + 1)
        guard headCount > 0 else { return (body, HeaderStore()) }
        let lines = UnsafeMutableRawPointer(block + headOffset).assumingMemoryBound(to: CChar.self)
        return (body, HeaderStore(lines: lines, count: headCount, owner: body))
    }

    var errorDetail: String { String(cString: errorBuffer) }
}
