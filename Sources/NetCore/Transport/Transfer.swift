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
    typealias Deliver = (Response?, NetError?) -> Void

    /// What is being sent; replaced by each redirect hop (transfer thread only).
    var prepared: PreparedRequest?
    /// Redirects followed so far (transfer thread only).
    var redirects: Int32 = 0
    /// Set when the request could not be built: completes with it, sends nothing.
    let presetError: NetError?
    let deliver: Deliver
    /// Delivered on the transfer thread even in queue mode (sync sends).
    let deliversInline: Bool
    let loop: TransferLoop

    // Guarded by loop.monitor.
    var done = false
    var cancelRequested = false

    // Transfer thread only.
    var easy: EasyHandle?
    var body = ByteBuffer()
    var headers = HeaderStore()
    var abortReason: AbortReason?
    var result: (Response?, NetError?) = (nil, nil)

    enum AbortReason { case tooLarge, headersTooLarge, noMemory }

    init(prepared: PreparedRequest?, presetError: NetError?, loop: TransferLoop,
         deliversInline: Bool, deliver: @escaping Deliver) {
        self.prepared = prepared
        self.presetError = presetError
        self.loop = loop
        self.deliversInline = deliversInline
        self.deliver = deliver
    }

    /// Cancels the request: when this returns the completion has run (loop mode,
    /// from another thread), with its real result if it had begun, else with
    /// `NetError.cancelled`. Idempotent.
    public func cancel() { loop.cancel(self) }

    // MARK: libcurl callbacks (transfer thread)

    static let writeCallback: ncshim_data_fn = { ptr, size, nmemb, userdata in
        guard let userdata else { return 0 }
        let t = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
        let (n, overflow) = size.multipliedReportingOverflow(by: nmemb)
        guard !overflow, let ptr else { return 0 }
        return t.receive(body: UnsafeRawPointer(ptr), n) ? n : 0
    }

    static let headerCallback: ncshim_data_fn = { ptr, size, nmemb, userdata in
        guard let userdata else { return 0 }
        let t = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
        let (n, overflow) = size.multipliedReportingOverflow(by: nmemb)
        guard !overflow, let ptr else { return 0 }
        return t.receive(headerLine: UnsafeRawBufferPointer(start: ptr, count: n)) ? n : 0
    }

    private func receive(body bytes: UnsafeRawPointer, _ n: Int) -> Bool {
        guard let limits = prepared?.limits else { return false }
        if body.count == 0, let easy {
            // Size the buffer once from Content-Length (bounded by the limit).
            var expected: curl_off_t = -1
            if ncshim_easy_getinfo_off(easy.handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected) == CURLE_OK,
               expected > 0 {
                if expected > limits.maxResponseBytes { abortReason = .tooLarge; return false }
                body.reserve(Int(expected))
            }
        }
        let (total, overflow) = body.count.addingReportingOverflow(n)
        if overflow || total > limits.maxResponseBytes { abortReason = .tooLarge; return false }
        if !body.append(bytes, n) { abortReason = .noMemory; return false }
        return true
    }

    private func receive(headerLine line: UnsafeRawBufferPointer) -> Bool {
        guard let limits = prepared?.limits else { return false }
        if !headers.add(line: line) { abortReason = .noMemory; return false }
        if headers.count > limits.maxHeaderCount || headers.receivedBytes > limits.maxHeaderBytes {
            abortReason = .headersTooLarge
            return false
        }
        return true
    }
}

/// A libcurl easy handle with its error buffer; pooled and reused by the loop.
final class EasyHandle {
    let handle: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>

    init?() {
        guard let h = curl_easy_init() else { return nil }
        handle = h
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
        // Transparent gzip/deflate/br, whatever libcurl supports.
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_ACCEPT_ENCODING, CurlGlobal.empty)
        _ = ncshim_easy_setopt_data_fn(h, CURLOPT_WRITEFUNCTION, Transfer.writeCallback)
        _ = ncshim_easy_setopt_data_fn(h, CURLOPT_HEADERFUNCTION, Transfer.headerCallback)
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    var errorDetail: String { String(cString: errorBuffer) }
}
