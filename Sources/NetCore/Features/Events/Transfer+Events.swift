/// The event seam (seam 3) as the transfer loop and the synchronous lanes call it:
/// each call is one branch when no monitor is installed.
extension Transfer {
    private func event(_ kind: RequestEvent.Kind) -> RequestEvent {
        let p = original
        return RequestEvent(kind: kind, id: id, method: p?.method ?? "",
                            url: p.map { String(cString: $0.url.pointer) } ?? "", attempt: attempt)
    }

    @inline(__always)
    func emitStart() {
        guard let monitor else { return }
        monitor.requestDidStart(event(.requestStart))
    }

    /// A hop ended on `easy`: its timings join the attempt's (only with a monitor).
    @inline(__always)
    func noteHopEnded(_ easy: EasyHandle) {
        guard monitor != nil else { return }
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
        var e = event(.attemptEnd, response, error)
        e.timings = timings
        monitor.attemptDidEnd(e)
    }

    @inline(__always)
    func emitRelaunchScheduled(delayMs: Int64, reason: String) {
        guard let monitor else { return }
        var e = event(.retry)
        e.delayMs = delayMs
        e.reason = reason
        monitor.retryScheduled(e)
    }

    @inline(__always)
    func emitEnd(_ response: Response?, _ error: NetError?) {
        guard let monitor else { return }
        monitor.requestDidComplete(event(.requestEnd, response, error))
    }
}
