import Synchronization

/// A client's hooks (NetClient+Hooks.swift): the global error handler, the
/// auth-expired handler, and the event and log handlers, which reach requests
/// through the seams — the completion wrapped in `NetClient.transfer` (seam 1,
/// only while an error or auth-expired handler is installed) and one
/// `HookMonitor` installed as the client's event monitor (seam 3). With no hook
/// installed a send costs one relaxed atomic load and a branch.
///
/// Handlers are read when they are called, not when the request was sent:
/// removing one takes effect for every failure that completes afterwards.
final class ClientHooks: @unchecked Sendable {
    typealias FailureHandler = @Sendable (Response?, NetError) -> Void

    /// The loop whose callbacks these are (CallbackScope's owner).
    let loop: TransferLoop
    private let lock = Lock()
    private var errorHandler: FailureHandler?
    private var authExpiredHandler: FailureHandler?
    private var eventHandler: (@Sendable (RequestEvent) -> Void)?
    /// The kinds `eventHandler` receives (RequestEvent.Kind.bit); every kind by default.
    private var eventMask = RequestEvent.Kind.allBits
    private var logHandler: LogHandler?
    /// The kinds some handler takes now: the event handler's mask, and those the
    /// log handler's level writes lines for (HookMonitor.wants reads it without the lock).
    let wantedKinds = Atomic<UInt32>(0)
    /// Some handler takes the request_end of a request that did not fail (the event
    /// handler, or a log at INFO and more): false for a log at WARN alone, whose
    /// lines are the failures' (HookMonitor.skipsSuccessfulEnd).
    let wantsSuccessfulEnd = Atomic<Bool>(false)
    /// Requests keep an attempt log (HookMonitor.keepsAttemptLog): an event
    /// handler is installed, or a log at DEBUG or more, whose attempt lines carry
    /// libcurl's timings. A log at WARN or INFO alone reads none.
    let keepsAttemptLog = Atomic<Bool>(false)
    /// An error or auth-expired handler is installed: sends wrap their completion.
    let wrapsCompletions = Atomic<Bool>(false)
    /// Counts changes of the credentials (Authorization header, token); a request
    /// remembers the one it was sent with.
    let credentialsGeneration = Atomic<UInt64>(1)
    /// The generation whose expiry was last reported (0: none yet).
    private let reportedGeneration = Atomic<UInt64>(0)

    init(loop: TransferLoop) { self.loop = loop }

    // MARK: handlers

    var error: FailureHandler? {
        get { lock.withLock { errorHandler } }
        set {
            lock.withLock {
                errorHandler = newValue; updateWrapping()
            }
        }
    }

    var authExpired: FailureHandler? {
        get { lock.withLock { authExpiredHandler } }
        set {
            lock.withLock {
                authExpiredHandler = newValue; updateWrapping()
            }
        }
    }

    /// Caller holds the lock.
    private func updateWanted() {
        let events = eventHandler != nil ? eventMask : 0
        let logged = logHandler.map { Self.kindsLogged(at: $0.level) } ?? 0
        wantedKinds.store(events | logged, ordering: .relaxed)
        let successEnd =
            events & RequestEvent.Kind.requestEnd.bit != 0 || (logHandler.map { $0.level >= .info } ?? false)
        wantsSuccessfulEnd.store(successEnd, ordering: .relaxed)
        keepsAttemptLog.store(
            eventHandler != nil || (logHandler.map { $0.level >= .debug } ?? false), ordering: .relaxed)
    }

    /// The kinds a log at `level` writes lines for (LogLines): the end of a request
    /// from WARN (failures) and INFO (every one), retries from INFO, the rest at DEBUG.
    static func kindsLogged(at level: LogLevel) -> UInt32 {
        switch level {
        case .off: return 0
        case .error, .warn: return RequestEvent.Kind.requestEnd.bit
        case .info: return RequestEvent.Kind.requestEnd.bit | RequestEvent.Kind.retry.bit
        case .debug, .trace: return RequestEvent.Kind.allBits
        }
    }

    private func updateWrapping() {
        wrapsCompletions.store(errorHandler != nil || authExpiredHandler != nil, ordering: .relaxed)
    }

    /// Sets the event handler; true when some monitor handler remains installed.
    func setEvent(_ h: (@Sendable (RequestEvent) -> Void)?) -> Bool {
        lock.withLock {
            eventHandler = h
            updateWanted()
            return eventHandler != nil || logHandler != nil
        }
    }

    var event: (@Sendable (RequestEvent) -> Void)? { lock.withLock { eventHandler } }

    /// The kinds of events the event handler receives, as RequestEvent.Kind bits.
    var eventKinds: UInt32 {
        get { lock.withLock { eventMask } }
        set {
            lock.withLock {
                eventMask = newValue & RequestEvent.Kind.allBits
                updateWanted()
            }
        }
    }

    /// Sets the log handler (level .off removes it); true when some monitor handler remains.
    func setLog(_ h: LogHandler?) -> Bool {
        lock.withLock {
            logHandler = (h?.level ?? .off) == .off ? nil : h
            updateWanted()
            return eventHandler != nil || logHandler != nil
        }
    }

    var log: LogHandler? { lock.withLock { logHandler } }

    /// The event handler, the kinds it receives and the log handler installed now,
    /// read together (one lock).
    /// (lock/unlock rather than withLock: Lock.lock.)
    var handlers: (event: (@Sendable (RequestEvent) -> Void)?, kinds: UInt32, log: LogHandler?) {
        lock.lock()
        defer { lock.unlock() }
        return (eventHandler, eventMask, logHandler)
    }

