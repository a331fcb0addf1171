import CCurlShim

/// The time limits of a transfer: what each hop may take (the attempt's
/// timeout_ms, shared by its redirect hops, and what is left of the request's
/// deadline), and which limit a timeout was (DESIGN.md §3b "Timeouts say which
/// fired"). Deciding only; the loop and the lanes call `hopTimeoutMs` before each
/// hop, the decision function `timedOut` when libcurl reports CURLE_OPERATION_TIMEDOUT.
extension Transfer {
    /// libcurl's total timeout for the hop about to start, ms (0: none): the
    /// attempt's timeout_ms on its first hop, what is left of it on a redirect hop,
    /// and never more than what is left of the deadline. Nil when nothing is left:
    /// complete with `outOfTime(_:)`. Reads the clock only with a redirect or a deadline.
    @inline(__always)
    func hopTimeoutMs(_ p: PreparedRequest) -> Int64? {
        if redirects == 0 && p.resilience.deadlineMs == 0 { return p.timeoutMs }
        return clampedHopTimeoutMs(p, now: monotonicNanos())
    }

    private func clampedHopTimeoutMs(_ p: PreparedRequest, now: UInt64) -> Int64? {
        var limit = p.timeoutMs
        if redirects > 0, let left = remainingTimeoutMs(p, now: now) {
            if left == 0 { return nil }
            limit = left
        }
        if let left = deadlineLeftMs(p, now: now) {
            if left == 0 { return nil }
            if limit == 0 || left < limit { limit = left }
        }
        return limit
    }

    /// Milliseconds left of the deadline at `now` (nil: none; 0: it has passed).
    /// It counts from the start of the first attempt.
    func deadlineLeftMs(_ p: PreparedRequest, now: UInt64) -> Int64? {
        let deadline = p.resilience.deadlineMs
        guard deadline > 0 else { return nil }
        let elapsedMs = Int64(clamping: (now &- startedAt) / 1_000_000)
        return elapsedMs >= deadline ? 0 : deadline - elapsedMs
    }

    /// When the deadline runs out (monotonicNanos), nil when there is none or no
    /// attempt has begun: the moment a waiting transfer must be woken to end.
    var deadlineAt: UInt64? {
        guard let p = original, p.resilience.deadlineMs > 0, startedAt != 0 else { return nil }
        let (at, overflow) = startedAt.addingReportingOverflow(nanos(ms: p.resilience.deadlineMs))
        return overflow ? .max : at
    }

    /// The error when `hopTimeoutMs` left nothing for the next hop.
    func outOfTime(_ p: PreparedRequest) -> NetError {
        let last = timedOutBetweenHops(p)
        if let left = deadlineLeftMs(p, now: monotonicNanos()), left == 0 {
            return NetError.deadlineExceeded(deadlineMs: p.resilience.deadlineMs, attempts: last.attempts, last: last)
        }
        return last
    }

    /// The deadline error if waiting `ms` before the next attempt reaches the
    /// deadline (DESIGN.md: "when the next backoff delay would cross it, the
    /// request completes at once"); nil when there is time (or no deadline).
    func deadlineCrossed(byWaiting ms: Int64, after last: NetError) -> NetError? {
        guard let p = original, let left = deadlineLeftMs(p, now: monotonicNanos()), ms >= left else { return nil }
        return NetError.deadlineExceeded(deadlineMs: p.resilience.deadlineMs, attempts: attempt, last: last)
    }

    /// Which limit a hop that ended with CURLE_OPERATION_TIMEDOUT ran into. libcurl
    /// has one code for all of them; the limits are told apart by when it fired
    /// and how far the hop got:
    /// - the deadline, if it has passed (the hop's timeout was clamped to it; the
    ///   same slack as below);
    /// - else timeout_ms, if the attempt has run that long (libcurl counts from a
    ///   moment later than `attemptStart` but rounds its milliseconds up, so it
    ///   may fire up to a millisecond before this clock says; 5 ms or 1% of slack);
    /// - else connect_timeout_ms, if the connection was not ready (no
    ///   CURLINFO_PRETRANSFER_TIME, no request bytes sent);
    /// - else idle_timeout_ms (libcurl's low-speed check), the only limit left.
    func timeoutKind(_ p: PreparedRequest, connected: Bool, now: UInt64) -> NetError.TimeoutKind {
        if let left = deadlineLeftMs(p, now: now), left <= max(5, p.resilience.deadlineMs / 100) { return .deadline }
        if p.timeoutMs > 0 {
            let limitNs = nanos(ms: p.timeoutMs)
            let slackNs = max(5_000_000, limitNs / 100)
            if (now &- attemptStart) &+ slackNs >= limitNs { return .total }
        }
        return connected ? .idle : .connect
    }

    /// The error of a hop that timed out: TRANSPORT 28 naming the limit
    /// (`timeout` set), or CLIENT deadlineExceeded when the deadline was it.
    func timedOut(_ o: borrowing HopOutcome, _ p: PreparedRequest) -> NetError {
        let kind = timeoutKind(p, connected: o.connected, now: monotonicNanos())
        let url = String(cString: p.url.pointer)
        let which: String
        let advice: String
        switch kind {
        case .connect:
            which = "no connection within connect_timeout_ms (\(p.connectTimeoutMs) ms)"
            advice = "Check that the host is reachable; raise connect_timeout_ms for slow networks."
        case .total, .deadline:
            which =
                redirects > 0
                ? "the total timeout_ms (\(p.timeoutMs) ms) ran out; it bounds the request and its \(redirects) redirect\(redirects == 1 ? "" : "s") followed together"
                : "the total timeout_ms (\(p.timeoutMs) ms) ran out"
            advice = "The server did not answer in time; retry later or raise timeout_ms."
        case .idle:
            which =
                "no data moved for idle_timeout_ms (\(p.resilience.idleTimeoutMs) ms; libcurl checks it in whole seconds)"
            advice = "The server stalled; retry later or raise idle_timeout_ms."
        }
        var e = NetError(
            domain: .transport, code: Int64(CURLE_OPERATION_TIMEDOUT.rawValue),
            message: "\(p.method) \(url) timed out: \(which) (\(o.detail)). \(advice)")
        e.isRetryable = true
        e.timeout = kind == .deadline ? .total : kind
        e.attempts = attemptsMade(thisOneSent: true)
        guard kind == .deadline else { return e }
        e.message = "\(p.method) \(url) timed out (\(o.detail))"
        return NetError.deadlineExceeded(deadlineMs: p.resilience.deadlineMs, attempts: e.attempts, last: e)
    }
}
