/// Hooks (netcore.h "Hooks", docs/contract.md#events): the global error handler, the
/// auth-expired handler, the event handler and logging. Each runs on the thread that
/// completes the request — the transfer thread, inside `dispatch()` in queue mode for
/// the error and auth-expired handlers, or the caller's own thread for `sendSync` —
/// with no lock held. From inside a hook the client may send, cancel and change its
/// settings and hooks; `sendSync` and `shutdown` are refused there (they would wait
/// for the hook itself).
extension NetClient {
    /// Called for every failed request sent while it is installed — except
    /// cancellations and requests with `.skipErrorHandler` — just before that
    /// request's own completion, on the same thread, with the same response and
    /// error. nil (the default) removes it.
    public var errorHandler: (@Sendable (Response?, NetError) -> Void)? {
        get { hooks.error }
        set { hooks.error = newValue }
    }

    /// Called once per expiry of the credentials: for the first failure whose
    /// business code is one of the envelope's `auth_expired_codes`, or whose HTTP
    /// status is 401, among the requests sent with the current Authorization
    /// header or token. Later failures with the same credentials do not call it
    /// again; changing the Authorization header (`setHeader`) or the token
    /// (`noteCredentialsChanged()`) re-arms it. Runs before the error handler and
    /// the completion, each of which still sees the failure.
    public var authExpiredHandler: (@Sendable (Response?, NetError) -> Void)? {
        get { hooks.authExpired }
        set { hooks.authExpired = newValue }
    }

    /// Receives every event of requests sent while it is installed, as a
    /// `RequestEvent` (render it with `event.json`). nil removes it.
    public var eventHandler: (@Sendable (RequestEvent) -> Void)? {
        get { hooks.event }
        set { installHookMonitor(hooks.setEvent(newValue)) }
    }

    /// The kinds of events `eventHandler` receives (and the C and Python event
    /// handlers built on it); every kind by default. An event of another kind is not
    /// built unless the log handler takes it: a handler that only wants each
    /// request's end pays for one event a request instead of three. The log handler
    /// still sees every event; an `eventMonitor` of one's own chooses with its
    /// `wants(_:)`. Takes effect for events emitted after it is set; an empty set
    /// turns the handler off without removing it.
    public var eventKinds: Set<RequestEvent.Kind> {
        get {
            let bits = hooks.eventKinds
            return Set(RequestEvent.Kind.allCases.filter { bits & $0.bit != 0 })
        }
        set { eventMask = newValue.reduce(0) { $0 | $1.bit } }
    }

    /// `eventKinds` as RequestEvent.Kind bits (nc_client_set_event_mask); bits
    /// outside `RequestEvent.Kind.allBits` are dropped.
    package var eventMask: UInt32 {
        get { hooks.eventKinds }
        set { hooks.eventKinds = newValue }
    }

    /// Where log lines go, and from which level (Logging.swift); nil or level
    /// `.off` removes it. Shares the event seam with `eventHandler`: both receive.
    public var logHandler: LogHandler? {
        get { hooks.log }
        set { installHookMonitor(hooks.setLog(newValue)) }
    }

    /// The credentials requests carry changed (a new token, say): the next
    /// expiry is reported to `authExpiredHandler` again. `setHeader` calls it for
    /// "Authorization".
    public func noteCredentialsChanged() { hooks.noteCredentialsChanged() }

    /// The event and log handlers use the event seam: a `HookMonitor` is the
    /// client's `eventMonitor` while either is installed (it replaces a monitor
    /// set directly).
    private func installHookMonitor(_ needed: Bool) {
        if needed {
            if !(eventMonitor is HookMonitor) { eventMonitor = HookMonitor(hooks: hooks) }
        } else if eventMonitor is HookMonitor {
            eventMonitor = nil
        }
    }

    /// Seam 1 for the failure hooks: wraps the completion of a transfer being made
    /// while an error or auth-expired handler is installed (one branch otherwise).
    @inline(__always)
    func attachHooks(_ t: Transfer, _ request: Request) -> Transfer {
        if hooks.wrapsCompletions.load(ordering: .relaxed) {
            // An endpoint's "flags" count as the request's own (skip_error_handler).
            var flags = request.flags
            if let name = request.endpoint, let own = currentSettings.config.endpoints[name]?.flags { flags.formUnion(own) }
            hooks.attach(to: t, flags: flags)
        }
        // "messages": the error's text for people, before the hooks see it.
        if messageBox.installed.load(ordering: .relaxed) {
            let inner = t.deliver
            let box = messageBox
            t.deliver = { transfer, response, error in inner(transfer, response, error.map(box.apply)) }
        }
        return t
    }
}
