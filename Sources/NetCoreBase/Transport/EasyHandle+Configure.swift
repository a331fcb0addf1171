import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

extension EasyHandle {
    /// Sets what changes from one transfer to the next. Fixed options are set once
    /// per easy handle (EasyHandle.init); handles are reused without curl_easy_reset,
    /// so every option set here is set on every transfer. `timeoutMs` is what is
    /// left of the attempt's total timeout (0: none): the whole of it on an
    /// attempt's first hop, less on a redirect hop (Transfer.remainingTimeoutMs).
    func configure(for t: Transfer, _ p: PreparedRequest, timeoutMs: Int64) {
        let h = handle
        let me = Unmanaged.passUnretained(t).toOpaque()
        errorBuffer[0] = 0
        if hasTransferExtras { clearTransferExtras() }
        arm(p.limits, outputFD: t.outputFD)
        // The attempt log's TLS version, read by the sink while the hop runs (ncsink.h).
        if t.keepsAttemptLog { sink.pointee.want_tls_version = 1 }
        // After the options below (a resumed download replaces the header list);
        // progress and body callbacks (Request+Transfers.swift).
        defer {
            if let d = t.download { applyDownload(d, p) }
            if let x = t.extras { applyExtras(x, for: t, p) }
        }
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_PRIVATE, me)
        body.pointee.offset = 0   // a request sent again reads its body from the start
        if p.upload != nil || body.pointee.fd >= 0 || mime != nil { setUpload(for: t, p) }
        // The same resolved request as this handle's last transfer (a request sent
        // again): every option below is still set, as libcurl keeps options
        // between transfers. Saves the setopts and libcurl's copy of the URL. (A
        // redirect hop, the only one with less than the whole timeout, is a new
        // resolved request each time.)
        //
        // An adapted form of that request (AdapterChain.swift: a new one per
        // attempt, with the adapters' headers) differs only in its headers: the
        // header list is set, nothing else (libcurl would otherwise copy the URL
        // out of the CURLU again: bench/RESULTS.md, "Figures that justified code
        // choices").
        let root = p.adaptedFrom ?? p
        if configuredFor === root && timeoutMs == p.timeoutMs {
            if appliedHeaders !== p {
                _ = ncshim_easy_setopt_ptr(h, CURLOPT_HTTPHEADER, p.headerList)
                appliedHeaders = p
            }
            if decodesContent != p.decodesContent {
                _ = ncshim_easy_setopt_ptr(h, CURLOPT_ACCEPT_ENCODING, p.decodesContent ? CurlGlobal.empty : nil)
                decodesContent = p.decodesContent
            }
            return
        }
        configuredFor = root
        appliedHeaders = p
        if let parsed = p.parsedURL {
            // The parsed URL (see PreparedRequest.parsedURL). Clearing CURLOPT_URL
            // makes libcurl take its URL text (CURLINFO_EFFECTIVE_URL, messages) from
            // this CURLU: once set, it would otherwise keep the last transfer's.
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_URL, nil)
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_CURLU, UnsafeRawPointer(parsed))
        } else {
            // CURLOPT_CURLU overrides CURLOPT_URL: clear any earlier transfer's.
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_CURLU, nil)
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_URL, p.url.pointer)
        }
        // The environment's proxy, read once per client (ProxyEnvironment.swift);
        // libcurl copies the strings, so they are set only when they change.
        let proxy = t.context.proxies.proxy(https: p.isHTTPS)
        if appliedProxy !== proxy {
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_PROXY, proxy.pointer)
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_NOPROXY, t.context.proxies.noProxy.pointer)
            appliedProxy = proxy
        }
        // TLS trust, pins, client certificate, TLS and HTTP versions: set again only
        // when this transfer's differ from the handle's last (ConnectionSettings.swift).
        if appliedConnection !== p.connection {
            if appliedConnection.map({ !$0.sameOptions(as: p.connection) }) ?? true { p.connection.apply(to: h) }
            appliedConnection = p.connection
        }
        _ = ncshim_easy_setopt_long(h, CURLOPT_TIMEOUT_MS, Int(clamping: timeoutMs))
        _ = ncshim_easy_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, Int(clamping: p.connectTimeoutMs))
        // idle_timeout_ms is the library's (IdleWatch.swift): libcurl's low-speed
        // check is never set.
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_HTTPHEADER, p.headerList)
        if decodesContent != p.decodesContent {
            // Decompression is on when Accept-Encoding is sent; the header line itself
            // comes from the request's list, which suppresses libcurl's own.
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_ACCEPT_ENCODING, p.decodesContent ? CurlGlobal.empty : nil)
            decodesContent = p.decodesContent
        }
        // Back to a plain GET (HTTPGET also clears NOBODY and a previous POST),
        // then the method of this transfer.
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_CUSTOMREQUEST, nil)
        _ = ncshim_easy_setopt_long(h, CURLOPT_HTTPGET, 1)
        // A non-idempotent request libcurl must not resend by itself (ncbody.h): its
        // body through the read callback (a resend needs a rewind, which is refused),
        // or, without a body, on a connection of its own.
        _ = ncshim_easy_setopt_long(
            h, CURLOPT_FRESH_CONNECT, p.guardsResend && (p.body?.count ?? 0) == 0 && p.upload == nil ? 1 : 0)
        if p.method == "HEAD" {
            _ = ncshim_easy_setopt_long(h, CURLOPT_NOBODY, 1)
        } else if let upload = p.upload {
            configureUpload(upload, p)
        } else if let bytes = p.body, p.guardsResend, bytes.count > 0 {
            body.pointee.data = UnsafeRawPointer(bytes.pointer).assumingMemoryBound(to: CChar.self)
            body.pointee.len = bytes.count
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_POSTFIELDS, nil)
            _ = ncshim_easy_setopt_long(h, CURLOPT_POST, 1)
            _ = ncshim_easy_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            if p.method != "POST" { _ = ncshim_easy_setopt_ptr(h, CURLOPT_CUSTOMREQUEST, p.methodC.pointer) }
        } else if let body = p.body {
            // POSTFIELDS makes libcurl send POST; any other method is named explicitly.
            _ = ncshim_easy_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_POSTFIELDS, body.pointer)
            if p.method != "POST" { _ = ncshim_easy_setopt_ptr(h, CURLOPT_CUSTOMREQUEST, p.methodC.pointer) }
        } else if p.method == "POST" {
            _ = ncshim_easy_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_POSTFIELDS, CurlGlobal.empty)
        } else if p.method != "GET" {
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_CUSTOMREQUEST, p.methodC.pointer)
        }
    }
}
