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

    func requestDidStart(_ event: RequestEvent) {
        if first.wants(event.kind) { first.requestDidStart(event) }
        if second.wants(event.kind) { second.requestDidStart(event) }
    }
    func attemptDidEnd(_ event: RequestEvent) {
        if first.wants(event.kind) { first.attemptDidEnd(event) }
        if second.wants(event.kind) { second.attemptDidEnd(event) }
    }
    func retryScheduled(_ event: RequestEvent) {
        if first.wants(event.kind) { first.retryScheduled(event) }
        if second.wants(event.kind) { second.retryScheduled(event) }
    }
    func requestDidComplete(_ event: RequestEvent) {
        if first.wants(event.kind) { first.requestDidComplete(event) }
        if second.wants(event.kind) { second.requestDidComplete(event) }
    }
    func cacheDidHit(_ event: RequestEvent) {
        if first.wants(event.kind) { first.cacheDidHit(event) }
        if second.wants(event.kind) { second.cacheDidHit(event) }
    }
}
