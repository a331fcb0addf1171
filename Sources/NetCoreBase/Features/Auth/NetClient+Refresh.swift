/// Single-flight token refresh (TokenRefresher.swift): one refresh however many
/// requests find the login expired; the others wait and are sent again with the
/// new token.
extension NetClient {
    /// Asked to refresh the token (the failing request's error). Answer with
    /// `refreshDone(token:message:)`, at once or later, from any thread — typically
    /// after sending the refresh call with `RequestFlags.skipAuth`. nil (the
    /// default) turns refresh off: an expired request completes with its error and
    /// the auth-expired handler fires. Runs on the thread that saw the expiry (the
    /// transfer thread; inside dispatch() in queue mode; a synchronous caller's
    /// thread): do not block there. `maxPerMinute` bounds refresh storms
    /// ("auth.max_refreshes_per_minute", default 3): past it an expiry is the answer.
    public func setTokenRefresher(_ start: (@Sendable (NetError) -> Void)?, maxPerMinute: Int? = nil) {
        tokenRefresher.install(
            start, maxPerMinute: maxPerMinute ?? Int(currentSettings.config.auth.maxRefreshesPerMinute))
    }

    /// Why `refreshDone` changed nothing.
    public enum RefreshDoneRefusal: Error, Sendable {
        /// No refresh is running (nothing asked for one, or it was answered).
        case noRefreshRunning
        /// `setToken` refuses the token (empty, or with control characters).
        case invalidToken(NetError)
    }

    /// The answer to a refresh: the new token (installed as `token`, then every
    /// waiting request is sent with it), or nil with a message (every waiting
    /// request completes with CLIENT AUTH_REFRESH_FAILED and that message, and the
    /// auth-expired handler fires). Throws (nothing changed) when no refresh is
    /// running or the token is refused.
    public func refreshDone(token: String?, message: String? = nil) throws(RefreshDoneRefusal) {
        switch tokenRefresher.refreshDone(token: token, message: message) {
        case .success: return
        case .failure(.noRefreshRunning): throw .noRefreshRunning
        case .failure(.badToken(let e)): throw .invalidToken(e)
        }
    }

    /// The async refresher module NetCore's `refresher` set last, for its getter
    /// (kept as `Any`: this module names no async function type).
    package var asyncRefresher: (any Sendable)? {
        get { tokenRefresher.asyncForm }
        set { tokenRefresher.asyncForm = newValue }
    }

    /// A refresh runs now: requests wait for it.
    public var isRefreshingToken: Bool { tokenRefresher.isRefreshing }
}
