#if canImport(Glibc)
import Glibc
#endif

/// A retry handler's answer (nc_retry_fn: a delay in ms, -1 stop, -2 default).
public enum RetryHandlerAnswer: Sendable, Equatable {
    /// Send the request again after this many milliseconds.
    case retry(afterMs: Int64)
    /// Complete with this attempt's result.
    case stop
    /// Let the retry policy decide.
    case useDefault
}

/// The custom retry decision (`NetClient.retryHandler`): the failed attempt's
/// response (HTTP and API errors; nil otherwise), its error and its number (from 1).
public typealias RetryHandler = @Sendable (Response?, NetError, Int32) -> RetryHandlerAnswer

/// Retry as a `TransferPolicy` (seam 2): installed on a client only when "retry"
/// is configured or a retry handler is set (ClientSettings.policy), so a client
/// without retry pays nothing. After each attempt it reads the request's policy
/// (`PreparedRequest.resilience.retry`, the client's with the endpoint's and the
/// request's overrides) and answers `.complete` or `.relaunchAfter`. A success is
/// not even asked about (`decidesOnSuccess`): no call, no allocation, no clock read.
final class RetryTransferPolicy: TransferPolicy {
    let handler: RetryHandler?

    /// For requests that turned retry on themselves on a client without it.
    static let standard = RetryTransferPolicy(handler: nil)

    init(handler: RetryHandler?) { self.handler = handler }

    /// Retry acts on failures only: a success completes without a call.
    var decidesOnSuccess: Bool { false }

    func next(after t: Transfer, response: Response?, error: NetError?) -> TransferAction {
        guard let error, let p = t.original, let policy = p.resilience.retry else { return .complete(response, error) }
        let attempt = t.attempt
        // max_attempts bounds the handler too.
        guard attempt < policy.maxAttempts else { return .complete(response, error) }
        var answer = RetryHandlerAnswer.useDefault
        if let handler {
            // User code: on the sync path this is the caller's thread, marked so
            // that a blocking call from inside is refused rather than deadlocking.
            answer = CallbackScope.run(t.context) { handler(response, error, attempt) }
        }
        let decision: RetryPolicy.Decision
        switch answer {
        case .stop:
            return .complete(response, error)
        case .retry(let ms):
            decision = .retry(afterMs: max(ms, 0), reason: "retry handler (\(error.domain.name) \(error.codeString))")
        case .useDefault:
            decision = policy.decide(
                RetryPolicy.Attempt(
                    number: attempt, method: p.method,
                    optedIn: p.resilience.optedIn || (t.prepared?.headers.contains("Idempotency-Key") ?? false),
                    error: error, retryAfter: response?.headers.value("retry-after"),
                    nowSeconds: Int64(time(nil)), random: Double.random(in: 0..<1)))
        }
        guard case .retry(let ms, let reason) = decision else { return .complete(response, error) }
        if let expired = t.deadlineCrossed(byWaiting: ms, after: error) { return .complete(response, expired) }
        // "Retry when reachable": the reachability gate may cut the delay short.
        if ms > 0 { t.gate?.waitsToRetry(t) }
        return .relaunchAfter(ms: ms, reason: reason)
    }
}
