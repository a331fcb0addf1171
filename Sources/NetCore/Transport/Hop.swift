import CCurlShim
#if canImport(Glibc)
import Glibc
#endif

/// One hop of a transfer: the request (or a redirect of it) sent on one easy
/// handle. Shared by the client's transfer loop (TransferLoop.swift) and by
/// synchronous sends driven on the caller's thread (TransferLoop+Sync.swift).
enum HopResult {
    /// The transfer is over with this result.
    case done(Response?, NetError?)
    /// A redirect is to be followed: `Transfer.prepared` is now the next hop.
    case redirect
}

extension EasyHandle {
    /// Sets what changes from one transfer to the next. Fixed options are set once
    /// per easy handle (EasyHandle.init); handles are reused without curl_easy_reset,
    /// so every option set here is set on every transfer. `timeoutMs`: this hop's
    /// CURLOPT_TIMEOUT_MS (Transfer.hopTimeoutMs).
    func configure(for t: Transfer, _ p: PreparedRequest, timeoutMs: Int64) {
        let h = handle
        let me = Unmanaged.passUnretained(t).toOpaque()
        errorBuffer[0] = 0
        arm(p.limits, outputFD: t.outputFD)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_PRIVATE, me)
        // The same resolved request as this handle's last transfer (a request sent
        // again): every option below is still set, as libcurl keeps options
        // between transfers. Saves the setopts and libcurl's copy of the URL.
        if configuredFor === p && timeoutMs == p.timeoutMs { return }   // (a later hop's may be shorter)
        configuredFor = p
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
        let proxy = t.loop.proxies.proxy(https: p.isHTTPS)
        if appliedProxy !== proxy {
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_PROXY, proxy.pointer)
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_NOPROXY, t.loop.proxies.noProxy.pointer)
            appliedProxy = proxy
        }
        _ = ncshim_easy_setopt_long(h, CURLOPT_TIMEOUT_MS, Int(clamping: timeoutMs))
        _ = ncshim_easy_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, Int(clamping: p.connectTimeoutMs))
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
        if p.method == "HEAD" {
            _ = ncshim_easy_setopt_long(h, CURLOPT_NOBODY, 1)
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

extension Transfer {
    /// 1 if the request (or an earlier redirect hop) reached the network, else 0:
    /// a transfer may wait in the multi handle for a free connection.
    func attempts(_ easy: EasyHandle) -> Int32 {
        if redirects > 0 { return 1 }
        var sent: Int = 0
        _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_REQUEST_SIZE, &sent)
        return sent > 0 ? 1 : 0
    }

    /// What the hop that just ended on `easy` (with libcurl's `code`) means: takes
    /// the received bytes from the sink, classifies the response, or prepares the
    /// next hop of a redirect. Reads `easy` only; the caller takes it out of its
    /// multi handle afterwards.
    func conclude(_ easy: EasyHandle, _ code: CURLcode) -> HopResult {
        guard let p = prepared else {
            return .done(nil, NetError.internalError("A transfer ended without its request.").attempted(1))
        }
        if code != CURLE_OK {
            let error: NetError
            switch easy.abortReason {
            case Int32(NCSINK_BODY_TOO_LARGE): error = NetError.responseTooLarge(limit: p.limits.maxResponseBytes).attempted(1)
            case Int32(NCSINK_HEADERS_TOO_LARGE): error = NetError.headersTooLarge(countLimit: p.limits.maxHeaderCount, byteLimit: p.limits.maxHeaderBytes).attempted(1)
            case Int32(NCSINK_NO_MEMORY): error = NetError.internalError("Out of memory while receiving the response.").attempted(1)
            case Int32(NCSINK_FILE_ERROR):
                error = TransportErrors.error(code: CURLE_WRITE_ERROR,
                                              detail: "writing '\(p.outputPath ?? "")': \(String(cString: strerror(easy.outputErrno)))",
                                              method: p.method, url: String(cString: p.url.pointer))
            default:
                var detail = easy.errorDetail
                if code == CURLE_OPERATION_TIMEDOUT && redirects > 0 && p.timeoutMs > 0 {
                    // This hop had only what was left of the request's total.
                    detail += " (timeout_ms, \(p.timeoutMs) ms, bounds the request and its "
                        + "\(redirects) redirect\(redirects == 1 ? "" : "s") followed together)"
                }
                error = TransportErrors.error(code: code, detail: detail, method: p.method, url: String(cString: p.url.pointer))
                    .attempted(TransportErrors.sentNothing(code) && redirects == 0 ? 0 : 1)
            }
            return .done(nil, error)
        }
        var status: Int = 0
        _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_RESPONSE_CODE, &status)
        // libcurl (7.88, and its current source too) ends a response whose
        // connection closed inside its header block with CURLE_OK: never a
        // success (ncsink.c records whether the block ended).
        guard easy.headerBlockEnded else {
            return .done(nil, TransportErrors.headersCutOff(status: status, method: p.method,
                                                            url: String(cString: p.url.pointer)))
        }
        // libcurl follows no redirects (see Redirect.swift): the URL that answered
        // is this hop's.
        guard let (body, headers) = easy.takeResponse() else {
            return .done(nil, NetError.internalError("Out of memory while receiving the response.").attempted(1))
        }
        if Redirect.follows(status), p.limits.maxRedirects > 0,
           let location = headers.value("location"), !location.isEmpty {
            return follow(p, location: location, status: status)
        }
        let (response, error) = Classifier.classify(.init(
            status: Int32(clamping: status), headers: headers, body: body,
            method: p.method, url: p.url, envelope: p.envelope))
        if let path = p.outputPath, let reason = closeOutput(), error == nil {
            return .done(nil, TransportErrors.error(code: CURLE_WRITE_ERROR, detail: "closing '\(path)': \(reason)",
                                                    method: p.method, url: String(cString: p.url.pointer)))
        }
        return .done(response, error)
    }

    /// Prepares the next hop of a redirect, or fails the transfer as libcurl would
    /// (47 too many redirects, 1 unsupported scheme, 3 malformed Location).
    private func follow(_ p: PreparedRequest, location: String, status: Int) -> HopResult {
        func fail(_ code: CURLcode, _ detail: String) -> HopResult {
            .done(nil, TransportErrors.error(code: code, detail: detail, method: p.method,
                                             url: String(cString: p.url.pointer)))
        }
        guard redirects < p.limits.maxRedirects else {
            return fail(CURLE_TOO_MANY_REDIRECTS, "Maximum (\(p.limits.maxRedirects)) redirects followed")
        }
        switch Redirect.resolve(location, from: p.url.pointer) {
        case .failure(.scheme(let scheme)):
            return fail(CURLE_UNSUPPORTED_PROTOCOL, "redirect to a '\(scheme)' URL refused")
        case .failure(.malformed(let text)):
            return fail(CURLE_URL_MALFORMAT, "redirect Location '\(text)' is not a valid URL")
        case .success(let next):
            redirects += 1
            prepared = p.redirected(to: next.url, status: status, crossOrigin: next.crossOrigin)
            return .redirect
        }
    }
}
