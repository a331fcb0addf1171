import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// A libcurl easy handle with its error buffer and the sink its response bytes
/// go to (ncsink.c); pooled and reused by the loop.
final class EasyHandle {
    let handle: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    let sink: UnsafeMutablePointer<ncsink>
    /// The body reader of non-idempotent requests (ncbody.h): libcurl cannot
    /// resend what it reads from here.
    let body: UnsafeMutablePointer<ncbody>
    /// CURLOPT_ACCEPT_ENCODING is set (libcurl decompresses); changed only when a
    /// transfer needs the other state, since libcurl copies the string each time.
    var decodesContent = false
    /// The resolved request whose options are set on the handle (see configure()).
    /// Held strongly so its address cannot be reused by another one while set.
    var configuredFor: PreparedRequest?
    /// The request whose header list CURLOPT_HTTPHEADER points to: `configuredFor`
    /// or an adapted form of it (held so the list outlives its use).
    var appliedHeaders: PreparedRequest?
    /// The proxy string last given to CURLOPT_PROXY (owned by the client's loop).
    var appliedProxy: CString?
    /// The TLS and HTTP-version options last set (ConnectionSettings.swift).
    var appliedConnection: ConnectionSettings?
    /// The multipart body set with CURLOPT_MIMEPOST (EasyHandle+Upload.swift); freed
    /// when the next transfer sets another, or with the handle.
    var mime: OpaquePointer?
    /// The share it is attached to (TLS sessions and DNS answers; the cookie jar's
    /// for a client with one), attached once here; held so that it outlives the
    /// handle (CurlShare.swift). Nil: nothing shared.
    private let share: CurlShare?
    /// Options only some transfers set (a download's Range, progress) are set:
    /// the next configure clears them (clearTransferExtras).
    var hasTransferExtras = false

    init?(share: CurlShare? = nil) {
        guard let h = curl_easy_init() else { return nil }
        guard let s = ncsink_new(h) else {
            curl_easy_cleanup(h)
            return nil
        }
        guard let b = ncbody_new(h) else {
            curl_easy_cleanup(h)
            ncsink_free(s)
            return nil
        }
        handle = h
        sink = s
        body = b
        self.share = share
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // Options that are the same for every transfer on this handle.
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = ncshim_easy_setopt_long(h, CURLOPT_NOSIGNAL, 1)
        // Security defaults (docs/contract.md#security-defaults).
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_PROTOCOLS_STR, CurlGlobal.protocols)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_REDIR_PROTOCOLS_STR, CurlGlobal.protocols)
        _ = ncshim_easy_setopt_long(h, CURLOPT_SSL_VERIFYPEER, 1)
        _ = ncshim_easy_setopt_long(h, CURLOPT_SSL_VERIFYHOST, 2)
        // Redirects are followed by Transfer.next(after:), see Redirect.swift.
        _ = ncshim_easy_setopt_long(h, CURLOPT_FOLLOWLOCATION, 0)
        // Response bytes go to the sink, in C (ncsink.c).
        _ = ncshim_easy_setopt_data_fn(h, CURLOPT_WRITEFUNCTION, ncsink_write)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_WRITEDATA, s)
        _ = ncshim_easy_setopt_data_fn(h, CURLOPT_HEADERFUNCTION, ncsink_header)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_HEADERDATA, s)
        if let share {
            share.attach(h)
            if share.keepsCookies {
                s.pointee.count_set_cookies = 1   // the jar's bounds count them (CurlShare)
                s.pointee.share = share.raw   // and so does its change count, at once
            }
        }
    }

    deinit {
        curl_easy_cleanup(handle)
        if let mime { curl_mime_free(mime) }
        ncsink_free(sink)
        ncbody_free(body)
        errorBuffer.deallocate()
    }

    /// Back to the pool: a large request body is not kept alive for a possible
    /// resend (the next transfer then sets every option again).
    func parked() {
        if let p = configuredFor, (p.body?.count ?? 0) > 65_536 {
            configuredFor = nil
            appliedHeaders = nil
            // The handle must not point at the request's parsed URL once it may be freed.
            _ = ncshim_easy_setopt_ptr(handle, CURLOPT_CURLU, nil)
        }
    }

    /// Empties the sink and arms it with `limits` for the next transfer; a 2xx body
    /// goes to `outputFD` when it is >= 0.
    func arm(_ limits: Configuration.Limits, outputFD: Int32) {
        ncsink_reset(
            sink, curl_off_t(clamping: limits.maxResponseBytes),
            Int(clamping: limits.maxHeaderCount), Int(clamping: limits.maxHeaderBytes), outputFD)
    }

    /// Hands the Set-Cookie lines the sink counted since the last call to the
    /// share (its bounds check), at the end of every hop, whatever ended it.
    func reportSetCookies() {
        guard let share, share.keepsCookies else { return }
        let n = sink.pointee.set_cookies
        guard n > 0 else { return }
        sink.pointee.set_cookies = 0
        share.received(setCookies: n)
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
    func takeResponse() -> (body: NetBytes, headers: HeaderStore)? {
        var block: UnsafeMutablePointer<UInt8>? = nil
        var bodyCount = 0, headOffset = 0, headCount = 0
        guard ncsink_take(sink, &block, &bodyCount, &headOffset, &headCount) != 0 else { return nil }
        guard let block else { return (NetBytes(), HeaderStore()) }
        // Capacity: the body and its NUL only, so the buffer never grows in place
        // over the header lines (a response's buffer is never appended to anyway).
        let body = NetBytes(adopting: block, count: bodyCount, capacity: bodyCount + 1)
        guard headCount > 0 else { return (body, HeaderStore()) }
        let lines = UnsafeMutableRawPointer(block + headOffset).assumingMemoryBound(to: CChar.self)
        return (body, HeaderStore(lines: lines, count: headCount, owner: body))
    }

    var errorDetail: String { String(cString: errorBuffer) }

    /// The timings of the hop that just ended, in microseconds from its start
    /// (libcurl's CURLINFO_*_TIME_T), and the body bytes received. Read only when
    /// an event monitor wants them.
    func hopTimings() -> AttemptTimings {
        func us(_ info: CURLINFO) -> Int64 {
            var v: curl_off_t = 0
            return ncshim_easy_getinfo_off(handle, info, &v) == CURLE_OK ? Int64(v) : 0
        }
        var version: Int = 0
        _ = ncshim_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        var t = AttemptTimings(
            dnsUs: us(CURLINFO_NAMELOOKUP_TIME_T), connectUs: us(CURLINFO_CONNECT_TIME_T),
            tlsUs: us(CURLINFO_APPCONNECT_TIME_T), firstByteUs: us(CURLINFO_STARTTRANSFER_TIME_T),
            totalUs: us(CURLINFO_TOTAL_TIME_T), bytes: us(CURLINFO_SIZE_DOWNLOAD_T), hops: 1)
        t.httpVersion = HTTPVersionSeen(curl: version)
        t.tlsVersion = sink.pointee.tls_version.map { String(cString: $0) }
        return t
    }
}
