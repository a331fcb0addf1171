/// A request's use of the client's response cache (Features/Cache).
struct RequestCacheOptions: Sendable {
    /// nil: the endpoint's "cache" policy, else network only.
    var policy: CachePolicy? = nil
    /// CACHE_THEN_NETWORK's early delivery of the stored answer.
    var cachedCallback: (@Sendable (Response, NetError?) -> Void)? = nil
}

extension Request {
    /// How this request uses the client's cache (`CachePolicy`); nil, the default:
    /// the endpoint's "cache" policy when the request names one, else
    /// `.networkOnly`. Without a cache configured every policy sends, except
    /// `.cacheOnly`, which completes with NC_CLIENT_NOT_CACHED.
    public var cachePolicy: CachePolicy? {
        get { cacheOptions.policy }
        set { cacheOptions.policy = newValue }
    }

    /// CACHE_THEN_NETWORK: called at most once, before the completion, with the
    /// stored answer (`fromCache`) when there is one — on the thread completions
    /// run on (the transfer thread, `dispatch()` in queue mode, the caller's own
    /// for `sendSync`). Not called when nothing is stored or for other policies.
    /// Swift callers may prefer `NetClient.responses(for:)`.
    public var cachedCallback: (@Sendable (Response, NetError?) -> Void)? {
        get { cacheOptions.cachedCallback }
        set { cacheOptions.cachedCallback = newValue }
    }
}
