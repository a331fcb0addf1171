import CCurlShim

/// When a failed attempt is sent again, and after how long ("retry",
/// docs/configuration.md#retry-retry). A value: the client's policy comes from the
/// configuration, a request's may be merged over it (`RetryPolicy.Patch`,
/// nc_request_set_retry_json) or turned off (`false`, NC_REQUEST_NO_RETRY). No
/// "retry" key means one attempt, as libcurl and requests do.
///
/// `decide(_:)` is the whole decision, pure: given the attempt that just failed it
/// answers `.retry(afterMs:reason:)` or `.stop(reason:)`. The defaults below are
/// the consensus of the clients we compared (urllib3, OkHttp, Alamofire, grpc):
/// one line per status and per error, with the reason it is (or is not) retried.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included: 3 = the first and two retries. 1–100. Default 3.
    public var maxAttempts: Int32 = 3
    /// How the wait grows from one retry to the next. Default exponential.
    public var backoff: Backoff = .exponential
    /// The first wait, ms (constant: every wait). 0–3600000. Default 200.
    public var initialMs: Int64 = 200
    /// Exponential: each wait is the previous one times this. 1–100. Default 2.0.
    public var multiplier: Double = 2.0
    /// No wait is longer, Retry-After included. 0–86400000. Default 5000.
    public var maxDelayMs: Int64 = 5000
    /// Full jitter: each wait is drawn uniformly from 0…the computed wait, so
    /// clients that failed together do not come back together. Default true.
    public var jitter: Bool = true
    /// HTTP statuses retried (of HTTP errors: a body that is a business envelope is
    /// an API error, never retried by default). Default `RetryPolicy.defaultStatuses`.
    public var statuses: [Int32] = RetryPolicy.defaultStatuses.map(\.status)
    /// Methods retried without opting in (NC_REQUEST_IDEMPOTENT or an
    /// Idempotency-Key header opt any request in). Default `RetryPolicy.idempotentMethods`.
    public var methods: [String] = RetryPolicy.idempotentMethods
    /// Wait what the server's Retry-After says (seconds or an HTTP-date), capped by
    /// `maxDelayMs`, instead of the backoff. Default true.
    public var respectRetryAfter: Bool = true

    /// The defaults written beside each member.
    public init() {}

    /// How the delay grows between attempts: `immediate`, `constant` or `exponential` (the JSON names).
    public enum Backoff: String, Sendable, CaseIterable {
        /// No wait.
        case immediate
        /// `initialMs` before every retry.
        case constant
        /// `initialMs × multiplier^(n−1)` before retry n, capped by `maxDelayMs`.
        case exponential
    }

    // MARK: the defaults, one line each, with the reason

    /// Statuses retried by default: the retryable ones (Response/Retryable.swift).
    public static let defaultStatuses: [(status: Int32, reason: String)] = Retryable.statuses

    /// Methods retried by default: RFC 9110 §9.2.2's idempotent ones, whose effect
    /// is the same sent once or twice. POST and PATCH are not: the first copy may
    /// have taken effect although no answer came back.
    public static let idempotentMethods = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]

    /// Transport errors (NC_DOMAIN_TRANSPORT, the CURLcode) retried by default: the
    /// retryable ones (Response/Retryable.swift).
    static let retriedTransportErrors: [(code: CURLcode, reason: String)] = Retryable.transportErrors
    // Not retried: every other transport error (TLS verification, a malformed URL,
    // too many redirects, a file that cannot be written: the same again); API errors
    // (the server answered: its business error does not change by asking again);
    // PARSE errors (the same body comes back); CLIENT errors (cancelled, too large,
    // an adapter's refusal, the deadline). A retry handler may still retry any of
    // them (nc_client_set_retry_handler).

    // MARK: the decision

    /// What `decide` reads about the attempt that just failed.
    public struct Attempt: Sendable {
        /// The attempt that failed, from 1.
        public var number: Int32
        /// The request's method (upper case).
        public var method: String
        /// NC_REQUEST_IDEMPOTENT, or an Idempotency-Key header: any method may be retried.
        public var optedIn: Bool
        /// The attempt's error.
        public var error: NetError
        /// The response's Retry-After header, if any.
        public var retryAfter: String?
        /// Unix time now, seconds (a Retry-After HTTP-date is relative to it).
        public var nowSeconds: Int64
        /// A number in 0..<1 for the jitter.
        public var random: Double

        /// An attempt's description (what `decide` reads).
        public init(
            number: Int32, method: String, optedIn: Bool = false, error: NetError,
            retryAfter: String? = nil, nowSeconds: Int64 = 0, random: Double = 1
        ) {
            self.number = number
            self.method = method
            self.optedIn = optedIn
            self.error = error
            self.retryAfter = retryAfter
            self.nowSeconds = nowSeconds
            self.random = random
        }
    }

    /// What `decide` answers: stop, or try again after a delay (with the reason shown in the `retry` event).
    public enum Decision: Sendable, Equatable {
        /// Send it again after `afterMs` milliseconds; `reason` goes to the retry event.
        case retry(afterMs: Int64, reason: String)
        case stop(reason: String)
    }

    /// The decision after `attempt` failed. Pure: same input, same answer.
    public func decide(_ attempt: Attempt) -> Decision {
        guard attempt.number < maxAttempts else {
            return .stop(reason: "max_attempts (\(maxAttempts)) reached")
        }
        guard let why = reason(for: attempt.error) else {
            return .stop(reason: "\(attempt.error.domain.name) \(attempt.error.codeString) is not retried")
        }
        guard attempt.optedIn || methods.contains(attempt.method) else {
            return .stop(
                reason:
                    "\(attempt.method) is not retried (not in methods; opt in with NC_REQUEST_IDEMPOTENT or an Idempotency-Key header)"
            )
        }
        if respectRetryAfter, attempt.error.domain == .http, let header = attempt.retryAfter,
            let ms = RetryAfter.delayMs(header, nowSeconds: attempt.nowSeconds)
        {
            return .retry(afterMs: min(ms, maxDelayMs), reason: "\(why), Retry-After: \(header)")
        }
        return .retry(afterMs: delayMs(beforeRetry: attempt.number, random: attempt.random), reason: why)
    }

    /// Why `error` is worth another attempt ("HTTP 503", "transport 7: …"), or nil.
    func reason(for error: NetError) -> String? {
        switch error.domain {
        case .http:
            let status = Int32(clamping: error.code)
            return statuses.contains(status) ? "HTTP \(status)" : nil
        case .transport:
            // A listed code the error itself calls not retryable is not retried: its
            // context says the same request gets the same answer (a proxy refusing
            // the tunnel, HTTP/2 assumed against an HTTP/1 server:
            // TransportErrors+Context.swift).
            guard error.isRetryable,
                let entry = RetryPolicy.retriedTransportErrors.first(where: { Int64($0.code.rawValue) == error.code })
            else { return nil }
            return "transport \(error.code): \(entry.reason)"
        case .client, .api, .parse:
            return nil
        }
    }
}
