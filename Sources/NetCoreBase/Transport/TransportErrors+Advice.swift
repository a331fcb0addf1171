import CCurlShim

/// What to do about a TLS or protocol failure, chosen from libcurl's error detail
/// (the text of CURLOPT_ERRORBUFFER, which carries OpenSSL's reason): one CURLcode
/// covers causes with different fixes (CURLE_SSL_CONNECT_ERROR is a plain-HTTP
/// port, a TLS version no side shares, or a refused client certificate).
/// docs/errors.md lists the same causes and fixes.
extension TransportErrors {
    /// Advice for `code` given `detail`; nil when there is nothing specific to say.
    static func advice(_ code: CURLcode, detail: String) -> String? {
        let d = detail.lowercased()
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION:
            if d.containsASCII("expired") {
                return
                    "The server's certificate has expired: the server must renew it (check this machine's clock too). Verification cannot be turned off."
            }
            if d.containsASCII("host name") || d.containsASCII("hostname") {
                return
                    "The server's certificate is for another host name: use the host name it names in the URL, or fix the server's certificate. Verification cannot be turned off."
            }
            return
                "The server's certificate is not signed by a CA this client trusts. For a private CA, or a self-signed development server, name that CA's certificate (or the self-signed certificate) in tls.ca_file (docs/tls.md); when tls names no CA, a bundle named by CURL_CA_BUNDLE or SSL_CERT_FILE is trusted instead of the system store. Verification cannot be turned off."
        case CURLE_SSL_CACERT_BADFILE:
            return
                "The CA file or directory (tls.ca_file / tls.ca_path, or when tls names none the CURL_CA_BUNDLE or SSL_CERT_FILE environment variable) could not be read or holds no PEM certificate."
        case CURLE_SSL_CERTPROBLEM:
            return
                "The client certificate or key (tls.client_cert / tls.client_key) could not be used: both must be PEM, and the key must belong to the certificate."
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return
                "The server's public key matches none of tls.pinned_public_keys: the server changed its key, or a pin is wrong (docs/tls.md shows how to compute one)."
        case CURLE_SSL_CONNECT_ERROR, CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            if d.containsASCII("wrong version number") || d.containsASCII("packet length too long")
                || d.containsASCII("http request")
            {
                return
                    "The server did not answer in TLS: this https:// URL probably names a plain-HTTP port. Use http://, or the server's TLS port."
            }
            if d.containsASCII("alert protocol version") || d.containsASCII("unsupported protocol")
                || d.containsASCII("no protocols available")
            {
                return
                    "The server and this client share no TLS version: the server does not accept tls.min_version or newer. Upgrade the server; lower tls.min_version (never below 1.2) only if it cannot be."
            }
            if d.containsASCII("certificate required") || d.containsASCII("alert handshake failure")
                || d.containsASCII("alert unknown ca")
                || d.containsASCII("alert bad certificate") || d.containsASCII("alert certificate unknown")
            {
                return
                    "The server refused the TLS handshake: it probably requires a client certificate (tls.client_cert and tls.client_key) or does not accept the one sent."
            }
            return code == CURLE_SSL_CONNECT_ERROR
                ? "The TLS handshake failed: check that the URL's port serves https, and the server's TLS configuration."
                : nil
        case CURLE_UNSUPPORTED_PROTOCOL:
            if d.containsASCII("http/0.9") || d.containsASCII("unsupported http") {
                return
                    "The server's answer is not HTTP (its first line is not an HTTP status line): check that the URL names an HTTP server and its port."
            }
            return "Only http and https are allowed, for redirects too."
        case CURLE_HTTP2:
            // "2-prior-knowledge" against an HTTP/1 server is TransportErrors+Context's.
            // libcurl 7.88 also gives 16 to the stream whose transfer read a GOAWAY
            // that refused it (Tests/fault/h2.sh): not processed, like the others
            // above the GOAWAY's last stream id, which it sends again itself.
            return
                "The server's HTTP/2 connection failed with this request in flight (a GOAWAY, or a protocol error on the connection); the server may not have processed it. Retry an idempotent request (a retry policy does so)."
        case CURLE_HTTP2_STREAM:
            return
                "The server reset this request's HTTP/2 stream (RST_STREAM, with the error code above); a REFUSED_STREAM is sent again by libcurl itself. Retry an idempotent request (a retry policy does so)."
        default:
            return nil
        }
    }
}

extension TransportErrors {
    /// libcurl refuses a header line longer than CURL_MAX_HTTP_HEADER (100 KiB) with
    /// CURLE_OUT_OF_MEMORY and no detail, before the sink sees the line, so the
    /// header limits cannot catch it. Out of memory while a header block is still
    /// arriving is that refusal (a real shortage there is far less likely): the
    /// documented NC_CLIENT_HEADERS_TOO_LARGE with a message that says why, not
    /// TRANSPORT 27 "Out of memory".
    static func headerLineTooLong(_ code: CURLcode, inHeaders: Bool, _ limits: Configuration.Limits) -> NetError? {
        guard code == CURLE_OUT_OF_MEMORY, inHeaders else { return nil }
        var e = NetError.headersTooLarge(countLimit: limits.maxHeaderCount, byteLimit: limits.maxHeaderBytes)
        e.message =
            "A response header line is longer than libcurl accepts (100 KiB per line, CURL_MAX_HTTP_HEADER); "
            + "the transfer was stopped. The server sends oversized headers: fix the server (no client limit "
            + "raises this one)."
        return e
    }

    /// libcurl 7.88 over HTTP/2 refuses a response header block itself, before the
    /// sink sees a line of it, as CURLE_RECV_ERROR: nghttp2 (1.52 as Debian 12
    /// patches it, CVE-2024-28182) stops at more than 8 CONTINUATION frames after a
    /// HEADERS frame (-905), and libcurl's own header callback fails on a block over
    /// its buffer of 128 KiB (-902, "The user callback function failed"). Either,
    /// while the header block is still arriving, is a header limit: the documented
    /// NC_CLIENT_HEADERS_TOO_LARGE, not retryable (the server sends the same block
    /// again), instead of TRANSPORT 56 "The connection broke; retry".
    static func http2HeaderBlockRefused(
        _ code: CURLcode, detail: String, inHeaders: Bool, _ limits: Configuration.Limits
    ) -> NetError? {
        guard code == CURLE_RECV_ERROR, inHeaders, detail.containsASCII("nghttp2_session_mem_recv()") else {
            return nil
        }
        let why: String
        if detail.containsASCII("returned -905") {
            why = "more than 8 CONTINUATION frames after its HEADERS frame, the most nghttp2 takes"
        } else if detail.containsASCII("returned -902") {
            why = "over the 128 KiB libcurl 7.88 buffers for one HTTP/2 header block"
        } else {
            return nil
        }
        var e = NetError.headersTooLarge(countLimit: limits.maxHeaderCount, byteLimit: limits.maxHeaderBytes)
        e.message =
            "The response's HTTP/2 header block was refused by libcurl before it was read (\(why): \(detail)); "
            + "the transfer was stopped. The server sends oversized headers: fix the server (no client limit "
            + "raises this one)."
        return e
    }
}
