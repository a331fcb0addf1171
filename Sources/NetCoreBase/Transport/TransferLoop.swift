import CCurlShim
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The transfer loop of one client: one thread that carries its transfers' hops
/// on a `HopTransport` (libcurl's multi interface, `CurlTransport`; a table in
/// tests) and sleeps in the transport's wait. It owns the thread, the transfers in
/// flight and waiting, and the carrying out of `TransferAction`s — nothing else. What arrives from other threads comes through its `LoopInbox`;
/// cancellation is TransferLoop+Cancel.swift; a hop's set-up and reading is
/// `HopDriver`; what to do after a hop is decided by `Transfer.next(after:)`
/// (Transfer+Outcome.swift), and features decide through `TransferPolicy`, never
/// named here. Where a transfer is, is its `Transfer.Phase`.
///
/// Every call on the transport but its `wake()` happens on the loop thread. No lock
/// is held while user code runs.
///
/// It names no Swift concurrency type (the C library links none): module NetCore's
/// executor reaches it through `LoopPassHook`, and async sends' waiters through
/// `deferResume(_:resumeAll:)`, as raw pointers (ARCHITECTURE.md, "The seam").
package final class TransferLoop: @unchecked Sendable {
    let inbox: LoopInbox
    let mode: Configuration.CallbackMode
    /// The proxy settings: configured, or the environment's read when the client was made.
    package let proxies: ProxyEnvironment
    /// Synchronous sends' lanes (SyncLanes.swift).
    let lanes: SyncLanes
    /// Queue mode's completions (CompletionQueue.swift); nil in loop mode.
    let completions: CompletionQueue?
    /// What carries the hops (HopTransport.swift): libcurl, or a table in tests.
    let transport: any HopTransport
    /// Counters and switches tests read and set (LoopProbe.swift).
    let probe = LoopProbe()
    private var thread: pthread_t?

    /// Loop-thread state behind a pointer: reached without the runtime's dynamic
    /// exclusivity checks that class properties cost on every access (the loop
    /// thread is its only user, so accesses cannot overlap).
    struct LoopState {
        /// Transfers in the multi handle; each knows its slot (`Phase.running`).
        var active: [Transfer] = []
        /// Transfers waiting to be relaunched after a delay.
        var timers = TimerQueue<Transfer>()
        /// Transfers held until resume(_:).
        var parked = ParkedList<Transfer>()
        /// When the idle watch next looks at the transfers in flight
        /// (monotonicNanos; IdleWatch.swift); 0 while none has an idle limit.
        var idleLookAt: UInt64 = 0
        /// Async sends completed in this pass, resumed together at its end
        /// (deferResume): their waiters as raw pointers, and what resumes them.
        var deferred: [UnsafeRawPointer] = []
        var resumeAll: (([UnsafeRawPointer]) -> Void)?
        /// The transfer in phase `moving`, unretained, for a sweep to find; nil
        /// between moves.
        var moving: Unmanaged<Transfer>?
    }
    let state: UnsafeMutablePointer<LoopState> = {
        let p = UnsafeMutablePointer<LoopState>.allocate(capacity: 1)
        p.initialize(to: LoopState())
        return p
    }()

    /// `transport`: what carries the hops; nil: libcurl (`CurlTransport`).
    init?(
        mode: Configuration.CallbackMode, limits: Configuration.Limits, proxies: ProxyEnvironment = ProxyEnvironment(),
        share: CurlShare? = nil, transport: (any HopTransport)? = nil
    ) {
        self.proxies = proxies
        lanes = SyncLanes(share: share)
        let completions: CompletionQueue?
        if mode == .queue {
            guard let queue = CompletionQueue() else { return nil }
            completions = queue
        } else {
            completions = nil
        }
        guard let carrier = transport ?? CurlTransport(limits: limits, share: share, probe: probe) else { return nil }
        self.completions = completions
        self.mode = mode
        self.transport = carrier
        inbox = LoopInbox(transport: carrier)
        guard let t = startThread({ [self] in run() }) else {
            carrier.close()
            return nil
        }
        thread = t
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Whether the caller runs on the loop thread.
    var isLoopThread: Bool { isCurrentThread(thread) }

    /// Waits for the loop thread to exit (shutdown()).
    func joinThread() { if let thread { pthread_join(thread, nil) } }

    // MARK: loop thread

    private func run() {
        var batch = LoopInbox.Batch()
        while true {
            let life = inbox.take(into: &batch)
            let stopping = !life.acceptsWork
            for t in batch.new { start(t, stopping: stopping) }
            batch.new.clearKeepingBuffer()
            for t in batch.cancelled { cancelNow(t) }
            batch.cancelled.clearKeepingBuffer()
            if !batch.ended.isEmpty {
                for t in batch.ended { finishDetached(t, t.result.0, t.result.1) }
                batch.ended.removeAll()
            }
            if !batch.sweeps.isEmpty {
                runSweeps(batch.sweeps)
                batch.sweeps.removeAll()
            }
            if !batch.resumed.isEmpty {
                // Parked, or waiting out a retry's delay cut short (relaunchNow).
                for t in batch.resumed where t.phase == .waiting(.parked) || t.phase == .waiting(.timer) {
                    unwait(t)
                    relaunch(t)
                }
                batch.resumed.clearKeepingBuffer()
            }
            if stopping {
                inbox.finish([], all: true)
                stopEverything()
                resumeDeferred()
                if life == .stoppingDetached {
                    pthread_detach(pthread_self())
                    cleanUpAfterLoop()
                }
                return
            }
            if !state.pointee.timers.isEmpty {
                for t in state.pointee.timers.popDue(now: monotonicNanos()) {
                    // A parked transfer's deadline: it leaves the parked list too.
                    if t.phase == .waiting(.parked) { state.pointee.parked.remove(t) }
                    t.lifecycle.moves()
                    relaunch(t)
                }
            }

            transport.perform { t, outcome in hopEnded(t, outcome) }
            if state.pointee.idleLookAt != 0 {
                let now = monotonicNanos()
                if now >= state.pointee.idleLookAt { lookForIdle(now: now) }
            }
            resumeDeferred()
            // Sleep only if no work arrived meanwhile (from callbacks or other threads).
            if inbox.mayPoll() {
                var timeout: Int32 = 1000
                if !state.pointee.timers.isEmpty || state.pointee.idleLookAt != 0 {
                    let now = monotonicNanos()
                    timeout = state.pointee.timers.pollTimeoutMs(now: now, cap: 1000)
                    timeout = min(timeout, pollTimeoutMs(until: state.pointee.idleLookAt, now: now))
                }
                transport.wait(timeoutMs: timeout)
            }
        }
    }

    /// Shutting down: every transfer in the multi handle or waiting completes with
    /// `NetError.shutdown`.
    private func stopEverything() {
        for t in state.pointee.active.reversed() {
            complete(t, nil, NetError.shutdown.attempted(stopHop(t)))
        }
        for t in state.pointee.timers.removeAll() + state.pointee.parked.removeAll() {
            guard case .waiting = t.phase else { continue }
            t.lifecycle.moves()
            complete(t, nil, NetError.shutdown.attempted(t.attempt))
        }
    }

    /// Marks `t` as the transfer being moved (`Phase.moving`).
    @inline(__always)
    func moving(_ t: Transfer) {
        t.lifecycle.moves()
        state.pointee.moving = Unmanaged.passUnretained(t)
    }

    private func start(_ t: Transfer, stopping: Bool) {
        moving(t)
        defer { state.pointee.moving = nil }
        t.emitStart()
        if stopping { complete(t, nil, .shutdown); return }
        if t.presetError != nil || t.presetResponse != nil { complete(t, t.presetResponse, t.presetError); return }
        if t.lifecycle.next == .endCancelled { complete(t, nil, .cancelled); return }
        relaunch(t)
    }

    /// Starts a new attempt of `t`, or does what its beginning decided instead
    /// (complete unsent, or park).
    func relaunch(_ t: Transfer) {
        moving(t)
        defer { state.pointee.moving = nil }
        if let instead = t.beginAttempt(now: monotonicNanos()) { execute(instead, for: t); return }
        // Cancelled by a hook of this attempt's beginning (an adapter): nothing sent.
        if t.lifecycle.next == .endCancelled {
            complete(t, nil, NetError.cancelled.attempted(t.attemptsMade(thisOneSent: false)))
            return
        }
        launch(t)
    }

    /// Carries out what `Transfer.next(after:)` decided.
    func execute(_ action: TransferAction, for t: Transfer) {
        // A hook cancelled it while the loop moved it (attempt end, the policy's
        // decision): an outcome already decided stands; anything that would send
        // or wait again ends it as cancelled instead.
        if !action.isComplete, t.lifecycle.next == .endCancelled {
            complete(t, nil, NetError.cancelled.attempted(t.attempt))
            return
        }
        switch action {
        case .complete(let response, let error):
            complete(t, response, error)
        case .redirect:
            launch(t)
        case .relaunch:
            relaunch(t)
        case .relaunchAfter(let ms, let reason):
            t.emitRelaunchScheduled(delayMs: ms, reason: reason)
            // A handler of the relaunch-scheduled event may have cancelled it.
            guard t.lifecycle.waits(.timer) == .proceed else {
                complete(t, nil, NetError.cancelled.attempted(t.attempt))
                return
            }
            state.pointee.timers.schedule(t, at: monotonicNanos(afterMs: ms))
        case .park:
            guard t.lifecycle.waits(.parked) == .proceed else {
                complete(t, nil, NetError.cancelled.attempted(t.attempt))
                return
            }
            state.pointee.parked.append(t)
            // Its deadline ends the wait: woken then, it ends with DEADLINE_EXCEEDED.
            if let due = t.deadlineAt { state.pointee.timers.schedule(t, at: due) }
        }
    }

    /// Takes a waiting transfer out of the timer queue or the parked list (phase
    /// `moving`).
    func unwait(_ t: Transfer) {
        guard case .waiting(let place) = t.phase else { return }
        switch place {
        case .timer: state.pointee.timers.remove(t)
        case .parked:
            state.pointee.parked.remove(t)
            state.pointee.timers.remove(t)   // its deadline, if it has one
        }
        t.lifecycle.moves()
    }

    /// Delivers the single completion: now (loop mode) or via the queue (queue mode).
    func complete(_ t: Transfer, _ response: Response?, _ error: NetError?) {
        // Completing, it is no longer moving: a cancel from its completion's hooks
        // finds it completed (nothing to do) and a sweep does not count it.
        if state.pointee.moving?.toOpaque() == Unmanaged.passUnretained(t).toOpaque() {
            state.pointee.moving = nil
        }
        t.lifecycle.completes()
        t.gate?.ended(t)
        let (response, error) = t.closingOutput(response, error)   // before anyone is told: the file is complete
        t.closeInput()
        t.emitEnd(response, error)
        if let completions {
            t.result = (response, error)
            completions.push(t)
            return
        }
        t.deliver(t, response, error)
        inbox.markDone(t)
    }
}
