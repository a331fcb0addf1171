/// The event seam (seam 3) as the transfer loop and the synchronous lanes call it:
/// each call is one branch when no monitor is installed.
extension Transfer {
    private func event(_ kind: RequestEvent.Kind) -> RequestEvent {
        var e = RequestEvent(kind: kind, id: id, method: original?.method ?? "", url: eventURL, attempt: attempt)
        e.urlIsRedacted = true
        // Who the request is (an unresolved one: what its preset error knows).
        if let p = original {
            e.endpoint = p.endpointName
            e.label = p.label
        } else if let known = presetError?.request {
            e.endpoint = known.endpoint
            e.label = known.label
        }
        return e
    }

    /// The request's URL as events show it (redacted: Redaction.swift), worked out
    /// once per transfer rather than per event.
    private var eventURL: String {
        if let url = redactedURL { return url }
        let url = original.map { Redaction.url($0.urlText) } ?? ""
        redactedURL = url
        return url
    }

    @inline(__always)
    func emitStart() {
        guard let monitor, monitor.wants(.requestStart) else { return }
        monitor.requestDidStart(event(.requestStart))
    }

    /// A hop ended on `easy`: its timings join the attempt's (only when the monitor
    /// keeps an attempt log).
    @inline(__always)
    func noteHopEnded(_ easy: EasyHandle) {
        guard keepsAttemptLog else { return }
        timings.add(easy.hopTimings())
    }

    /// An event that reports a result (attempt end, request end).
    private func event(_ kind: RequestEvent.Kind, _ response: Response?, _ error: NetError?) -> RequestEvent {
        var e = event(kind)
        e.status = response?.status ?? error?.httpStatus ?? 0
        e.error = error
        return e
    }

    @inline(__always)
    func emitAttemptEnd(_ response: Response?, _ error: NetError?) {
        guard let monitor else { return }
        // The attempt log (the response's metrics) is kept whichever kinds are wanted.
        if keepsAttemptLog {
            let status = response?.status ?? error?.httpStatus ?? 0
            attemptLog.append(
                AttemptRecord(
                    attempt: attempt, status: status, domain: error?.domain,
                    code: error?.code, timings: timings))
        }
        guard monitor.wants(.attemptEnd) else { return }
        var e = event(.attemptEnd, response, error)
        e.stubbed = response?.completionInfo.stubbed ?? false
        // No timings were read for this request (a handler that wants them came
        // after it was sent): none rather than zeros.
        e.timings = keepsAttemptLog ? timings : nil
        monitor.attemptDidEnd(e)
    }

    @inline(__always)
    func emitRelaunchScheduled(delayMs: Int64, reason: String) {
        guard let monitor, monitor.wants(.retry) else { return }
        var e = event(.retry)
        e.delayMs = delayMs
        e.reason = reason
        monitor.retryScheduled(e)
    }

    /// The request completes: its response records attempts, redirects and total
    /// time (plain stores), and the attempt log when one was kept.
    @inline(__always)
    func emitEnd(_ response: Response?, _ error: NetError?) {
        let elapsed = startedAt == 0 ? 0 : monotonicNanos() &- startedAt
        if let response {
            response.completionInfo = CompletionInfo(
                httpVersion: response.completionInfo.httpVersion, attempts: attempt, redirects: redirects,
                elapsedNs: elapsed,
                log: keepsAttemptLog ? attemptLog : nil, redirectChain: redirectChain,
                taskID: id, stubbed: response.completionInfo.stubbed)
        }
        guard let monitor else { return }
        if let response, response.fromCache { emitCacheHit(response, error) }
        guard monitor.wants(.requestEnd) else { return }
        if error == nil || error?.isCancelled == true, let hooks = monitor as? HookMonitor, hooks.skipsSuccessfulEnd {
            return   // a log at WARN alone writes failures only
        }
        var e = event(.requestEnd, response, error)
        e.fromCache = response?.fromCache ?? false
        e.stubbed = response?.completionInfo.stubbed ?? false
        e.elapsedUs = Int64(clamping: elapsed / 1000)
        monitor.requestDidComplete(e)
    }

    /// An answer from the cache is about to be delivered (the completion's, or
    /// cache-then-network's early copy: Features/Cache).
    func emitCacheHit(_ response: Response, _ error: NetError?) {
        guard let monitor, monitor.wants(.cacheHit) else { return }
        var e = event(.cacheHit, response, error)
        e.fromCache = true
        e.notModified = response.notModified
        // Every transfer an answer from the cache reaches has the cache's policy.
        e.cache = (policy as? CacheTransferPolicy)?.cache.stats
        monitor.cacheDidHit(e)
    }
}
