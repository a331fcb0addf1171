import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// What one hop produced, read off its easy handle by the thread that drove it
/// (`HopOutcome(easy, code)`), so that deciding what follows (`Transfer.next(after:)`)
/// touches no libcurl handle and is tested with made-up outcomes.
/// Non-copyable: moved into the decision and borrowed by the failure paths,
/// never copied (enforced by the type).
struct HopOutcome: ~Copyable {
    /// libcurl's result of the hop.
    var code: CURLcode
    /// Why the sink refused bytes (NCSINK_*), NCSINK_OK if it did not.
    var sinkAbort: Int32 = Int32(NCSINK_OK)
    /// libcurl's error buffer (failures only).
    var detail: String = ""
    /// errno of a failed write to the output file.
    var outputErrno: Int32 = 0
    /// An allocation libcurl made failed on the driving thread (ncalloc.h): the
    /// hop's code may name something else, the cause was memory.
    var allocationFailed = false
    /// The body file ended early (true) or failed to read (uploadErrno) while sent.
    var uploadShort = false
    var uploadErrno: Int32 = 0
    /// 0: the body file; n > 0: the n-th part of a multipart body (ncmimefile.h).
    var uploadPart = 0
    /// A hop that timed out had its connection ready (TCP and TLS done, the
    /// request started): tells an idle timeout from a connect timeout.
    var connected = false
    /// A hop that timed out: the body bytes it had received, and the size the
    /// response announced (-1: unknown, or no response yet).
    var bodyReceived: Int64 = 0
    var bodyExpected: Int64 = -1
    /// The response's status, and what was received (nil: out of memory).
    var status: Int = 0
    /// The last header block ended with its blank line: false when the connection
    /// closed inside it, which libcurl 7.88 reports as success.
    var headerBlockEnded = true
    /// libcurl's CURLINFO_HTTP_VERSION of a hop that ended well (CURL_HTTP_VERSION_*).
    var httpVersion: Int = 0
    var received: (body: NetBytes, headers: HeaderStore)?
    /// A stub answered the hop, not the network (Features/Stubs): events say so.
    var stubbed = false

    init(code: CURLcode, status: Int = 0, received: (body: NetBytes, headers: HeaderStore)? = nil) {
        self.code = code
        self.status = status
        self.received = received
    }

    /// Reads the hop that ended on `easy` with `code`: takes the received bytes from
    /// the sink on success, the failure's details otherwise.
    init(_ easy: EasyHandle, _ code: CURLcode) {
        self.code = code
        easy.reportSetCookies()
        if code != CURLE_OK {
            sinkAbort = easy.abortReason
            detail = easy.errorDetail
            outputErrno = easy.outputErrno
            allocationFailed = ncalloc_take_failure() != 0
            if code == CURLE_ABORTED_BY_CALLBACK {
                uploadShort = easy.body.pointee.file_short != 0
                uploadErrno = easy.body.pointee.file_errno
                uploadPart = Int(easy.body.pointee.file_part)
            }
            headerBlockEnded = easy.headerBlockEnded   // TransportErrors.headerLineTooLong
            if code == CURLE_SEND_FAIL_REWIND {
                // libcurl wanted to resend (ncbody.h) after a connection closed: if
                // it closed inside a header block, that is what the caller hears.
                headerBlockEnded = easy.headerBlockEnded || easy.sink.pointee.head_lines == 0
                var status: Int = 0
                _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_RESPONSE_CODE, &status)
                self.status = status
            }
            if code == CURLE_OPERATION_TIMEDOUT {
                var pretransfer: curl_off_t = 0
                var sent: Int = 0
                _ = ncshim_easy_getinfo_off(easy.handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
                _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_REQUEST_SIZE, &sent)
                connected = pretransfer > 0 || sent > 0
                (bodyReceived, bodyExpected) = easy.bodyProgress()
            }
            return
        }
        var status: Int = 0
        _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_RESPONSE_CODE, &status)
        self.status = status
        _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_HTTP_VERSION, &httpVersion)
        headerBlockEnded = easy.headerBlockEnded
        received = easy.takeResponse()
    }
}

extension Transfer {
    /// Seam 2 (docs/contract.md#the-request-lifecycle): what follows the hop that ended
    /// with `outcome`. Decides only — classifies the response, prepares a redirect's
    /// next hop (`prepared`, `redirects`), asks the transfer's policy about an
    /// attempt's result — and leaves doing it to the caller (TransferLoop, SyncLanes).
    func next(after outcome: consuming HopOutcome) -> TransferAction {
        guard case .ended(let response, let error) = hopResult(consume outcome) else { return .redirect }
        emitAttemptEnd(response, error)
        // A body callback that has seen bytes cannot be given them again: no retry.
        guard let policy, error != nil || policy.decidesOnSuccess, !(extras?.delivered ?? false) else {
            return .complete(response, error)
        }
        switch policy.next(after: self, response: response, error: error) {
        case .redirect: return .complete(response, error)
        case let action: return action
        }
    }

