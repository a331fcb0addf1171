import CCurlShim

/// The failures worth sending again, each listed once with the reason beside it:
/// what `NetError.isRetryable` (nc_error_is_retryable) says of an error, and what
/// a retry policy retries by default (RetryPolicy.defaultStatuses,
/// RetryPolicy.retriedTransportErrors). docs/errors.md, docs/configuration.md,
/// README.md, the header and the Python binding state the same lists; a test
/// (RetryableFactsTests) ties each copy to these.
enum Retryable {
    /// HTTP statuses worth retrying: the server is overloaded, restarting or timed out.
    static let statuses: [(status: Int32, reason: String)] = [
        (408, "Request Timeout: the server gave up waiting for the request; it expects it again"),
        (429, "Too Many Requests: rate limited; wait (Retry-After when given) and it goes through"),
        (500, "Internal Server Error: usually a passing failure of the server or what it depends on"),
        (502, "Bad Gateway: the proxy could not reach the server, which may be restarting"),
        (503, "Service Unavailable: overloaded or in maintenance, often with a Retry-After"),
        (504, "Gateway Timeout: the server behind the proxy was too slow this time")
    ]
    // Not retried: other 4xx (the request itself is wrong: sending it again gives the
    // same answer); 501 and 505 (the server cannot do it at all); 3xx (followed, not
    // failed).

    /// Transport errors (NC_DOMAIN_TRANSPORT, the CURLcode) where the same request
    /// may succeed a moment later: the connection or the server hiccuped, nothing
    /// says the request itself is wrong.
    static let transportErrors: [(code: CURLcode, reason: String)] = [
        (CURLE_COULDNT_RESOLVE_HOST, "DNS lookup failed: resolvers are briefly unavailable at times"),
        (CURLE_COULDNT_CONNECT, "connection refused: the server may be restarting"),
        (CURLE_HTTP2, "HTTP/2 connection error"),
        (CURLE_PARTIAL_FILE, "connection cut in the middle of the response"),
        (CURLE_OPERATION_TIMEDOUT, "timed out (connect, total or idle): slow this time"),
        (CURLE_SSL_CONNECT_ERROR, "TLS handshake interrupted"),
        (CURLE_GOT_NOTHING, "the server closed the connection without an answer"),
        (CURLE_SEND_ERROR, "connection reset while sending"),
        (CURLE_RECV_ERROR, "connection reset while receiving"),
        (CURLE_SEND_FAIL_REWIND, "a kept-alive connection closed without an answer (ncbody.h)"),
        (CURLE_HTTP2_STREAM, "HTTP/2 stream reset by the server")
    ]
    // Not retried: every other transport error (TLS verification, a malformed URL,
    // too many redirects, a file that cannot be written: the same again). Where the
    // context says the same request gets the same answer (a proxy refusing the
    // tunnel, HTTP/2 assumed against an HTTP/1 server: TransportErrors+Context.swift)
    // a listed code is not retryable either.

    /// `statuses` as a set, for the classifier.
    static let statusSet: Set<Int32> = Set(statuses.map(\.status))
    /// `transportErrors`' codes as a set, for TransportErrors.
    static let transportCodeSet: Set<UInt32> = Set(transportErrors.map(\.code.rawValue))
}
