import NetCoreBase

/// The response cache's Swift concurrency form (the cache itself: NetCoreBase's
/// NetClient+Cache.swift, Features/Cache).
extension NetClient {
    /// Cache-then-network in Swift: sends `request` with `.cacheThenNetwork` and
    /// yields the stored answer first (`fromCache`; only when one is stored), then
    /// the network's (a 304's is the stored body with `notModified`, so a view can
    /// skip redrawing), and finishes. A failure of the network's answer is thrown
    /// at the end of the stream (a stored answer that is itself an error as the
    /// request reads it — a business error — is not yielded). Cancelling the
    /// consuming task (or dropping the stream) cancels the request.
    ///
    /// ```swift
    /// for try await response in client.responses(for: request) { show(response) }
    /// ```
    public func responses(for request: Request) -> AsyncThrowingStream<Response, Error> {
        var r = request
        r.cachePolicy = .cacheThenNetwork
        let (stream, continuation) = AsyncThrowingStream<Response, Error>.makeStream()
        r.cachedCallback = { response, error in
            if error == nil { continuation.yield(response) }
        }
        let transfer = send(r) { response, error in
            switch NetClient.outcome(response, error) {
            case .success(let response):
                continuation.yield(response)
                continuation.finish()
            case .failure(let e):
                continuation.finish(throwing: e)
            }
        }
        guard let transfer else {
            continuation.finish(throwing: NetError.shutdown)
            return stream
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { transfer.context.requestCancel(transfer) }
        }
        return stream
    }
}
