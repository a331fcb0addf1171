/// Retry and deadlines on the client (docs/configuration.md#retry-retry,
/// docs/contract.md#deadline): the policy of requests sent from now on, and the
/// custom decision (nc_client_set_retry_handler).
extension NetClient {
    /// The retry policy of requests sent from now on (the configuration's "retry");
    /// nil: one attempt. A request's own override merges over it (`Request.retry`).
    public var retryPolicy: RetryPolicy? {
        get { currentSettings.config.retry }
        set { changeConfiguration { $0.retry = newValue } }
    }

    /// Decides, before the policy, whether a failed attempt is sent again: for
    /// each failed attempt that max_attempts allows to be followed by another, with
    /// the response (HTTP and API errors), the error and the attempt's number.
    /// `.retry(afterMs:)` retries after that wait — any error, any method (API and
    /// PARSE errors included); the deadline still applies — `.stop` completes with
    /// the error, `.useDefault` asks the policy. Setting one turns retry on (over
    /// the default policy when no "retry" is configured). Runs on the thread that
    /// drives the request, with no lock held; keep it short. nil removes it.
    public var retryHandler: RetryHandler? {
        get { currentSettings.retryHandler }
        set { changeSettings { $0.with(retryHandler: newValue) } }
    }
}
