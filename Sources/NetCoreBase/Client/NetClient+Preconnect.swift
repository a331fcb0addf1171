/// Warming a connection before the first request needs it (nc_client_preconnect;
/// docs/roundtrips.md).
///
/// How: a HEAD request to the URL, sent by the client's transfer thread like any
/// send, so that the connection it opens — name lookup, TCP, TLS, HTTP/2 by ALPN
/// when "http_version" asks for it — lands in the multi handle's connection cache,
/// where the next transfer to that host finds it. libcurl 7.88 offers nothing
/// lighter that leaves a connection for others: a CURLOPT_CONNECT_ONLY connection is
/// never reused by another transfer (lib/url.c, ConnectionExists: "connect-only or
/// to-be-closed connections will not be reused"), and `OPTIONS *` is answered 400
/// by common servers (nginx), which then close an HTTP/1.1 connection.
///
/// The HEAD is bare: the client's default headers and User-Agent, none of its
/// adapters, token, basic credentials or signing (no preparer), no retry, no
/// reachability wait, no cache and no coalescing, no error or auth-expired hook
/// (no policy but the one below, no gate, no hooks). Its events and log lines are
/// the client's, as for any request (method "HEAD"): that is where a failure shows.
extension NetClient {
    /// Opens a connection to the host of `target` (an absolute http(s) URL, or a
    /// path joined to the current base URL, as `Request(method:target:)` takes)
    /// without waiting for it: the work runs on the transfer thread, and the
    /// client's next request to that host (same scheme, host, port and TLS
    /// settings) reuses the connection instead of making one.
    ///
    /// Any answer of the server is a success (a 404 or 405 connected as well as a
    /// 200); `completion`, when given, runs once on the transfer thread (in queue
    /// mode inside `dispatch()`) with nil, or with the error that kept the
    /// connection from being made (TRANSPORT: name lookup, refused, TLS; CLIENT
    /// SHUTDOWN when the client closes first).
    ///
    /// Throws, nothing sent, CLIENT INVALID_REQUEST for a target that is not a
    /// path or http(s) URL, a path with no base URL, or a URL libcurl refuses; and
    /// CLIENT SHUTDOWN when the client is shutting down.
    public func preconnect(_ target: String, completion: (@Sendable (NetError?) -> Void)? = nil) throws(NetError) {
        var request = try Request(method: "HEAD", target: target)
        request.envelope = false
        request.maxRedirects = 0
        request.flags = [.noCoalesce, .noRetry, .skipErrorHandler, .skipAuth]
        let settings = currentSettings
        let prepared: PreparedRequest
        switch PreparedRequest.make(request, settings) {
        case .success(let p): prepared = p
        case .failure(let e): throw e
        }
        guard prepared.parsedURL != nil else {
            throw NetError.invalidRequest(
                "libcurl cannot parse the URL '\(Redaction.url(prepared.urlText))' to preconnect to.")
        }
        let t = Transfer(
            prepared: prepared, presetError: nil, context: loop, monitor: settings.monitor,
            policy: PreconnectPolicy.shared
        ) { _, _, error in completion?(error) }
        t.standsAlone = true
        guard loop.submit(t) else { throw NetError.shutdown }
    }
}

/// A preconnect's decision after its one attempt: the server answered, whatever it
/// said, so the connection is made (an HTTP error is a success); anything else is
/// what it is.
final class PreconnectPolicy: TransferPolicy {
    static let shared = PreconnectPolicy()

    var decidesOnSuccess: Bool { false }

    func next(after transfer: Transfer, response: Response?, error: NetError?) -> TransferAction {
        if let error, error.domain == .http { return .complete(response, nil) }
        return .complete(response, error)
    }
}
