/// What a request sets about retry and time limits; nil everywhere = the client's
/// (or its endpoint's). Kept apart so a request that sets none of it carries one
/// small value.
struct RequestResilience: Sendable, Equatable {
    var retry: RetryOverride? = nil
    var deadlineMs: Int64? = nil
    var connectTimeoutMs: Int64? = nil
    var idleTimeoutMs: Int64? = nil
}

extension Request {
    /// This request's retry policy over the client's: nil = the client's (and its
    /// endpoint's); `.disabled` = one attempt; `.merge(patch)` = the keys of `patch`
    /// over the client's policy (or over the defaults when the client has none);
    /// `.policy(p)` = exactly `p`. NC_REQUEST_NO_RETRY (`flags`) wins over all of them.
    public var retry: RetryOverride? {
        get { resilience.retry }
        set { resilience.retry = newValue }
    }

    /// Sets the retry override from the JSON of nc_request_set_retry_json: a
    /// "retry" object (merged over the client's policy), `false` (off) or `null`
    /// (the client's). A bad value throws `invalidArgument` naming the key and
    /// changes nothing.
    public mutating func setRetry(json text: UnsafeRawBufferPointer) throws(NetError) {
        retry = try RetryOverride.parse(json: text)
    }

    /// The request's deadline, ms: all its attempts and the waits between them end
    /// by then (NC_CLIENT_DEADLINE_EXCEEDED); 0 = none; nil = the client's deadline_ms.
    public var deadlineMs: Int64? { resilience.deadlineMs }
    /// Time to connect, ms (0 = libcurl's 300 s); nil = the client's connect_timeout_ms.
    public var connectTimeoutMs: Int64? { resilience.connectTimeoutMs }
    /// Longest stretch without a byte, ms (0 = none); nil = the client's idle_timeout_ms.
    public var idleTimeoutMs: Int64? { resilience.idleTimeoutMs }

    /// Sets the deadline (0 = none, nil = the client's). Negative values are refused.
    public mutating func setDeadline(ms: Int64?) throws(NetError) {
        try Request.checkMs(ms, "deadline")
        resilience.deadlineMs = ms
    }

    /// Sets the connect timeout (0 = libcurl's default, nil = the client's).
    public mutating func setConnectTimeout(ms: Int64?) throws(NetError) {
        try Request.checkMs(ms, "connect timeout")
        resilience.connectTimeoutMs = ms
    }

    /// Sets the idle timeout (0 = none, nil = the client's).
    public mutating func setIdleTimeout(ms: Int64?) throws(NetError) {
        try Request.checkMs(ms, "idle timeout")
        resilience.idleTimeoutMs = ms
    }

    private static func checkMs(_ ms: Int64?, _ what: String) throws(NetError) {
        if let ms, !(0...Int64(Int32.max)).contains(ms) {
            throw NetError.invalidArgument("\(what) must be between 0 and \(Int32.max) milliseconds, got \(ms)")
        }
    }
}
