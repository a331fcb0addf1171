import NetCoreBase

/// Streamed response bodies for Swift callers (nc_request_set_body_callback).
extension NetClient {
    /// Sends `request` and yields its 2xx body in chunks as they arrive:
    ///
    ///     for try await chunk in client.bytes(for: request) { file.write(chunk) }
    ///
    /// The sequence ends after the last chunk, or throws the request's `NetError`
    /// (an HTTP error keeps its body; a request that cannot be sent throws
    /// `NetError.shutdown`). Ending the iteration early, or cancelling the consuming
    /// task, cancels the transfer.
    ///
    /// Backpressure: at most `bufferBytes` (4 MiB by default) and one chunk wait
    /// between the transfer thread and the consumer; past that the transfer is
    /// paused (NC_BODY_PAUSE: libcurl reads nothing more, TCP slows the server
    /// down, the client's other requests go on) until the consumer has taken half
    /// of them. The request is read raw, never coalesced, and not retried once a
    /// chunk was delivered (docs/transfers.md). A body handler the request already
    /// had is replaced.
    public func bytes(for request: Request, bufferBytes: Int = 4 << 20) -> AsyncThrowingStream<[UInt8], any Error> {
        stream(request, bufferBytes: bufferBytes, wantsHead: false).body
    }

    /// Sends `request` and returns once the head of its 2xx response has arrived —
    /// before the first body byte (`Request.setHeadHandler`) — with the body as
    /// `bytes(for:)` yields it:
    ///
    ///     let (head, body) = try await client.streamed(request)
    ///     print(head.status, head.headers.value("content-type") ?? "")
    ///     for try await chunk in body { … }
    ///
    /// Throws the request's `NetError` when it ends without a 2xx head (an HTTP
    /// error with its body, a transport error); `NetError.cancelled` when the
    /// calling task is cancelled meanwhile (the transfer is cancelled too). The
    /// head's body is empty. Head and body handlers the request already had are
    /// replaced.
    public func streamed(_ request: Request, bufferBytes: Int = 4 << 20) async throws -> (
        head: Response, body: AsyncThrowingStream<[UInt8], any Error>
    ) {
        let (buffer, body) = stream(request, bufferBytes: bufferBytes, wantsHead: true)
        let head = try await buffer.head()
        return (head, body)
    }

    private func stream(_ request: Request, bufferBytes: Int, wantsHead: Bool) -> (
        buffer: ByteStreamBuffer, body: AsyncThrowingStream<[UInt8], any Error>
    ) {
        let buffer = ByteStreamBuffer(limit: max(1, bufferBytes))
        var r = request
        r.setBodyHandler { (chunk: UnsafeRawBufferPointer) -> Request.BodyAnswer in buffer.offer(chunk) }
        if wantsHead { r.setHeadHandler { head in buffer.received(head: head) } }
        let t = send(r) { response, error in buffer.finish(response, error) }
        guard let t else {
            buffer.finish(nil, NetError.shutdown)
            return (buffer, AsyncThrowingStream { $0.finish(throwing: NetError.shutdown) })
        }
        buffer.attach(t)
        // The reader owns the transfer: when the sequence (and its iterator) goes
        // before the end, `owner`'s deinit cancels it.
        let owner = StreamOwner(buffer)
        return (buffer, AsyncThrowingStream(unfolding: { try await owner.next() }))
    }
}

/// Cancels the transfer of a sequence dropped before its end.
private final class StreamOwner: Sendable {
    let buffer: ByteStreamBuffer
    init(_ buffer: ByteStreamBuffer) { self.buffer = buffer }
    func next() async throws -> [UInt8]? { try await buffer.next() }
    deinit { buffer.cancel() }
}

/// The chunks between the transfer thread (`offer`) and the consumer (`next`), at
/// most `limit` bytes and one chunk: a full buffer answers `.pause`, and the
/// consumer resumes the transfer (`Transfer.resumeBody`) once it has taken half.
private final class ByteStreamBuffer: @unchecked Sendable {
    struct State {
        var chunks: [[UInt8]] = []
        var first = 0
        var size = 0
        var paused = false
        var closed = false
        var ended: (response: Response?, error: NetError?)?
        var head: Response?
        var transfer: Transfer?
        var waiter: UnsafeContinuation<Void, Never>?
        var headWaiter: UnsafeContinuation<Void, Never>?
    }
    let limit: Int
    /// The state, under `lock` only (`withState`). A pthread mutex (`Lock`) rather
    /// than Synchronization.Mutex, whose ordering ThreadSanitizer does not see.
    private var state = State()
    private let lock = Lock()

    private func withState<R>(_ body: (inout State) -> R) -> R { lock.withLock { body(&state) } }

