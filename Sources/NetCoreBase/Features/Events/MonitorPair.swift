/// Two event monitors that both receive: the user's (`NetClient.eventMonitor`) and
/// the client's hooks' (the event and log handlers of C, Python and Swift), so
/// installing one never replaces the other. Each is asked `wants(_:)` for itself.
final class MonitorPair: EventMonitor, @unchecked Sendable {
    let first: any EventMonitor
    let second: any EventMonitor
    let keepsAttemptLog: Bool

    private init(_ first: any EventMonitor, _ second: any EventMonitor) {
        self.first = first
        self.second = second
        keepsAttemptLog = first.keepsAttemptLog || second.keepsAttemptLog
    }

    /// The monitor a transfer carries for `user` and `hooks`: either alone, the
    /// pair when both are set, nil when neither is.
    static func combine(_ user: (any EventMonitor)?, _ hooks: (any EventMonitor)?) -> (any EventMonitor)? {
        guard let user else { return hooks }
        guard let hooks else { return user }
        return MonitorPair(user, hooks)
    }

    func wants(_ kind: RequestEvent.Kind) -> Bool { first.wants(kind) || second.wants(kind) }

    func requestDidStart(_ event: RequestEvent) { each(event) { $0.requestDidStart(event) } }
    func attemptDidEnd(_ event: RequestEvent) { each(event) { $0.attemptDidEnd(event) } }
    func retryScheduled(_ event: RequestEvent) { each(event) { $0.retryScheduled(event) } }
    func requestDidComplete(_ event: RequestEvent) { each(event) { $0.requestDidComplete(event) } }
    func cacheDidHit(_ event: RequestEvent) { each(event) { $0.cacheDidHit(event) } }

    /// Hands `event` to each monitor that wants its kind, the user's first.
    @inline(__always)
    private func each(_ event: RequestEvent, _ call: (any EventMonitor) -> Void) {
        if first.wants(event.kind) { call(first) }
        if second.wants(event.kind) { call(second) }
    }
}