    /// Writes a DEBUG line that is no event's (the response cache's "not stored",
    /// ResponseCache.skipLog) when the log handler takes DEBUG: made only then; one
    /// line, control characters escaped; in queue mode in order with the
    /// completions, in nc_client_dispatch, as the event lines are.
    func debugLine(_ text: @escaping @Sendable () -> String) {
        guard let level = log?.level, level >= .debug else { return }
        let write: @Sendable () -> Void = { [self] in
            guard let log, log.level >= .debug else { return }
            let line = LogLevel.debug.word + " " + LogLines.oneLine(text())
            if loop.onLoopThread {
                log.write(.debug, line)
            } else {
                CallbackScope.run(loop) { log.write(.debug, line) }
            }
        }
        if loop.defersToDispatch, loop.deferToDispatch(write) { return }
        write()
    }

    /// The Authorization header or token changed: the next expiry is reported again.
    func noteCredentialsChanged() {
        credentialsGeneration.add(1, ordering: .relaxed)
    }

    // MARK: the completion seam

    /// Makes `t`'s completion call the failure hooks first. Only while
    /// `wrapsCompletions` is set (one closure per send then).
    func attach(to t: Transfer, flags: RequestFlags) {
        let inner = t.deliver
        let generation = credentialsGeneration.load(ordering: .relaxed)
        t.deliver = { [self] transfer, response, error in
            guard let error else { return inner(transfer, response, nil) }
            // The hooks see which request failed (NetError.request); so does the caller.
            let identified = transfer.identify(error)
            failed(response, identified, flags: flags, generation: generation)
            inner(transfer, response, identified)
        }
    }

    /// Runs the auth-expired handler (once per credentials generation) and the
    /// error handler for a failure, on the calling (completion) thread.
    func failed(_ response: Response?, _ error: NetError, flags: RequestFlags, generation: UInt64) {
        if error.domain == .client && error.code == NetError.ClientCode.cancelled.rawValue { return }
        lock.lock()   // (not withLock: Lock.lock)
        let (onError, onExpired) = (errorHandler, authExpiredHandler)
        lock.unlock()
        if let onExpired, error.meansLoginExpired, claimExpiry(generation) {
            CallbackScope.run(loop) { onExpired(response, error) }
        }
        if let onError, !flags.contains(.skipErrorHandler) {
            CallbackScope.run(loop) { onError(response, error) }
        }
    }

    /// True for the first expiry reported for the credentials of `generation`,
    /// if they are still the current ones (a request sent with older credentials
    /// reports nothing: the change already answered its expiry).
    private func claimExpiry(_ generation: UInt64) -> Bool {
        guard generation == credentialsGeneration.load(ordering: .relaxed) else { return false }
        var reported = reportedGeneration.load(ordering: .relaxed)
        while reported < generation {
            let (exchanged, now) = reportedGeneration.compareExchange(
                expected: reported, desired: generation,
                ordering: .relaxed)
            if exchanged { return true }
            reported = now
        }
        return false
    }
}

/// The event monitor of a client's event and log handlers: renders each event
/// for whichever is installed now (both receive when both are).
final class HookMonitor: EventMonitor, @unchecked Sendable {
    // Strong: a transfer may outlive its client (a detached shutdown).
    private let hooks: ClientHooks

    init(hooks: ClientHooks) { self.hooks = hooks }

    private func deliver(_ e: RequestEvent) {
        // Queue mode: the hooks run in nc_client_dispatch, in order with the
        // completions, as every other callback does there.
        // (Asked first: the closure would be allocated for nothing otherwise.)
        if hooks.loop.defersToDispatch, hooks.loop.deferToDispatch({ [self] in deliverNow(e) }) { return }
        deliverNow(e)
    }

    private func deliverNow(_ e: RequestEvent) {
        let (handler, kinds, log) = hooks.handlers
        // A kind the event handler does not take is neither rendered nor delivered.
        let event = kinds & e.kind.bit != 0 ? handler : nil
        guard event != nil || log != nil else { return }
        func run() {
            event?(e)
            if let log {
                for (level, line) in LogLines.lines(for: e, level: log.level) {
                    log.write(level, level.word + " " + line)
                }
            }
        }
        // On the loop thread re-entrant calls already know where they are
        // (TransferLoop.isCallbackThread); a synchronous send's thread is marked.
        if hooks.loop.onLoopThread { run() } else { CallbackScope.run(hooks.loop, run) }
    }

    func wants(_ kind: RequestEvent.Kind) -> Bool {
        hooks.wantedKinds.load(ordering: .relaxed) & kind.bit != 0
    }

    /// No handler takes the end of a request that did not fail (a log at WARN
    /// alone): such an event is not built (Transfer.emitEnd).
    var skipsSuccessfulEnd: Bool { !hooks.wantsSuccessfulEnd.load(ordering: .relaxed) }

    var keepsAttemptLog: Bool { hooks.keepsAttemptLog.load(ordering: .relaxed) }

    func requestDidStart(_ event: RequestEvent) { deliver(event) }
    func attemptDidEnd(_ event: RequestEvent) { deliver(event) }
    func retryScheduled(_ event: RequestEvent) { deliver(event) }
    func requestDidComplete(_ event: RequestEvent) { deliver(event) }
    func cacheDidHit(_ event: RequestEvent) { deliver(event) }
}
