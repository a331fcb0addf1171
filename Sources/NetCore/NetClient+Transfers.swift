import NetCoreBase
import Synchronization

/// Streamed response bodies for Swift callers (nc_request_set_body_callback).
extension NetClient {
    /// Sends `request` and yields its 2xx body in chunks as they arrive:
    ///
    ///     for try await chunk in client.bytes(for: request) { file.write(chunk) }
    ///
    /// The sequence ends after the last chunk, or throws the request's `NetError`
    /// (an HTTP error keeps its body; a request that cannot be sent throws
    /// `NetError.shutdown`). Ending the iteration early, or cancelling the consuming
    /// task, cancels the transfer. Chunks are buffered without a bound between the
    /// transfer thread and the consumer. The request is read raw, never coalesced,
    /// and not retried once a chunk was delivered (docs/transfers.md). A body handler
    /// the request already had is replaced.
    public func bytes(for request: Request) -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { continuation in
            let stop = StreamStop()
            var r = request
            r.setBodyHandler { buffer in
                if stop.isSet { return false }
                continuation.yield(Array(buffer))
                return true
            }
            let t = send(r) { _, error in
                if let error { continuation.finish(throwing: error) } else { continuation.finish() }
            }
            guard let t else {
                continuation.finish(throwing: NetError.shutdown)
                return
            }
            continuation.onTermination = { reason in
                if case .cancelled = reason {
                    stop.set()
                    t.cancel()
                }
            }
        }
    }
}

/// Set once the consumer is gone: the body handler then aborts the transfer.
private final class StreamStop: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
