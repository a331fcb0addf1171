import CCurlShim

/// The time limits of a transfer: what each hop may take (the attempt's
/// timeout_ms, shared by its redirect hops, and what is left of the request's
/// deadline), and which limit a timeout was (docs/errors.md, "Timeouts say which
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
    /// deadline (docs/contract.md#deadline: when the next retry's delay would cross
    /// it, the request completes at once); nil when there is time (or no deadline).
    func deadlineCrossed(byWaiting ms: Int64, after last: NetError) -> NetError? {
        guard let p = original, let left = deadlineLeftMs(p, now: monotonicNanos()), ms >= left else { return nil }
        return NetError.deadlineExceeded(deadlineMs: p.resilience.deadlineMs, attempts: attempt, last: last)
    }

    /// Which limit a hop that ended with CURLE_OPERATION_TIMEDOUT ran into:
    /// - idle_timeout_ms, if the library's idle watch ended it (IdleWatch.swift);
    ///   libcurl's own timeouts are the others, and it has one code for them all,
    ///   so they are told apart by when it fired and how far the hop got:
    /// - the deadline, if it has passed (the hop's timeout was clamped to it; the
    ///   same slack as below);
    /// - else timeout_ms, if the attempt has run that long (libcurl counts from a
    ///   moment later than `attemptStart` but rounds its milliseconds up, so it
    ///   may fire up to a millisecond before this clock says; 5 ms or 1% of slack);
    /// - else connect_timeout_ms, if the connection was not ready (no
    ///   CURLINFO_PRETRANSFER_TIME, no request bytes sent);
    /// - else the total timeout_ms all the same (the only libcurl limit left once
    ///   connected).
    func timeoutKind(_ p: PreparedRequest, connected: Bool, now: UInt64) -> NetError.TimeoutKind {
        if idleFired { return .idle }
        if let left = deadlineLeftMs(p, now: now), left <= max(5, p.resilience.deadlineMs / 100) { return .deadline }
        if p.timeoutMs > 0 {
            let limitNs = nanos(ms: p.timeoutMs)
            let slackNs = max(5_000_000, limitNs / 100)
            if (now &- attemptStart) &+ slackNs >= limitNs { return .total }
        }
        return connected ? .total : .connect
    }

    /// What had arrived when a hop timed out, for its message: "before the
    /// response began", "after 100 of 3000 bytes of the body", "after 100 bytes of
    /// the body".
    private func progressText(_ o: borrowing HopOutcome) -> String {
        guard o.connected else {
            // Ended by the watch, not by libcurl, with no connection: libcurl held it
            // waiting for one of the host's connections (IdleWatch.swift).
            return hopLimitFired
                ? "while it waited for a connection (the host's limits.max_connections_per_host were all busy)"
                : "before the connection was ready"
        }
        if o.bodyReceived <= 0 { return "before the response's first body byte" }
        if o.bodyExpected > 0 { return "after \(o.bodyReceived) of \(o.bodyExpected) bytes of the body" }
        return "after \(o.bodyReceived) bytes of the body"
    }

    /// The error of a hop that timed out: TRANSPORT 28 naming the limit
    /// (`timeout` set), or CLIENT deadlineExceeded when the deadline was it.
    func timedOut(_ o: borrowing HopOutcome, _ p: PreparedRequest) -> NetError {
        let kind = timeoutKind(p, connected: o.connected, now: monotonicNanos())
        let url = Redaction.url(String(cString: p.url.pointer))   // as events show it
        let progress = progressText(o)
        let which: String
        let advice: String
        switch kind {
        case .connect:
            which = "no connection within connect_timeout_ms (\(p.connectTimeoutMs) ms)"
            advice = "Check that the host is reachable; raise connect_timeout_ms for slow networks."
        case .total, .deadline:
            let hops =
                redirects > 0
                ? "; it bounds the request and its \(redirects) redirect\(redirects == 1 ? "" : "s") followed together"
                : ""
            which = "the total timeout_ms (\(p.timeoutMs) ms) ran out \(progress)\(hops)"
            advice =
                o.bodyReceived > 0
                ? "Data was still arriving: raise timeout_ms, or set it to 0 (no total limit) and let idle_timeout_ms catch a stall."
                : "The server did not answer in time; retry later or raise timeout_ms."
        case .idle:
            which = "no byte sent or received for idle_timeout_ms (\(p.resilience.idleTimeoutMs) ms) \(progress)"
            advice = "The server stalled; retry later or raise idle_timeout_ms."
        }
        let detail = o.detail.isEmpty ? "" : " (\(o.detail))"
        var e = NetError(
            domain: .transport, code: Int64(CURLE_OPERATION_TIMEDOUT.rawValue),
            message: "\(p.method) \(url) timed out: \(which)\(detail). \(advice)")
        e.isRetryable = true
        e.timeout = kind == .deadline ? .total : kind
        e.attempts = attemptsMade(thisOneSent: true)
        guard kind == .deadline else { return e }
        e.message = "\(p.method) \(url) timed out\(detail)"
        return NetError.deadlineExceeded(deadlineMs: p.resilience.deadlineMs, attempts: e.attempts, last: e)
    }
}
