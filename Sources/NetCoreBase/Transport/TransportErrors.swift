import CCurlShim

/// Transfer failures (classification rule 1): libcurl's CURLcode becomes a
/// TRANSPORT error with the code unchanged and a message that says what to do.
enum TransportErrors {
    /// Codes where the same request may succeed a moment later (Response/Retryable.swift).
    static var retryable: Set<UInt32> { Retryable.transportCodeSet }

    /// Codes libcurl returns before it looks for a connection: the request was not
    /// sent, so a first hop failing with one made no attempt (nc_error_attempts 0).
    /// CURLE_URL_MALFORMAT: a URL libcurl refuses (Hop.configure gives it such a
    /// URL as text, so that the error is libcurl's own).
    static func sentNothing(_ code: CURLcode) -> Bool {
        code == CURLE_URL_MALFORMAT
    }

    static func error(
        code: CURLcode, detail: String, method: String, url: String, context: TransportContext = TransportContext()
    ) -> NetError {
        // Messages reach logs and screens: the URL as events show it (no userinfo,
        // no secret query values).
        let url = Redaction.url(url)
        let base = String(cString: curl_easy_strerror(code))
        var what = detail.isEmpty ? base : "\(base): \(detail)"
        if let explained = contextAdvice(code, detail: detail, context) {
            // A proxy, or HTTP/2 assumed: the advice is about them (TransportErrors+Context.swift).
            var e = NetError(
                domain: .transport, code: Int64(code.rawValue),
                message: "\(method) \(url) failed: \(explained.what ?? what). \(explained.advice)")
            e.isRetryable = explained.retryable
            e.attempts = 1
            return e
        }
        let advice: String
        switch code {
        case CURLE_COULDNT_CONNECT:
            advice = "Check that the server is running and that the URL's host and port are right."
        case CURLE_COULDNT_RESOLVE_HOST:
            advice = "Check the host name and the network connection."
        case CURLE_OPERATION_TIMEDOUT:
            advice = "The server did not answer in time; retry later or raise timeout_ms."
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            // A TLS 1.3 server refuses a client certificate after the handshake: a
            // failed receive whose detail names the alert.
            advice =
                TransportErrors.advice(code, detail: detail)
                ?? (Request.Method(upperCased: method).isIdempotent
                    ? "The connection broke; retry the request."
                    // The request went out: the server may have acted on it
                    // (Tests/fault/h2.sh resets connections after it did).
                    : "The connection broke after the request was sent: the server may have acted on it. "
                        + "Send it again only if that is safe: a retry policy with NC_REQUEST_IDEMPOTENT or an "
                        + "Idempotency-Key header does so.")
        case CURLE_SEND_FAIL_REWIND:
            // Only ncbody_seek refuses a rewind: libcurl wanted to send this request
            // again by itself, on a new connection (see ncbody.h).
            what =
                "the kept-alive connection it was sent on closed without an answer, and libcurl was not "
                + "let send it again by itself (CURLE_SEND_FAIL_REWIND)"
            advice =
                "The server may have acted on it. Send it again only if that is safe: a retry policy with "
                + "NC_REQUEST_IDEMPOTENT or an Idempotency-Key header does so."
        case CURLE_TOO_MANY_REDIRECTS:
            advice = "The server redirects in a loop or more than limits.max_redirects times."
        default:
            // TLS and protocol failures: advice from libcurl's detail (TransportErrors+Advice.swift).
            advice = TransportErrors.advice(code, detail: detail) ?? "See libcurl error \(code.rawValue)."
        }
        var e = NetError(
            domain: .transport, code: Int64(code.rawValue),
            message: "\(method) \(url) failed: \(what). \(advice)")
        e.isRetryable = retryable.contains(code.rawValue)
        e.attempts = 1
        return e
    }

    /// The connection closed inside the response's header block (`status` from its
    /// status line; libcurl 7.88 reports success there). CURLE_PARTIAL_FILE, as
    /// libcurl for any message the peer cuts short of what its framing announced
    /// (a body short of Content-Length, a chunked body without its last chunk).
    static func headersCutOff(status: Int, method: String, url: String) -> NetError {
        let url = Redaction.url(url)
        var e = error(code: CURLE_PARTIAL_FILE, detail: "", method: method, url: url)
        e.message =
            "\(method) \(url) failed: \(String(cString: curl_easy_strerror(CURLE_PARTIAL_FILE))): "
            + "the connection closed inside the response headers (status \(status), no blank line ended them), "
            + "so there is no response. The server may have acted on the request: send it again only if it "
            + "is idempotent (GET, PUT, DELETE); for a POST, check first whether it took effect."
        return e
    }

    /// The response's Content-Length lines (or the members of one) disagree: where
    /// its body ends is unknown, and whichever value libcurl picked could make a
    /// later response out of the rest (RFC 9112 §6.3: an unrecoverable error; the
    /// response is discarded, the connection closed). CURLE_WEIRD_SERVER_REPLY, the
    /// code libcurl gives a Content-Length it cannot read.
    static func conflictingLength(method: String, url: String) -> NetError {
        let url = Redaction.url(url)
        var e = error(code: CURLE_WEIRD_SERVER_REPLY, detail: "", method: method, url: url)
        e.message =
            "\(method) \(url) failed: \(String(cString: curl_easy_strerror(CURLE_WEIRD_SERVER_REPLY))): "
            + "the response has Content-Length values that disagree, so where its body ends is unknown "
            + "(RFC 9112 §6.3); it was discarded and the connection closed. The server or a proxy in between "
            + "is broken: fix it (retrying will not help)."
        return e
    }

    /// The line after the status line begins with a space or a tab: a continuation
    /// (obs-fold) with no header field before it, which RFC 9112 §2.2 lets a
    /// recipient reject. Refused by the sink before libcurl 7.83.1 to 8.0.1 would
    /// unfold it onto a header line of the handle's previous transfer, already
    /// freed (ncsink.h, the fold guard). CURLE_WEIRD_SERVER_REPLY, as libcurl for a
    /// header line without a colon there.
    static func foldedFirstLine(method: String, url: String) -> NetError {
        let url = Redaction.url(url)
        var e = error(code: CURLE_WEIRD_SERVER_REPLY, detail: "", method: method, url: url)
        e.message =
            "\(method) \(url) failed: \(String(cString: curl_easy_strerror(CURLE_WEIRD_SERVER_REPLY))): "
            + "the first header line after the status line begins with whitespace (a folded line with no "
            + "header field before it, RFC 9112 §2.2); the response was discarded. The server or a proxy in "
            + "between is broken: fix it (retrying will not help)."
        return e
    }
}
