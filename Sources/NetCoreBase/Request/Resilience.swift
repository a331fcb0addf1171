/// The retry policy and time limits of one resolved request (PreparedRequest): the
/// client's, with the endpoint's and the request's own over them, worked out once
/// per resolved request (so once per unchanged request value and settings).
struct Resilience: Sendable {
    /// Longest stretch without a byte sent or received, ms; 0 = none. Measured by
    /// the library (Transport/IdleWatch.swift).
    var idleTimeoutMs: Int64 = 0
    /// All attempts and the waits between them end by then, ms from the start of
    /// the first attempt; 0 = none.
    var deadlineMs: Int64 = 0
    /// The policy in force; nil = one attempt. Set once, by `init`.
    private(set) var retry: RetryPolicy? = nil
    /// `retry != nil`, stored: every send asks, and reading `retry` to compare it
    /// with nil copies the policy (its arrays retained and released).
    private(set) var hasRetry = false
    /// NC_REQUEST_IDEMPOTENT or an Idempotency-Key header: any method may be retried.
    var optedIn = false
    /// NC_REQUEST_SKIP_AUTH: a token refresh neither holds nor is started by it
    /// (the refresh call itself; Features/Auth/TokenRefresher.swift).
    var skipsAuth = false

    init() {}

    init(_ request: Request, _ settings: ClientSettings, headers: HeaderFields) {
        let own = request.resilience
        let config = settings.config
        idleTimeoutMs = own.idleTimeoutMs ?? config.idleTimeoutMs
        deadlineMs = own.deadlineMs ?? config.deadlineMs
        if !request.flags.contains(.noRetry) {
            // A retry handler alone turns retry on, over the default policy.
            let base = config.retry ?? (settings.retryHandler != nil ? RetryPolicy() : nil)
            retry = own.retry.map { $0.applied(to: base) } ?? base
            hasRetry = retry != nil
        }
        optedIn = request.flags.contains(.idempotent) || headers.contains("Idempotency-Key")
        skipsAuth = request.flags.contains(.skipAuth)
    }
}