    /// What the end of a hop means on its own.
    private enum HopResult {
        case ended(Response?, NetError?)
        case redirected
    }

    private func hopResult(_ outcome: consuming HopOutcome) -> HopResult {
        guard let p = prepared else { return .ended(nil, internalError("A transfer ended without its request.")) }
        if outcome.code != CURLE_OK { return .ended(nil, failure(outcome, p)) }
        // Never a success for a header block that did not end (ncsink.c records it).
        guard outcome.headerBlockEnded else { return .ended(nil, headersCutOff(status: outcome.status, p)) }
        // libcurl follows no redirects (see Redirect.swift): the URL that answered
        // is this hop's.
        guard let (body, headers) = outcome.received.take() else {
            return .ended(nil, internalError("Out of memory while receiving the response."))
        }
        let status = outcome.status
        if Redirect.follows(status), p.limits.maxRedirects > 0,
            let location = headers.value("location"), !location.isEmpty
        {
            return follow(p, location: location, status: status)
        }
        var input = Classifier.Input(
            status: Int32(clamping: status), headers: headers, body: body,
            method: p.method, url: p.url, envelope: p.envelope)
        input.joinedToBase = original?.joinedToBase ?? false
        var (response, error) = Classifier.classify(input)
        if attempt > 1, var e = error {
            e.attempts = attempt
            error = e
        }
        // The classifier's only CLIENT error is running out of memory while parsing:
        // like every CLIENT error it comes without a response.
        if error?.domain == .client { return .ended(nil, error) }
        response.completionInfo.httpVersion = HTTPVersionSeen(curl: outcome.httpVersion)
        response.completionInfo.stubbed = outcome.stubbed
        return .ended(response, error)
    }

    // Failures are built out of line (`@inline(never)`, here and in Classifier), so
    // the code a successful hop runs through stays a few contiguous cache lines.

    @inline(never)
    private func internalError(_ why: String) -> NetError {
        NetError.internalError(why).attempted(attemptsMade(thisOneSent: true))
    }

    @inline(never)
    private func headersCutOff(status: Int, _ p: PreparedRequest) -> NetError {
        TransportErrors.headersCutOff(status: status, method: p.method, url: String(cString: p.url.pointer))
            .attempted(attemptsMade(thisOneSent: true))
    }

    /// The error of a hop libcurl (or the sink) failed.
    @inline(never)
    private func failure(_ o: borrowing HopOutcome, _ p: PreparedRequest) -> NetError {
        let sent = attemptsMade(thisOneSent: true)
        if (o.allocationFailed || p.url.allocationFailed) && o.sinkAbort == Int32(NCSINK_OK) {
            // Whatever libcurl's code says (27 inside the headers reads as a header
            // line too long, 3 as "No URL set"), memory ran out (ncalloc.h).
            let said = o.detail.isEmpty ? String(cString: curl_easy_strerror(o.code)) : o.detail
            // A URL that could not be set was not sent (as for a URL libcurl refuses).
            let n = o.code == CURLE_URL_MALFORMAT ? attemptsMade(thisOneSent: false) : sent
            return NetError.internalError("Out of memory in libcurl while the request was being sent (\(said)).")
                .attempted(n)
        }
        switch o.sinkAbort {
        case Int32(NCSINK_BODY_TOO_LARGE):
            return NetError.responseTooLarge(limit: p.limits.maxResponseBytes).attempted(sent)
        case Int32(NCSINK_HEADERS_TOO_LARGE):
            return NetError.headersTooLarge(countLimit: p.limits.maxHeaderCount, byteLimit: p.limits.maxHeaderBytes)
                .attempted(sent)
        case Int32(NCSINK_NO_MEMORY):
            return NetError.internalError("Out of memory while receiving the response.").attempted(sent)
        case Int32(NCSINK_BAD_FRAMING):
            return TransportErrors.conflictingLength(method: p.method, url: String(cString: p.url.pointer))
                .attempted(sent)
        case Int32(NCSINK_FOLDED_FIRST):
            return TransportErrors.foldedFirstLine(method: p.method, url: String(cString: p.url.pointer))
                .attempted(sent)
        case Int32(NCSINK_CALLBACK_ABORT):
            return NetError.cancelled.attempted(sent)
        case Int32(NCSINK_FILE_ERROR):
            // ERANGE: a resumed download's 206 did not start where the .part ends (ncdownload.c).
            let reason =
                o.outputErrno == ERANGE
                ? "the server's 206 does not continue the .part (Content-Range); it starts over next time"
                : String(cString: strerror(o.outputErrno))
            return TransportErrors.error(
                code: CURLE_WRITE_ERROR,
                detail: "writing '\(p.outputPath ?? "")': \(reason)",
                method: p.method, url: String(cString: p.url.pointer)
            ).attempted(sent)
        default:
            if o.uploadShort || o.uploadErrno != 0, let path = p.upload?.path(ofPart: o.uploadPart) {
                // The body file (or a multipart file part) shrank, or could not be
                // read, after its size was sent.
                let announced = o.uploadPart == 0 ? "the \(inputSize) bytes announced" : "the size announced"
                let why =
                    o.uploadShort
                    ? "it became shorter than \(announced) (it changed while it was sent)"
                    : String(cString: strerror(o.uploadErrno))
                let what = o.uploadPart == 0 ? "the body file" : "the file of part \(o.uploadPart)"
                return TransportErrors.error(
                    code: CURLE_READ_ERROR, detail: "reading \(what) '\(path)': \(why)",
                    method: p.method, url: String(cString: p.url.pointer)
                ).attempted(sent)
            }
            if let e = TransportErrors.headerLineTooLong(o.code, inHeaders: !o.headerBlockEnded, p.limits) {
                return e.attempted(sent)
            }
            if let e = TransportErrors.http2HeaderBlockRefused(
                o.code, detail: o.detail, inHeaders: !o.headerBlockEnded, p.limits)
            {
                return e.attempted(sent)
            }
            if o.code == CURLE_SEND_FAIL_REWIND && !o.headerBlockEnded {
                return TransportErrors.headersCutOff(
                    status: o.status, method: p.method, url: String(cString: p.url.pointer)
                ).attempted(sent)
            }
            // Which limit it was: connect, total, idle or the deadline (Transfer+Timeouts.swift).
            if o.code == CURLE_OPERATION_TIMEDOUT { return timedOut(o, p) }
            let proxy = context.proxies.proxy(https: p.isHTTPS)
            let advice = TransportContext(
                proxy: proxy.pointer.pointee == 0 ? nil : String(cString: proxy.pointer),
                priorKnowledge: p.connection.httpVersion == .http2PriorKnowledge)
            return TransportErrors.error(
                code: o.code, detail: o.detail, method: p.method, url: String(cString: p.url.pointer), context: advice
            )
            .attempted(attemptsMade(thisOneSent: !TransportErrors.sentNothing(o.code)))
        }
    }

