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

/// One step of `NetClient.progress(for:)`.
public enum TransferUpdate: Sendable {
    /// How far the transfer got (at most about 20 a second, the last one before the response).
    case progress(TransferProgress)
    /// The request's result; the sequence ends after it.
    case response(Response)
}

extension NetClient {
    /// Sends `request` and yields its progress, then its response, and finishes:
    ///
    /// ```swift
    /// for try await update in client.progress(for: request) {
    ///     switch update {
    ///     case .progress(let p): bar.value = Double(p.downloaded) / Double(max(p.downloadTotal, 1))
    ///     case .response(let r): show(r)
    ///     }
    /// }
    /// ```
    ///
    /// The progress is `setProgress(_:)`'s (a progress handler the request had is
    /// replaced); a failure is thrown at the end (an HTTP error keeps its response,
    /// `NetError.shutdown` when nothing could be sent). Ending the iteration early,
    /// or cancelling the consuming task, cancels the transfer.
    public func progress(for request: Request) -> AsyncThrowingStream<TransferUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream<TransferUpdate, any Error>.makeStream()
        var r = request
        r.setProgress { continuation.yield(.progress($0)) }
        let transfer = send(r) { response, error in
            switch NetClient.outcome(response, error) {
            case .success(let response):
                continuation.yield(.response(response))
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
            if case .cancelled = termination { transfer.loop.requestCancel(transfer) }
        }
        return stream
    }
}