    init(limit: Int) { self.limit = limit }

    /// Keeps `t` for a cancel. Not once it has ended: its completion may run before
    /// `send` returns (a fast answer), and keeping it then would never be let go
    /// (the transfer holds this buffer through its body handler: the two, and the
    /// client, would keep each other alive).
    func attach(_ t: Transfer) { withState { if $0.ended == nil { $0.transfer = t } } }

    /// The body handler (transfer thread): take the chunk, or pause when full.
    func offer(_ chunk: UnsafeRawBufferPointer) -> Request.BodyAnswer {
        let (answer, wake): (Request.BodyAnswer, UnsafeContinuation<Void, Never>?) = withState { s in
            if s.closed { return (.abort, nil) }
            if s.size >= limit {
                s.paused = true
                return (.pause, nil)
            }
            s.chunks.append(Array(chunk))
            s.size += chunk.count
            defer { s.waiter = nil }
            return (.more, s.waiter)
        }
        wake?.resume()
        return answer
    }

    /// The head handler (transfer thread).
    func received(head: Response) {
        let wake = withState { s in
            s.head = head
            defer { s.headWaiter = nil }
            return s.headWaiter
        }
        wake?.resume()
    }

    /// The completion.
    func finish(_ response: Response?, _ error: NetError?) {
        let (wake, wakeHead) = withState { s in
            s.ended = (response, error)
            // The transfer holds this buffer (its body handler): let go of it at the
            // end, or the two keep each other (and the client) alive.
            s.transfer = nil
            defer {
                s.waiter = nil
                s.headWaiter = nil
            }
            return (s.waiter, s.headWaiter)
        }
        wake?.resume()
        wakeHead?.resume()
    }

    /// The consumer has gone (the sequence dropped, or its task cancelled): the
    /// transfer is cancelled (never waiting) unless it has ended.
    func cancel() {
        let (t, wake, wakeHead) = withState { s in
            s.closed = true
            s.chunks = []
            s.first = 0
            s.size = 0
            defer {
                s.waiter = nil
                s.headWaiter = nil
            }
            return (s.ended == nil ? s.transfer : nil, s.waiter, s.headWaiter)
        }
        wake?.resume()
        wakeHead?.resume()
        if let t { t.context.requestCancel(t) }
    }

    /// The next chunk, nil at the end (or once the consumer's task is cancelled);
    /// throws the request's error at the end.
    func next() async throws -> [UInt8]? {
        while true {
            enum Step {
                case chunk([UInt8], resume: Transfer?)
                case end(NetError?)
                case wait
            }
            let step: Step = withState { s in
                if s.closed { return .end(nil) }
                if s.first < s.chunks.count {
                    let c = s.chunks[s.first]
                    s.first += 1
                    if s.first == s.chunks.count {
                        s.chunks.removeAll(keepingCapacity: true)
                        s.first = 0
                    }
                    s.size -= c.count
                    var resume: Transfer?
                    if s.paused && s.size <= limit / 2 {
                        s.paused = false
                        resume = s.transfer
                    }
                    return .chunk(c, resume: resume)
                }
                if let ended = s.ended { return .end(ended.error) }
                return .wait
            }
            switch step {
            case .chunk(let c, let resume):
                resume?.resumeBody()
                return c
            case .end(let error):
                if let error { throw error }
                return nil
            case .wait:
                if Task.isCancelled {
                    cancel()
                    return nil
                }
                await withTaskCancellationHandler {
                    await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in
                        let ready = withState { s in
                            if s.closed || s.first < s.chunks.count || s.ended != nil { return true }
                            s.waiter = c
                            return false
                        }
                        if ready { c.resume() }
                    }
                } onCancel: {
                    cancel()
                }
            }
        }
    }

    /// Waits for the 2xx head, or throws what ended the request without one.
    func head() async throws -> Response {
        while true {
            let (head, ended, closed) = withState { s in (s.head, s.ended, s.closed) }
            if let head { return head }
            if closed { throw NetError.cancelled }
            if let ended {
                if let error = ended.error { throw error }
                if let response = ended.response { return response }
                throw NetError.cancelled
            }
            if Task.isCancelled {
                cancel()
                throw NetError.cancelled
            }
            await withTaskCancellationHandler {
                await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in
                    let ready = withState { s in
                        if s.closed || s.head != nil || s.ended != nil { return true }
                        s.headWaiter = c
                        return false
                    }
                    if ready { c.resume() }
                }
            } onCancel: {
                cancel()
            }
        }
    }
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
            if case .cancelled = termination { transfer.context.requestCancel(transfer) }
        }
        return stream
    }
}