    /// Prepares the next hop of a redirect, or fails the transfer as libcurl would
    /// (47 too many redirects, 1 unsupported scheme, 3 malformed Location).
    @inline(never)
    private func follow(_ p: PreparedRequest, location: String, status: Int) -> HopResult {
        func fail(_ code: CURLcode, _ detail: String) -> HopResult {
            .ended(
                nil,
                TransportErrors.error(
                    code: code, detail: detail, method: p.method,
                    url: String(cString: p.url.pointer)
                ).attempted(attemptsMade(thisOneSent: true)))
        }
        guard redirects < p.limits.maxRedirects else {
            // Named by the URL asked for (the message's URL), with the hops followed
            // and where the last one pointed.
            let asked = original.map { String(cString: $0.url.pointer) } ?? p.urlText
            return .ended(
                nil,
                TransportErrors.error(
                    code: CURLE_TOO_MANY_REDIRECTS,
                    detail:
                        "\(redirects) redirect\(redirects == 1 ? "" : "s") followed (limits.max_redirects \(p.limits.maxRedirects)); "
                        + "the last, \(p.urlText), answered \(status) to \(location)",
                    method: p.method, url: asked
                ).attempted(attemptsMade(thisOneSent: true)))
        }
        switch Redirect.resolve(location, from: p.url.pointer) {
        case .failure(.scheme(let scheme)):
            return fail(CURLE_UNSUPPORTED_PROTOCOL, "redirect to a '\(scheme)' URL refused")
        case .failure(.malformed(let text)):
            return fail(CURLE_URL_MALFORMAT, "redirect Location '\(text)' is not a valid URL")
        case .success(let next):
            var chain = redirectChain ?? []
            chain.append(RedirectHop(status: Int32(clamping: status), url: p.urlText))
            redirectChain = chain
            redirects += 1
            prepared = p.redirected(to: next.url, status: status, crossOrigin: next.crossOrigin)
            return .redirected
        }
    }

    /// Attempts made when the transfer is stopped now (cancel, shutdown): the
    /// earlier ones, and the running one if its request reached the network (it may
    /// still wait in the multi handle for a connection).
    func attemptsMade(stoppedOn easy: EasyHandle?) -> Int32 {
        guard let easy else { return attempt }
        var sent: Int = 0
        _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_REQUEST_SIZE, &sent)
        return attemptsMade(thisOneSent: sent > 0)
    }

    /// The error when the attempt's total timeout ran out between two hops (a
    /// redirect's next hop would start with nothing left): TRANSPORT 28.
    func timedOutBetweenHops(_ p: PreparedRequest) -> NetError {
        var e = TransportErrors.error(
            code: CURLE_OPERATION_TIMEDOUT,
            detail:
                "the total timeout_ms of \(p.timeoutMs) ms ran out after \(redirects) redirect\(redirects == 1 ? "" : "s") "
                + "followed (it bounds all hops of a request together)",
            method: p.method, url: String(cString: p.url.pointer)
        )
        .attempted(attemptsMade(thisOneSent: true))
        e.timeout = .total
        return e
    }
}
