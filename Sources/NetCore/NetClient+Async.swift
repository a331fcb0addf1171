import NetCoreBase

/// Swift concurrency on top of `send(_:completion:)`.
///
/// - Result: the `Response` on success. Every failure throws one `NetError`; for
///   HTTP, API and PARSE errors `error.response` holds the response that was
///   received (status, headers, body).
/// - Cancellation: cancelling the calling task cancels the transfer, and `send`
///   throws `NetError.cancelled` (a `NetError`, not `CancellationError`: match it
///   with `catch NetError.cancelled` or `error.isCancelled`). A task that is
///   already cancelled sends nothing. If the transfer had already finished when the
///   cancel arrived, its real result is returned, as with `Transfer.cancel()`.
///   `Task.cancel()` itself never waits: Swift runs cancellation handlers under
///   the task's status lock, which resuming the continuation also takes, so the
///   handler only asks the transfer loop to cancel (`TransferLoop.requestCancel`)
///   instead of calling the waiting `Transfer.cancel()`.
/// - Shutdown: throws `NetError.shutdown` when the client is shutting down
///   (nothing is sent), or when `shutdown()` ends the request.
/// - Threads: the continuation is resumed from the completion, i.e. from the
///   client's transfer thread in the default `"callbacks": "loop"` mode: at once
///   for a task on `client.executor`, else at the end of the loop's pass, together
///   with the other sends completed in it (TransferLoop.deferResume). In
///   `"callbacks": "queue"` mode the call returns only when someone runs
///   `dispatch()`, and a cancelled call finishes at the next `dispatch()`.
extension NetClient {
    /// Sends `request` and waits for its result without blocking a thread.
    public func send(_ request: Request) async throws(NetError) -> Response {
        if Task.isCancelled { throw NetError.cancelled }
        // The transfer exists before it is submitted, so the cancellation handler
        // (which may run first, or at the same time on another thread) always has
        // it: a cancel requested before submission is applied when the loop starts it.
        // A task on the client's executor (running on the loop thread now) is resumed
        // at once, in the completion's own pass; others at the end of the pass, in
        // one batch (TransferLoop.deferResume).
        let t = transfer(request) { t, response, error in
            t.publish(NetClient.outcome(response, t.identify(error)))
            guard let waiter = t.waiter else { return }
            if t.waiterOnLoop || !t.context.deferResume(waiter, resumeAll: AsyncWaiter.resumeAll) {
                AsyncWaiter.continuation(waiter).resume()
            }
        }
        t.waiterOnLoop = loop.onLoopThread
        // The outcome travels through `t.publish` (behind an atomic flag with
        // release/acquire ordering) rather than through the continuation alone: the
        // resume orders the loop thread's writes before the task's reads, but in the
        // Swift runtime, where ThreadSanitizer cannot see it (it reported the new
        // response's fields as a race now and then). The
        // continuation is unchecked: the completion runs exactly once, and a checked
        // one costs an allocation per request.
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                t.waiter = AsyncWaiter.pointer(continuation)   // before submit(), whose lock publishes it
                if !self.submit(t) {
                    // Shutting down: the completion will never run.
                    t.publish(.failure(.shutdown))
                    continuation.resume()
                }
            }
        } onCancel: {
            t.context.requestCancel(t)
        }
        let outcome = t.publishedOutcome
        return try (outcome ?? .failure(.internalError("The request completed without a result."))).get()
    }

    /// Sends `request` and decodes the business data (the envelope's data field,
    /// or the whole body in raw mode) as `type`, or the value at `keyPath` inside it
    /// (`"user"`, `"items[0].price"`: see `Response.decode(_:at:using:)`).
    ///
    /// A decoding failure throws a PARSE error `ParseCode.decodingFailed` naming the
    /// key path, and is handed first to the client's `errorHandler` (unless the
    /// request has `.skipErrorHandler`), as a failed send is: one place sees every
    /// failure. The handler runs on the calling task's thread, with the response.
    /// The error carries the request (`NetError.request`: method, URL, endpoint,
    /// label, task id), as a failed send's does.
    public func decode<T: Decodable>(
        _ type: T.Type, from request: Request, at keyPath: String = "",
        using decoder: JSONValueDecoder = JSONValueDecoder()
    ) async throws(NetError) -> T {
        let response = try await send(request)
        return try decodeReporting(type, response, at: keyPath, using: decoder, request: request).get()
    }

    /// `response.decode`, a failure handed to the error handler. A Result, not typed
    /// throws with a catch: that combination crashes the compiler in async code.
    private func decodeReporting<T: Decodable>(
        _ type: T.Type, _ response: Response, at keyPath: String, using decoder: JSONValueDecoder,
        request: Request
    ) -> Result<T, NetError> {
        do throws(NetError) {
            return .success(try response.decode(type, at: keyPath, using: decoder))
        } catch {
            var error = error
            // Which request it was: the one the response answers.
            if error.request == nil { error.request = request.identity(answeredBy: response) }
            if !request.flags.contains(.skipErrorHandler), let handler = errorHandler { handler(response, error) }
            return .failure(error)
        }
    }

}

/// An async send's waiter as NetCoreBase keeps it (`Transfer.waiter`,
/// `TransferLoop.deferResume`): the continuation's one pointer, since that module
/// names no concurrency type. `UnsafeContinuation` is a frozen struct of exactly
/// that pointer (its `context`), so the casts below are exact both ways.
enum AsyncWaiter {
    static func pointer(_ c: UnsafeContinuation<Void, Never>) -> UnsafeRawPointer {
        unsafeBitCast(c, to: UnsafeRawPointer.self)
    }

    static func continuation(_ p: UnsafeRawPointer) -> UnsafeContinuation<Void, Never> {
        unsafeBitCast(p, to: UnsafeContinuation<Void, Never>.self)
    }

    /// The waiters completed in one pass of the loop, resumed by one job on Swift's
    /// global executor (TransferLoop.deferResume says why). One waiter is resumed
    /// at once: its task is the one job to enqueue, where a job that resumes it
    /// would be two — two wake-ups of the pool's threads for one request.
    static func resumeAll(_ waiters: [UnsafeRawPointer]) {
        if waiters.count == 1 {
            continuation(waiters[0]).resume()
            return
        }
        let batch = Waiters(pointers: waiters)
        Task.detached { for w in batch.pointers { continuation(w).resume() } }
    }

    /// Continuations in their pointer form (each resumed exactly once, by the job).
    private struct Waiters: @unchecked Sendable { let pointers: [UnsafeRawPointer] }
}
