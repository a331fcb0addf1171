import CCurlShim
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The transfer loop of one client: one libcurl multi handle driven by one thread
/// (`curl_multi_poll` + `curl_multi_wakeup`). It owns the thread, the multi handle,
/// the queues in (submissions, cancels, resumes, a pass hook's work), the timer queue of
/// delayed relaunches, and the carrying out of `TransferAction`s — nothing else.
/// What to do after a hop is decided by `Transfer.next(after:)`
/// (Transfer+Outcome.swift); features decide through `TransferPolicy` and are
/// never named here.
///
/// Other threads only queue work under `monitor` and wake the loop; every libcurl
/// call on the multi handle happens on the loop thread. No lock is held while user
/// code runs.
///
/// It names no Swift concurrency type (the C library links none): module NetCore's
/// executor reaches it through `LoopPassHook`, and async sends' waiters through
/// `deferResume(_:resumeAll:)`, as raw pointers (ARCHITECTURE.md, "The seam").
package final class TransferLoop: @unchecked Sendable {
    let monitor = Monitor()
    let mode: Configuration.CallbackMode
    /// The proxy settings: configured, or the environment's read when the client was made.
    let proxies: ProxyEnvironment
    /// Synchronous sends' lanes (SyncLanes.swift).
    let lanes: SyncLanes
    /// What every easy handle of this loop and its lanes attaches to at creation
    /// (CurlShare.swift); nil: nothing shared.
    private let share: CurlShare?
    /// Queue mode's completions (CompletionQueue.swift); nil in loop mode.
    let completions: CompletionQueue?
    /// Where the loop is in its life; written under the monitor.
    let lifecycle = Atomic<LoopLifecycle>(.running)
    private let multi: UnsafeMutableRawPointer
    private let ids = Atomic<UInt64>(0)

    // Guarded by monitor. The queues are touched on every send: their accesses are
    // serialised by the monitor, so the runtime's dynamic exclusivity check (which
    // `swap` with a local makes the compiler emit) is turned off for them.
    @exclusivity(unchecked) private var pending: [Transfer] = []
    @exclusivity(unchecked) private var cancels: [Transfer] = []
    @exclusivity(unchecked) private var unparks: [Transfer] = []
    /// Transfers the loop does not run that their owner ended (TransferOwner.swift),
    /// each with its `result` set, for the loop thread to complete.
    @exclusivity(unchecked) private var detached: [Transfer] = []
    /// cancelMatching() calls from other threads, for the loop thread to run.
    @exclusivity(unchecked) private var sweeps: [Sweep] = []
    /// What runs at the start of each pass besides the loop's own work: module
    /// NetCore's executor, once a task asked for it (LoopPassHook); nil otherwise,
    /// which costs the loop one check per pass. Dropped when the loop stops.
    private var passHook: (any LoopPassHook)?
    /// The loop thread is in (or about to enter) curl_multi_poll: new work must wake it.
    private var polling = false
    /// A wake-up was sent during the current poll.
    private var wakeSent = false
    /// Threads in cancel() waiting for a completion (markDone wakes them).
    private var doneWaiters = 0

    // Loop thread only.
    private var thread: pthread_t?
    /// Loop-thread state behind a pointer: reached without the runtime's dynamic
    /// exclusivity checks that class properties cost on every access (the loop
    /// thread is its only user, so accesses cannot overlap).
    private struct LoopState {
        /// Transfers in the multi handle; each knows its slot (`activeSlot`).
        var active: [Transfer] = []
        var easyPool = EasyHandlePool()
        /// Transfers waiting to be relaunched after a delay.
        var timers = TimerQueue<Transfer>()
        /// Transfers held until resume(_:).
        var parked = ParkedList<Transfer>()
        /// When the idle watch next looks at the transfers in flight
        /// (monotonicNanos; IdleWatch.swift); 0 while none has an idle limit.
        var idleLookAt: UInt64 = 0
        /// Finished transfers of one drainMessages() pass, each retained once by hand:
        /// trivial elements, so emptying the list costs no per-element destroy.
        var messages: [(Unmanaged<Transfer>, UnsafeMutableRawPointer, CURLcode)] = []
        /// Async sends completed in this pass, resumed together at its end
        /// (deferResume): their waiters as raw pointers, and what resumes them.
        var deferred: [UnsafeRawPointer] = []
        var resumeAll: (([UnsafeRawPointer]) -> Void)?
        /// The transfer the loop is moving from one state to the next (starting it,
        /// beginning an attempt, deciding after a hop), unretained: meanwhile it is
        /// in no list, and hooks run (request start, adapters, attempt end, the retry
        /// decision). A cancel of it from one of them sets its `cancelAsked`, acted on
        /// before it sends or waits again. nil between moves.
        var moving: Unmanaged<Transfer>?
    }
    private let state: UnsafeMutablePointer<LoopState> = {
        let p = UnsafeMutablePointer<LoopState>.allocate(capacity: 1)
        p.initialize(to: LoopState())
        return p
    }()

    /// Queue mode's notification descriptor (eventfd), -1 in loop mode.
    var eventFD: Int32 { completions?.fd ?? -1 }

    init?(
        mode: Configuration.CallbackMode, limits: Configuration.Limits, proxies: ProxyEnvironment = ProxyEnvironment(),
        share: CurlShare? = nil
    ) {
        self.proxies = proxies
        self.share = share
        lanes = SyncLanes(share: share)
        CurlGlobal.ensureInitialized()
        guard let m = curl_multi_init() else { return nil }
        if mode == .queue {
            guard let queue = CompletionQueue() else { curl_multi_cleanup(m); return nil }
            completions = queue
        } else {
            completions = nil
        }
        self.mode = mode
        multi = m
        _ = ncshim_multi_setopt_long(m, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxConnectionsPerHost)
        TransferLoop.sizeConnectionCache(m, handles: EasyHandlePool.floor)
        guard let t = startThread({ [self] in run() }) else {
            curl_multi_cleanup(m)
            return nil
        }
        thread = t
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    // MARK: called from any thread

    /// The next request number of this client (events' `id`, nc_task_id).
    func nextID() -> UInt64 { ids.wrappingAdd(1, ordering: .relaxed).newValue }

    /// Queues a transfer. False if the client is shutting down.
    func submit(_ t: Transfer) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        guard lifecycle.load(ordering: .relaxed).acceptsWork else { return false }
        t.id = nextID()
        pending.append(t)
        wake()
        return true
    }

    /// Queues `shared` (its `owner` set) on behalf of `caller`, a transfer the loop
    /// will not run: the caller takes the shared transfer's id and `owner`, so its
    /// cancels go to the owner (TransferOwner.swift). False, with nothing queued,
    /// if the client is shutting down or `caller` was already asked to cancel (a
    /// Swift task cancelled before its send: submit it alone).
    func submit(_ shared: Transfer, for caller: Transfer) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        guard lifecycle.load(ordering: .relaxed).acceptsWork, !caller.cancelRequested else { return false }
        shared.id = nextID()
        caller.id = shared.id
        caller.owner = shared.owner
        pending.append(shared)
        wake()
        return true
    }

    /// Gives `caller` (a transfer the loop will not run) the id and owner of
    /// `shared`, which runs already. False if `caller` was already asked to cancel.
    func attach(_ caller: Transfer, to shared: Transfer) -> Bool {
        monitor.withLock {
            if caller.cancelRequested { return false }
            caller.id = shared.id
            caller.owner = shared.owner
            return true
        }
    }

    /// The pass hook of this loop (module NetCore's executor): the one installed,
    /// else `make()`'s, installed now while the loop accepts work. Once shutdown
    /// has begun the new hook is not installed: `queueForPass` refuses it, so its
    /// work goes elsewhere (no task waits on a stopped loop). Any thread.
    package func passHook<H: LoopPassHook>(_ make: () -> H) -> H {
        monitor.lock()
        defer { monitor.unlock() }
        if let installed = passHook as? H { return installed }
        let hook = make()
        if passHook == nil && lifecycle.load(ordering: .relaxed).acceptsWork { passHook = hook }
        return hook
    }

    /// Queues work of the installed pass hook `hook`, from any thread (the loop
    /// thread included): runs `body` (which adds to the hook's queue) under the
    /// monitor and wakes the loop, whose next pass takes it (`LoopPassHook.take`)
    /// and runs it before new transfers start, so a task resumed by a completion
    /// sends its next request in the same pass without a thread switch. False,
    /// `body` not run, once shutdown has begun or when `hook` is not installed.
    package func queueForPass(_ hook: AnyObject, _ body: () -> Void) -> Bool {
        monitor.lock()
        guard lifecycle.load(ordering: .relaxed).acceptsWork, passHook === hook else {
            monitor.unlock()
            return false
        }
        body()
        wake()
        monitor.unlock()
        return true
    }

    /// Relaunches a transfer parked by `TransferAction.park` (a new attempt), from
    /// any thread. Nothing happens for a transfer that is not parked (anymore).
    func resume(_ t: Transfer) {
        monitor.lock()
        t.resumeRequested = true
        if let lane = t.parkedLane {
            monitor.unlock()
            lanes.wake(lane)
            return
        }
        if lifecycle.load(ordering: .relaxed).acceptsWork {
            unparks.append(t)
            wake()
        }
        monitor.unlock()
    }

    /// Wakes the loop thread if it sleeps in curl_multi_poll. A loop that is busy
    /// (or a submission from a callback, on the loop thread itself) needs none: the
    /// loop looks at its queues before it polls again. Call with the monitor held,
    /// while the loop runs.
    private func wake() {
        if polling && !wakeSent {
            wakeSent = true
            curl_multi_wakeup(multi)
        }
    }

    /// True once the loop has stopped and freed its multi handle.
    var isStopped: Bool { lifecycle.load(ordering: .acquiring) == .stopped }

    /// Whether the caller runs on the loop thread (an executor job or a callback).
    package var onLoopThread: Bool { isCurrentThread(thread) }

    /// Queue mode, called on the loop thread: queues `call` to run in the next
    /// `dispatch()` (after the completions queued before it) and returns true.
    /// Otherwise false: the caller runs it now. How a hook reaches the caller's
    /// thread in queue mode, as the completions do.
    func deferToDispatch(_ call: @escaping @Sendable () -> Void) -> Bool {
        guard let completions, onLoopThread else { return false }
        completions.push(call)
        return true
    }

    /// deferToDispatch would take a call now (queue mode, on the loop thread):
    /// asked first by callers that would otherwise allocate the call for nothing.
    var defersToDispatch: Bool { completions != nil && onLoopThread }

    /// True when the caller runs inside one of this client's callbacks.
    var isCallbackThread: Bool {
        onLoopThread || (completions?.isDrainingThread ?? false) || CallbackScope.isInside(self)
    }

    func cancel(_ t: Transfer) {
        if let owner = monitor.withLock({ t.owner }) {
            cancelCaller(t, owner, now: true)
            if onLoopThread || mode == .queue || (completions?.isDrainingThread ?? false) { return }
            monitor.lock()
            doneWaiters += 1
            while !t.done { monitor.wait() }
            doneWaiters -= 1
            monitor.unlock()
            return
        }
        if onLoopThread { cancelOnLoopThread(t); return }
        // In queue mode the completion runs at the next dispatch(): do not wait.
        // Inside dispatch() the transfer may be the one running: do not wait.
        let noWait = mode == .queue || (completions?.isDrainingThread ?? false)
        monitor.lock()
        defer { monitor.unlock() }
        enqueueCancel(t)
        if noWait { return }
        doneWaiters += 1
        while !t.done { monitor.wait() }
        doneWaiters -= 1
    }

    /// Cancels caller `t` of a shared transfer as its owner says. `now`: on the
    /// loop thread, complete at once (nc_task_cancel from a callback); otherwise
    /// only queue the work (never run a completion on the calling thread). While
    /// shutting down nothing is done: the shared transfer completes every caller.
    private func cancelCaller(_ t: Transfer, _ owner: any TransferOwner, now: Bool) {
        guard lifecycle.load(ordering: .relaxed).acceptsWork else { return }
        let answer = owner.cancel(caller: t)
        for d in answer.detached { completeDetached(d, nil, .cancelled, now: now) }
        if let shared = answer.shared {
            if now && onLoopThread {
                cancelOnLoopThread(shared)
            } else {
                monitor.withLock { enqueueCancel(shared) }
            }
        }
    }

    /// Completes `t`, a transfer the loop does not run, exactly once on the thread
    /// completions run on: the loop thread (at once when `now` and called there),
    /// or the next `dispatch()` in queue mode. Once the loop takes no more work it
    /// completes here, on the calling thread (nothing else would).
    func completeDetached(_ t: Transfer, _ response: Response?, _ error: NetError?, now: Bool) {
        if now && onLoopThread {
            finishDetached(t, response, error)
            return
        }
        monitor.lock()
        if lifecycle.load(ordering: .relaxed).acceptsWork {
            t.result = (response, error)
            detached.append(t)
            wake()
            monitor.unlock()
            return
        }
        monitor.unlock()
        finishDetached(t, response, error)
    }

    private func finishDetached(_ t: Transfer, _ response: Response?, _ error: NetError?) {
        if let completions {
            t.result = (response, error)
            completions.push(t)
            return
        }
        t.result = (nil, nil)
        t.deliver(t, response, error)
        markDone(t)
    }

    /// One cancelMatching() call waiting for the loop thread.
    private final class Sweep {
        let match: (Transfer) -> Bool
        var cancelled = 0
        var finished = false
        init(_ match: @escaping (Transfer) -> Bool) { self.match = match }
    }

    /// Cancels every transfer of this loop that `match` accepts and that is not
    /// already cancelled or completing: submitted but not started, in the multi
    /// handle, or waiting between attempts (a delay, a park). Each completes once
    /// with CANCELLED; returns how many. `match` runs on the loop thread and must
    /// not call the loop. Synchronous sends are not the loop's and are not seen.
    /// From another thread this waits for the loop's next pass; from a callback
    /// on the loop thread it acts at once. 0 once the loop stops.
    func cancelMatching(_ match: @escaping (Transfer) -> Bool) -> Int {
        if onLoopThread { return sweep(match) }
        let s = Sweep(match)
        monitor.lock()
        defer { monitor.unlock() }
        guard lifecycle.load(ordering: .relaxed).acceptsWork else { return 0 }
        sweeps.append(s)
        wake()
        doneWaiters += 1
        while !s.finished { monitor.wait() }
        doneWaiters -= 1
        return s.cancelled
    }

    /// Loop thread: cancelMatching's work.
    private func sweep(_ match: (Transfer) -> Bool) -> Int {
        var n = 0
        // Not started yet: flagged, completed as cancelled when the loop takes them.
        var running: [Transfer] = []
        var ownedPending: [Transfer] = []
        monitor.withLock {
            for t in pending where !t.cancelRequested {
                if t.owner != nil {
                    ownedPending.append(t)   // its callers are matched, below, without the monitor
                } else if match(t) {
                    t.cancelRequested = true
                    n += 1
                }
            }
        }
        for t in ownedPending {
            guard let answer = t.owner?.cancelCallers(of: t, where: match) else { continue }
            n += completeCancelled(answer)
            if answer.shared != nil {
                let claimed: Bool = monitor.withLock {
                    if t.done || t.cancelRequested { return false }
                    t.cancelRequested = true
                    return true
                }
                if claimed { n += answer.last }
            }
        }
        running.append(contentsOf: state.pointee.active)
        running.append(contentsOf: state.pointee.timers.items)
        running.append(contentsOf: state.pointee.parked.all)
        // Swept from one of its own hooks (an adapter, its attempt-end event).
        let moving = state.pointee.moving?.takeUnretainedValue()
        if let moving { running.append(moving) }
        for t in running {
            // A shared transfer counts its callers, which its owner matches.
            var last = 1
            if let owner = t.owner {
                let answer = owner.cancelCallers(of: t, where: match)
                n += completeCancelled(answer)
                guard answer.shared != nil else { continue }
                last = answer.last
            } else if !match(t) {
                continue
            }
            let claimed: Bool = monitor.withLock {
                if t.done || t.cancelRequested { return false }
                t.cancelRequested = true
                return true
            }
            guard claimed else { continue }
            if (t.easy != nil && t.activeSlot >= 0) || t.waiting != .none {
                cancelNow(t)
            } else if t === moving {
                t.cancelAsked = true
            } else {
                continue
            }
            n += last
        }
        return n
    }

    /// Loop thread: completes the callers an owner detached, with CANCELLED; how many.
    private func completeCancelled(_ answer: OwnedCancel) -> Int {
        for d in answer.detached { completeDetached(d, nil, .cancelled, now: true) }
        return answer.detached.count
    }

    /// Loop thread: runs the sweeps other threads asked for and wakes them.
    private func runSweeps(_ asked: [Sweep]) {
        for s in asked { s.cancelled = sweep(s.match) }
        monitor.withLock {
            for s in asked { s.finished = true }
            monitor.broadcast()
        }
    }

    /// Shutting down: the sweeps still waiting end with what they did (nothing).
    private func finishSweeps() {
        monitor.withLock {
            for s in sweeps { s.finished = true }
            sweeps.removeAll()
            monitor.broadcast()
        }
    }

    /// Asks the loop thread to cancel `t` and returns at once, from any thread
    /// (this loop's included): never waits, never runs the completion on the
    /// calling thread. For callers that hold a lock the completion may need, such
    /// as a Swift task-cancellation handler (see module NetCore's NetClient+Async.swift). Idempotent.
    package func requestCancel(_ t: Transfer) {
        monitor.lock()
        if let owner = t.owner {
            monitor.unlock()
            cancelCaller(t, owner, now: false)
            return
        }
        enqueueCancel(t)
        monitor.unlock()
    }

    /// Queues `t` for the loop's cancel pass, once. Call with the monitor held.
    private func enqueueCancel(_ t: Transfer) {
        if t.done || t.cancelRequested { return }
        t.cancelRequested = true
        // Shutting down: the loop completes every transfer anyway. Queuing it now
        // could outlive the loop thread and keep the transfer (and, through it,
        // the loop) alive forever.
        guard lifecycle.load(ordering: .relaxed).acceptsWork else { return }
        cancels.append(t)
        wake()
    }

    /// Stops the loop: every transfer completes with `NetError.shutdown`; returns
    /// after the loop thread has exited. Queued completions (queue mode) then run
    /// on the calling thread. False (nothing done) from inside a callback.
    func shutdown() -> Bool {
        if isCallbackThread { return false }
        monitor.lock()
        guard lifecycle.load(ordering: .relaxed) == .running else {
            monitor.unlock()
            return true
        }
        lifecycle.store(.stopping, ordering: .releasing)
        curl_multi_wakeup(multi)
        monitor.unlock()
        lanes.stop(wait: true)
        if let thread { pthread_join(thread, nil) }
        cleanUpAfterLoop()
        return true
    }

    /// Stops the loop without waiting for it, from inside one of its callbacks (or
    /// a job of its executor): for the owner's deinit, which may run there when
    /// the last reference goes. Transfers in flight complete with
    /// `NetError.shutdown` as with shutdown(); the loop thread then cleans up and
    /// exits on its own.
    func stopDetached() {
        monitor.lock()
        guard lifecycle.load(ordering: .relaxed) == .running else {
            monitor.unlock()
            return
        }
        lifecycle.store(.stoppingDetached, ordering: .releasing)
        curl_multi_wakeup(multi)
        monitor.unlock()
        // A synchronous send holds its client, so no lane is busy when the owner
        // goes; stop them anyway.
        lanes.stop(wait: false)
    }

    /// After the loop thread has stopped: nothing may stay queued behind it (a
    /// transfer or a job refers to it), queued completions run, libcurl is freed.
    private func cleanUpAfterLoop() {
        let hook: (any LoopPassHook)? = monitor.withLock {
            pending.removeAll()
            cancels.removeAll()
            detached.removeAll()
            unparks.removeAll()
            for s in sweeps { s.finished = true }
            sweeps.removeAll()
            if doneWaiters > 0 { monitor.broadcast() }
            // The hook's queued work is taken now and handed on below; dropping the
            // hook ends the loop -> hook -> loop cycle.
            let left = passHook
            passHook = nil
            left?.take()
            return left
        }
        // Tasks waiting on the executor continue on Swift's global executor.
        hook?.loopStopped()
        _ = dispatch(force: true)
        state.pointee.easyPool.removeAll()
        monitor.withLock {
            curl_multi_cleanup(multi)
            lifecycle.store(.stopped, ordering: .releasing)
        }
    }

    /// Queue mode: runs the completions waiting now on the calling thread.
    func dispatch(force: Bool = false) -> DispatchResult {
        guard let completions else { return .wrongMode }
        return completions.drain(force: force) { t in
            t.deliver(t, t.result.0, t.result.1)
            t.result = (nil, nil)
            markDone(t)
        }
    }

    // MARK: loop thread

    private func run() {
        var running: Int32 = 0
        var newOnes: [Transfer] = []
        var cancelled: [Transfer] = []
        var resumed: [Transfer] = []
        var ended: [Transfer] = []
        var askedSweeps: [Sweep] = []
        while true {
            monitor.lock()
            polling = false
            if let hook = passHook, hook.hasWork {
                // Executor jobs first: what they send starts in this same pass.
                hook.take()
                monitor.unlock()
                hook.runTaken()
                monitor.lock()
            }
            swap(&newOnes, &pending)
            swap(&cancelled, &cancels)
            if !sweeps.isEmpty { swap(&askedSweeps, &sweeps) }
            if !unparks.isEmpty { swap(&resumed, &unparks) }
            if !detached.isEmpty { swap(&ended, &detached) }
            let phase = lifecycle.load(ordering: .relaxed)
            // Cancels asked for before now; later ones arrive through `cancels`.
            for t in newOnes where t.cancelRequested { t.cancelAsked = true }
            monitor.unlock()

            let stopping = !phase.acceptsWork
            for t in newOnes { start(t, stopping: stopping) }
            newOnes.clearKeepingBuffer()
            for t in cancelled { cancelNow(t) }
            cancelled.clearKeepingBuffer()
            if !ended.isEmpty {
                for t in ended { finishDetached(t, t.result.0, t.result.1) }
                ended.removeAll()
            }
            if !askedSweeps.isEmpty {
                runSweeps(askedSweeps)
                askedSweeps.removeAll()
            }
            if !resumed.isEmpty {
                for t in resumed where t.waiting == .parked {
                    unwait(t)
                    relaunch(t)
                }
                resumed.clearKeepingBuffer()
            }
            if stopping {
                finishSweeps()
                stopEverything()
                resumeDeferred()
                if phase == .stoppingDetached {
                    pthread_detach(pthread_self())
                    cleanUpAfterLoop()
                }
                return
            }
            if !state.pointee.timers.isEmpty {
                for t in state.pointee.timers.popDue(now: monotonicNanos()) {
                    // A parked transfer's deadline: it leaves the parked list too.
                    if t.waiting == .parked { state.pointee.parked.remove(t) }
                    t.waiting = .none
                    relaunch(t)
                }
            }

            _ = curl_multi_perform(multi, &running)
            drainMessages()
            if state.pointee.idleLookAt != 0 {
                let now = monotonicNanos()
                if now >= state.pointee.idleLookAt { lookForIdle(now: now) }
            }
            resumeDeferred()
            if !poolFrozen.load(ordering: .relaxed),
                state.pointee.easyPool.tick(inUse: state.pointee.active.count, now: EasyHandlePool.nowMs())
            {
                TransferLoop.sizeConnectionCache(multi, handles: state.pointee.easyPool.keep)
            }
            // Sleep only if no work arrived meanwhile (from callbacks or other threads);
            // from here on, new work wakes the poll (see wake()).
            monitor.lock()
            let idle =
                pending.isEmpty && cancels.isEmpty && unparks.isEmpty && !(passHook?.hasWork ?? false)
                && sweeps.isEmpty
                && detached.isEmpty
                && lifecycle.load(ordering: .relaxed).acceptsWork
            if idle {
                polling = true
                wakeSent = false
            }
            monitor.unlock()
            if idle {
                var timeout: Int32 = 1000
                if !state.pointee.timers.isEmpty || state.pointee.idleLookAt != 0 {
                    let now = monotonicNanos()
                    timeout = state.pointee.timers.pollTimeoutMs(now: now, cap: 1000)
                    timeout = min(timeout, pollTimeoutMs(until: state.pointee.idleLookAt, now: now))
                }
                _ = curl_multi_poll(multi, nil, 0, timeout, nil)
            }
        }
    }

    /// Shutting down: every transfer in the multi handle or waiting completes with
    /// `NetError.shutdown`.
    private func stopEverything() {
        for t in state.pointee.active.reversed() {
            var sent: Int32 = 0
            if let easy = t.easy {
                sent = t.attemptsMade(stoppedOn: easy)
                stop(t, easy)
            }
            complete(t, nil, NetError.shutdown.attempted(sent))
        }
        for t in state.pointee.timers.removeAll() + state.pointee.parked.removeAll() where t.waiting != .none {
            t.waiting = .none
            complete(t, nil, NetError.shutdown.attempted(t.attempt))
        }
    }

    /// Called by an async send's completion on the loop thread (module NetCore):
    /// its task (which runs on Swift's global executor) is resumed at the end of
    /// this pass, with every other one completed in it, by one call of `resumeAll`
    /// with their waiters (it starts one job on the global executor). `waiter` is the
    /// task's continuation as the one pointer it is (Transfer.waiter). Resumed one by
    /// one from here, each wakes a pool thread, which on a busy core preempts this
    /// one at once: two context switches per request; batched, far fewer, and more
    /// requests a second (bench/RESULTS.md, "Figures that justified code choices").
    /// False when not on the loop thread (queue mode: the caller resumes it itself).
    package func deferResume(
        _ waiter: UnsafeRawPointer, resumeAll: @escaping ([UnsafeRawPointer]) -> Void
    ) -> Bool {
        guard onLoopThread else { return false }
        state.pointee.deferred.append(waiter)
        state.pointee.resumeAll = resumeAll
        return true
    }

    /// Resumes the waiters deferResume() collected, by handing them to the
    /// `resumeAll` given with them (one job on Swift's global executor, so the loop
    /// goes on to its next pass without a thread switch).
    private func resumeDeferred() {
        guard !state.pointee.deferred.isEmpty, let resumeAll = state.pointee.resumeAll else { return }
        let batch = state.pointee.deferred
        state.pointee.deferred.removeAll(keepingCapacity: true)
        resumeAll(batch)
    }

    private func start(_ t: Transfer, stopping: Bool) {
        state.pointee.moving = Unmanaged.passUnretained(t)
        defer { state.pointee.moving = nil }
        t.emitStart()
        if stopping { complete(t, nil, .shutdown); return }
        if t.presetError != nil || t.presetResponse != nil { complete(t, t.presetResponse, t.presetError); return }
        if t.cancelAsked { complete(t, nil, .cancelled); return }
        relaunch(t)
    }

    /// Starts a new attempt of `t`, or does what its beginning decided instead
    /// (complete unsent, or park).
    private func relaunch(_ t: Transfer) {
        state.pointee.moving = Unmanaged.passUnretained(t)
        defer { state.pointee.moving = nil }
        if let instead = t.beginAttempt(now: monotonicNanos()) { execute(instead, for: t); return }
        // Cancelled by a hook of this attempt's beginning (an adapter): nothing sent.
        if t.cancelAsked { complete(t, nil, NetError.cancelled.attempted(t.attemptsMade(thisOneSent: false))); return }
        launch(t)
    }

    /// Puts `t` (its current hop) into the multi handle.
    private func launch(_ t: Transfer) {
        let prepared: PreparedRequest
        let timeoutMs: Int64
        switch HopDriver.ready(t) {
        case .failure(let e):
            complete(t, nil, e)
            return
        case .success(let hop): (prepared, timeoutMs) = hop
        }
        guard let easy = state.pointee.easyPool.take() ?? newEasyHandle() else {
            complete(
                t, nil,
                NetError.internalError("libcurl could not create a transfer (out of memory).")
                    .attempted(t.attemptsMade(thisOneSent: false)))
            return
        }
        let look: UInt64
        switch HopDriver.start(t, prepared, timeoutMs: timeoutMs, on: easy, multi: multi) {
        case .failure(let e):
            easy.parked()
            state.pointee.easyPool.put(easy, inUse: state.pointee.active.count)
            complete(t, nil, e)
            return
        case .success(let first): look = first
        }
        t.activeSlot = state.pointee.active.count
        state.pointee.active.append(t)
        if look != 0 && (state.pointee.idleLookAt == 0 || look < state.pointee.idleLookAt) {
            state.pointee.idleLookAt = look
        }
        if state.pointee.easyPool.noteInUse(state.pointee.active.count) {
            TransferLoop.sizeConnectionCache(multi, handles: state.pointee.easyPool.keep)
        }
    }

    /// libcurl's cache of idle connections holds 4 per easy handle, as by default,
    /// but per handle the pool keeps (the last second's peak in use, at least 64)
    /// rather than per handle added at this instant. libcurl's default counts the
    /// transfers in the multi handle when a connection comes back: a client whose
    /// callers send again after each result (async tasks, callbacks that hand off)
    /// has few added between batches, so libcurl closed the oldest idle connection
    /// at each completion and reconnected later (bench/RESULTS.md, "Figures that
    /// justified code choices").
    static func sizeConnectionCache(_ multi: UnsafeMutableRawPointer, handles: Int) {
        _ = ncshim_multi_setopt_long(
            multi, CURLMOPT_MAXCONNECTS,
            handles.multipliedReportingOverflow(by: 4).overflow
                ? Int.max : handles * 4)
    }

    /// Easy handles this loop has made (tests check the pool's reuse).
    let handlesMade = Atomic<Int>(0)
    /// Tests only: while set, the pool's size is not re-judged (its one-second
    /// window does not advance), so a burst's handles are kept however long a
    /// loaded machine takes between two bursts. One relaxed load a pass.
    let poolFrozen = Atomic<Bool>(false)

    private func newEasyHandle() -> EasyHandle? {
        handlesMade.add(1, ordering: .relaxed)
        return EasyHandle(share: share)
    }

    /// Takes a transfer out of the multi handle and recycles its easy handle.
    private func stop(_ t: Transfer, _ easy: EasyHandle) {
        _ = curl_multi_remove_handle(multi, easy.handle)
        t.easy = nil
        release(t, easy)
    }

    /// `t`, out of the multi handle, leaves the active list; its easy handle goes
    /// back to the pool.
    private func release(_ t: Transfer, _ easy: EasyHandle) {
        let slot = t.activeSlot
        if slot >= 0 && slot < state.pointee.active.count {
            let last = state.pointee.active.removeLast()
            if slot < state.pointee.active.count {
                state.pointee.active[slot] = last
                last.activeSlot = slot
            }
        }
        t.activeSlot = -1
        easy.parked()
        // Kept for the next transfer while the pool's size allows (EasyHandlePool).
        state.pointee.easyPool.put(easy, inUse: state.pointee.active.count)
    }

    private func drainMessages() {
        // Read every message (and whose transfer it is) before completing any: a
        // completion may remove or recycle other easy handles, which invalidates
        // libcurl's message storage and may hand a handle to another transfer.
        var left: Int32 = 0
        while let msg = curl_multi_info_read(multi, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let h = msg.pointee.easy_handle else { continue }
            var priv: UnsafeMutableRawPointer? = nil
            guard ncshim_easy_getinfo_ptr(h, CURLINFO_PRIVATE, &priv) == CURLE_OK, let priv else { continue }
            state.pointee.messages.append((Unmanaged<Transfer>.fromOpaque(priv).retain(), h, ncshim_msg_result(msg)))
        }
        for (ref, h, code) in state.pointee.messages {
            let t = ref.takeRetainedValue()
            // A callback earlier in this batch may have cancelled it already.
            guard t.activeSlot >= 0, let easy = t.easy, easy.handle == h else { continue }
            hopEnded(t, easy, code)
        }
        state.pointee.messages.clearKeepingBuffer()
    }

    /// The idle watch's look at every transfer in flight (IdleWatch.swift): those
    /// that moved no byte for their idle limit end as libcurl's timeouts do, and the
    /// next look is set.
    private func lookForIdle(now: UInt64) {
        let (stalled, next) = Transfer.lookForIdle(state.pointee.active, now: now)
        state.pointee.idleLookAt = next
        for t in stalled {
            guard t.activeSlot >= 0, let easy = t.easy else { continue }
            hopEnded(t, easy, CURLE_OPERATION_TIMEDOUT)
        }
    }

    /// The hop of `t` on `easy` ended with `code`: read it, give the handle back,
    /// then carry out what `Transfer.next(after:)` decides.
    private func hopEnded(_ t: Transfer, _ easy: EasyHandle, _ code: CURLcode) {
        let outcome = HopDriver.finish(t, easy, code, multi: multi)
        release(t, easy)
        state.pointee.moving = Unmanaged.passUnretained(t)
        execute(t.next(after: consume outcome), for: t)
        state.pointee.moving = nil
    }

    /// Carries out what `Transfer.next(after:)` decided.
    private func execute(_ action: TransferAction, for t: Transfer) {
        // A hook cancelled it while the loop moved it (attempt end, the retry
        // decision): an outcome already decided stands; anything that would send
        // or wait again ends it as cancelled instead.
        if t.cancelAsked, !action.isComplete {
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
            if t.cancelAsked {   // by a handler of the relaunch-scheduled event
                complete(t, nil, NetError.cancelled.attempted(t.attempt))
                return
            }
            t.waiting = .timer
            state.pointee.timers.schedule(t, at: monotonicNanos(afterMs: ms))
        case .park:
            t.waiting = .parked
            state.pointee.parked.append(t)
            // Its deadline ends the wait: woken then, it ends with DEADLINE_EXCEEDED.
            if let due = t.deadlineAt { state.pointee.timers.schedule(t, at: due) }
        }
    }

    /// Takes a waiting transfer out of the timer queue or the parked list.
    private func unwait(_ t: Transfer) {
        switch t.waiting {
        case .none: return
        case .timer: state.pointee.timers.remove(t)
        case .parked:
            state.pointee.parked.remove(t)
            state.pointee.timers.remove(t)   // its deadline, if it has one
        }
        t.waiting = .none
    }

    /// Cancels `t` now if it is in the multi handle or waiting between attempts;
    /// otherwise it is completing (perhaps in this very callback) or done.
    private func cancelNow(_ t: Transfer) {
        if let easy = t.easy, t.activeSlot >= 0 {
            let sent = t.attemptsMade(stoppedOn: easy)
            stop(t, easy)
            complete(t, nil, NetError.cancelled.attempted(sent))
        } else if t.waiting != .none {
            unwait(t)
            complete(t, nil, NetError.cancelled.attempted(t.attempt))
        }
    }

    /// Whether `t` is the transfer the loop is moving (LoopState.moving).
    @inline(__always)
    private func isMoving(_ t: Transfer) -> Bool {
        state.pointee.moving?.toOpaque() == Unmanaged.passUnretained(t).toOpaque()
    }

    /// Delivers the single completion: now (loop mode) or via the queue (queue mode).
    private func complete(_ t: Transfer, _ response: Response?, _ error: NetError?) {
        // Completing, it is no longer moving: a cancel from its completion's hooks
        // finds it completing (nothing to do) and a sweep does not count it.
        if isMoving(t) { state.pointee.moving = nil }
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
        markDone(t)
    }

    func markDone(_ t: Transfer) {
        monitor.lock()
        t.done = true
        if doneWaiters > 0 { monitor.broadcast() }
        monitor.unlock()
    }

    /// nc_task_cancel from inside a callback running on the loop thread: act now,
    /// since waiting for the loop would wait for ourselves.
    private func cancelOnLoopThread(_ t: Transfer) {
        guard lifecycle.load(ordering: .relaxed).acceptsWork else { return }
        if (t.easy != nil && t.activeSlot >= 0) || t.waiting != .none {
            cancelNow(t)
            return
        }
        if isMoving(t) {
            t.cancelAsked = true   // acted on before it sends or waits again
            return
        }
        let wasPending: Bool = monitor.withLock {
            guard !t.done, let i = pending.firstIndex(where: { $0 === t }) else { return false }
            pending.remove(at: i)
            return true
        }
        if wasPending {
            t.emitStart()
            complete(t, nil, .cancelled)
        }
    }
}

/// Work another module runs on a loop's thread at the start of each pass: module
/// NetCore's executor (NetClient.Executor) queues the jobs of tasks that prefer the
/// client's executor through it, so that this module (and the C library built on
/// it) names no Swift concurrency type. Installed by `TransferLoop.passHook(_:)`;
/// the loop holds it until it stops.
package protocol LoopPassHook: AnyObject {
    /// Whether work waits for the next pass. The loop's monitor is held.
    var hasWork: Bool { get }
    /// Takes the work waiting now, for `runTaken()` or `loopStopped()`. The loop's
    /// monitor is held; on the loop thread, or after it ended.
    func take()
    /// Runs, in order, what `take()` took. On the loop thread, monitor not held.
    func runTaken()
    /// The loop has stopped (the hook is dropped): hands on what `take()` took
    /// last, which must not wait for the loop. Once; any thread, monitor not held.
    func loopStopped()
}
