import CCurlShim
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The transfer loop of one client: one libcurl multi handle driven by one thread
/// (`curl_multi_poll` + `curl_multi_wakeup`). Other threads only queue work
/// (submissions, cancels, shutdown) under `monitor` and wake the loop; every
/// libcurl call on the multi handle happens on the loop thread. No lock is held
/// while user code runs.
final class TransferLoop: @unchecked Sendable {
    let monitor = Monitor()
    let mode: Configuration.CallbackMode
    private let limits: Configuration.Limits
    /// The environment's proxy settings, read when the client was made.
    let proxies = ProxyEnvironment()

    // Guarded by monitor. The queues are touched on every send: their accesses are
    // serialised by the monitor, so the runtime's dynamic exclusivity check (which
    // `swap` with a local makes the compiler emit) is turned off for them.
    private var multi: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var pending: [Transfer] = []
    @exclusivity(unchecked) private var cancels: [Transfer] = []
    private(set) var shuttingDown = false
    /// The loop thread is in (or about to enter) curl_multi_poll: new work must wake it.
    private var polling = false
    /// A wake-up was sent during the current poll.
    private var wakeSent = false
    /// Threads in cancel() waiting for a completion (markDone wakes them).
    private var doneWaiters = 0
    /// Synchronous sends' lanes (TransferLoop+Sync.swift): idle ones, and those in use.
    var idleLanes: [SyncLane] = []
    var busyLanes: [SyncLane] = []

    /// Set once by shutdown(); read by synchronous sends without the lock.
    let syncStopping = Atomic<Bool>(false)
    private var completed: [Transfer] = []      // queue mode: waiting for dispatch()
    /// Jobs of tasks that prefer the client's executor (NetClient+Executor.swift).
    @exclusivity(unchecked) private var jobs: [(UnownedJob, UnownedTaskExecutor)] = []
    /// The owner let go from the loop's own thread (stopDetached()): the loop
    /// thread cleans up after itself instead of being joined.
    private var detached = false
    private var dispatchThread: pthread_t?      // queue mode: thread inside dispatch()

    // Loop thread only.
    private var thread: pthread_t?
    /// Loop-thread state behind a pointer: reached without the runtime's dynamic
    /// exclusivity checks that class properties cost on every access (the loop
    /// thread is its only user, so accesses cannot overlap).
    private struct LoopState {
        /// Transfers in the multi handle; each knows its slot (`activeSlot`).
        var active: [Transfer] = []
        var easyPool = EasyHandlePool()
        /// Finished transfers of one drainMessages() pass, each retained once by hand:
        /// trivial elements, so emptying the list costs no per-element destroy.
        var messages: [(Unmanaged<Transfer>, UnsafeMutableRawPointer, CURLcode)] = []
        /// Executor jobs taken from `jobs` for one pass.
        var readyJobs: [(UnownedJob, UnownedTaskExecutor)] = []
        /// Async sends completed in this pass, resumed together at its end (deferResume).
        var resumes: [UnsafeContinuation<Void, Never>] = []
    }
    private let state: UnsafeMutablePointer<LoopState> = {
        let p = UnsafeMutablePointer<LoopState>.allocate(capacity: 1)
        p.initialize(to: LoopState())
        return p
    }()

    /// Queue mode's notification descriptor (eventfd), -1 in loop mode.
    let eventFD: Int32

    init?(mode: Configuration.CallbackMode, limits: Configuration.Limits) {
        CurlGlobal.ensureInitialized()
        guard let m = curl_multi_init() else { return nil }
        if mode == .queue {
            let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
            if fd < 0 { curl_multi_cleanup(m); return nil }
            eventFD = fd
        } else {
            eventFD = -1
        }
        self.mode = mode
        self.limits = limits
        multi = m
        _ = ncshim_multi_setopt_long(m, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxConnectionsPerHost)
        TransferLoop.sizeConnectionCache(m, handles: EasyHandlePool.floor)
        guard let t = startThread({ [self] in run() }) else {
            curl_multi_cleanup(m)
            if eventFD >= 0 { close(eventFD) }
            return nil
        }
        thread = t
    }

    deinit {
        if eventFD >= 0 { close(eventFD) }
        state.deinitialize(count: 1)
        state.deallocate()
    }

    // MARK: called from any thread

    /// Queues a transfer. False if the client is shutting down.
    func submit(_ t: Transfer) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        guard !shuttingDown, let multi else { return false }
        pending.append(t)
        wake(multi)
        return true
    }

    /// Queues a job of a task that prefers this client's executor
    /// (NetClient+Executor.swift), from any thread (the loop thread included).
    /// Jobs run on the loop thread at the start of each pass, before new
    /// transfers start, so a task resumed by a completion sends its next request
    /// in the same pass without a thread switch. Once shutdown has begun a job
    /// goes to Swift's global executor instead: no task waits on a stopped loop.
    func enqueueJob(_ job: UnownedJob, on executor: UnownedTaskExecutor) {
        monitor.lock()
        guard !shuttingDown, let multi else {
            monitor.unlock()
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
            return
        }
        jobs.append((job, executor))
        wake(multi)
        monitor.unlock()
    }

    /// Wakes the loop thread if it sleeps in curl_multi_poll. A loop that is busy
    /// (or a submission from a callback, on the loop thread itself) needs none: the
    /// loop looks at its queues before it polls again. Call with the monitor held.
    private func wake(_ multi: UnsafeMutableRawPointer) {
        if polling && !wakeSent {
            wakeSent = true
            curl_multi_wakeup(multi)
        }
    }

    /// True once the loop has stopped and freed its multi handle.
    var isStopped: Bool { monitor.withLock { multi == nil } }

    /// True when the caller runs inside one of this client's callbacks.
    var isCallbackThread: Bool {
        if isCurrentThread(thread) { return true }
        return monitor.withLock { isCurrentThread(dispatchThread) }
    }

    func cancel(_ t: Transfer) {
        if isCurrentThread(thread) { cancelOnLoopThread(t); return }
        monitor.lock()
        defer { monitor.unlock() }
        enqueueCancel(t)
        // In queue mode the completion runs at the next dispatch(): do not wait.
        // Inside dispatch() the transfer may be the one running: do not wait.
        if mode == .queue || isCurrentThread(dispatchThread) { return }
        doneWaiters += 1
        while !t.done { monitor.wait() }
        doneWaiters -= 1
    }

    /// Asks the loop thread to cancel `t` and returns at once, from any thread
    /// (this loop's included): never waits, never runs the completion on the
    /// calling thread. For callers that hold a lock the completion may need, such
    /// as a Swift task-cancellation handler (see NetClient+Async.swift). Idempotent.
    func requestCancel(_ t: Transfer) {
        monitor.withLock { enqueueCancel(t) }
    }

    /// Queues `t` for the loop's cancel pass, once. Call with the monitor held.
    private func enqueueCancel(_ t: Transfer) {
        if t.done || t.cancelRequested { return }
        t.cancelRequested = true
        // Shutting down: the loop completes every transfer anyway. Queuing it now
        // could outlive the loop thread and keep the transfer (and, through it,
        // the loop) alive forever.
        if shuttingDown { return }
        cancels.append(t)
        if let multi { wake(multi) }
    }

    /// Stops the loop: every transfer completes with `NetError.shutdown`; returns
    /// after the loop thread has exited. Queued completions (queue mode) then run
    /// on the calling thread. False (nothing done) from inside a callback.
    func shutdown() -> Bool {
        if isCallbackThread { return false }
        monitor.lock()
        if shuttingDown {
            monitor.unlock()
            return true
        }
        shuttingDown = true
        if let multi { curl_multi_wakeup(multi) }
        monitor.unlock()
        stopSyncLanes()
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
        if shuttingDown {
            monitor.unlock()
            return
        }
        shuttingDown = true
        detached = true
        if let multi { curl_multi_wakeup(multi) }
        monitor.unlock()
        // A synchronous send holds its client, so no lane is busy when the owner
        // goes; mark them stopping anyway and wake any.
        syncStopping.store(true, ordering: .releasing)
        monitor.withLock { for lane in busyLanes { curl_multi_wakeup(lane.multi) } }
    }

    /// After the loop thread has stopped: nothing may stay queued behind it (a
    /// transfer or a job refers to it), queued completions run, libcurl is freed.
    private func cleanUpAfterLoop() {
        let leftJobs: [(UnownedJob, UnownedTaskExecutor)] = monitor.withLock {
            pending.removeAll()
            cancels.removeAll()
            let left = jobs
            jobs.removeAll()
            return left
        }
        // Tasks waiting on the executor continue on Swift's global executor.
        for (job, _) in leftJobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        if mode == .queue { _ = dispatch(force: true) }
        monitor.withLock {
            if let multi { curl_multi_cleanup(multi) }
            multi = nil
            idleLanes.removeAll()
        }
        state.pointee.easyPool.removeAll()
    }

    func dispatch(force: Bool = false) -> DispatchResult {
        guard mode == .queue else { return .wrongMode }
        monitor.lock()
        if dispatchThread != nil && !force {
            monitor.unlock()
            return .nested
        }
        let batch = completed
        completed.removeAll()
        var counter: UInt64 = 0
        _ = read(eventFD, &counter, 8)
        dispatchThread = pthread_self()
        monitor.unlock()
        for t in batch {
            t.deliver(t, t.result.0, t.result.1)
            t.result = (nil, nil)
            markDone(t)
        }
        monitor.withLock { dispatchThread = nil }
        return .ok
    }

    // MARK: loop thread

    private func run() {
        guard let multi = monitor.withLock({ self.multi }) else { return }
        var running: Int32 = 0
        var newOnes: [Transfer] = []
        var cancelled: [Transfer] = []
        while true {
            monitor.lock()
            polling = false
            if !jobs.isEmpty {
                // Executor jobs first: what they send starts in this same pass.
                swap(&state.pointee.readyJobs, &jobs)
                monitor.unlock()
                runJobs()
                monitor.lock()
            }
            swap(&newOnes, &pending)
            swap(&cancelled, &cancels)
            let stopping = shuttingDown
            // Cancels asked for before now; later ones arrive through `cancels`.
            for t in newOnes where t.cancelRequested { t.cancelledBeforeStart = true }
            monitor.unlock()

            for t in newOnes { start(t, multi, stopping: stopping) }
            newOnes.removeAll(keepingCapacity: true)
            for t in cancelled {
                if let easy = t.easy, t.activeSlot >= 0 {
                    let sent = t.attempts(easy)
                    stop(t, easy, multi)
                    complete(t, nil, NetError.cancelled.attempted(sent))
                }
            }
            cancelled.removeAll(keepingCapacity: true)
            if stopping {
                for t in state.pointee.active.reversed() {
                    var sent: Int32 = 0
                    if let easy = t.easy {
                        sent = t.attempts(easy)
                        stop(t, easy, multi)
                    }
                    complete(t, nil, NetError.shutdown.attempted(sent))
                }
                resumeDeferred()
                if monitor.withLock({ detached }) {
                    pthread_detach(pthread_self())
                    cleanUpAfterLoop()
                }
                return
            }

            _ = curl_multi_perform(multi, &running)
            drainMessages(multi)
            resumeDeferred()
            if state.pointee.easyPool.tick(inUse: state.pointee.active.count, now: EasyHandlePool.nowMs()) {
                TransferLoop.sizeConnectionCache(multi, handles: state.pointee.easyPool.keep)
            }
            // Sleep only if no work arrived meanwhile (from callbacks or other threads);
            // from here on, new work wakes the poll (see wake()).
            monitor.lock()
            let idle = pending.isEmpty && cancels.isEmpty && jobs.isEmpty && !shuttingDown
            if idle {
                polling = true
                wakeSent = false
            }
            monitor.unlock()
            if idle { _ = curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
    }

    /// Whether the caller runs on the loop thread (an executor job or a callback).
    var onLoopThread: Bool { isCurrentThread(thread) }

    /// Called by an async send's completion on the loop thread: its task (which runs
    /// on Swift's global executor) is resumed at the end of this pass, with every
    /// other one completed in it, by one job on the global executor. Resumed one by
    /// one from here, each wakes a pool thread, which on a busy core preempts this
    /// one at once: two context switches per request (perf stat at c=16: 197k for
    /// 100k requests; batched: 20-25k, and 43.5-44.6k -> 46.8-49.0k req/s). False
    /// when not on the loop thread (queue mode: the caller resumes it itself).
    func deferResume(_ waiter: UnsafeContinuation<Void, Never>) -> Bool {
        guard onLoopThread else { return false }
        state.pointee.resumes.append(waiter)
        return true
    }

    /// Resumes the waiters deferResume() collected, from one job on Swift's global
    /// executor (so the loop goes on to its next pass without a thread switch).
    private func resumeDeferred() {
        guard !state.pointee.resumes.isEmpty else { return }
        let batch = state.pointee.resumes
        state.pointee.resumes.removeAll(keepingCapacity: true)
        Task.detached { for waiter in batch { waiter.resume() } }
    }

    /// Runs the executor jobs taken for this pass (see enqueueJob).
    private func runJobs() {
        for (job, executor) in state.pointee.readyJobs { job.runSynchronously(on: executor) }
        state.pointee.readyJobs.removeAll(keepingCapacity: true)
    }

    private func start(_ t: Transfer, _ multi: UnsafeMutableRawPointer, stopping: Bool) {
        if stopping { complete(t, nil, .shutdown); return }
        if let e = t.presetError { complete(t, nil, e); return }
        if t.cancelledBeforeStart { complete(t, nil, .cancelled); return }
        launch(t, multi)
    }

    /// Puts `t` (its current hop) into the multi handle.
    private func launch(_ t: Transfer, _ multi: UnsafeMutableRawPointer) {
        if let e = t.openOutput() { complete(t, nil, e); return }
        guard let prepared = t.prepared else {
            complete(t, nil, NetError.internalError("A transfer ended without its request.").attempted(t.redirects > 0 ? 1 : 0))
            return
        }
        let timeoutMs: Int64
        do { timeoutMs = try t.hopTimeoutMs(prepared) } catch { complete(t, nil, error); return }
        guard let easy = state.pointee.easyPool.take() ?? newEasyHandle() else {
            complete(t, nil, NetError.internalError("libcurl could not create a transfer (out of memory).").attempted(t.redirects > 0 ? 1 : 0))
            return
        }
        t.easy = easy
        easy.configure(for: t, prepared, timeoutMs: timeoutMs)
        guard curl_multi_add_handle(multi, easy.handle) == CURLM_OK else {
            t.easy = nil
            easy.parked()
            state.pointee.easyPool.put(easy, inUse: state.pointee.active.count)
            complete(t, nil, NetError.internalError("libcurl refused the transfer.").attempted(t.redirects > 0 ? 1 : 0))
            return
        }
        t.activeSlot = state.pointee.active.count
        state.pointee.active.append(t)
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
    /// at each completion and reconnected later (the Swift peer at c=16: 73-112
    /// connects per 20,000 requests instead of 16, `strace -c -f`).
    static func sizeConnectionCache(_ multi: UnsafeMutableRawPointer, handles: Int) {
        _ = ncshim_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, handles.multipliedReportingOverflow(by: 4).overflow
                                     ? Int.max : handles * 4)
    }

    /// Easy handles this loop has made (tests check the pool's reuse).
    let handlesMade = Atomic<Int>(0)

    private func newEasyHandle() -> EasyHandle? {
        handlesMade.add(1, ordering: .relaxed)
        return EasyHandle()
    }

    /// Takes a transfer out of the multi handle and recycles its easy handle.
    private func stop(_ t: Transfer, _ easy: EasyHandle, _ multi: UnsafeMutableRawPointer) {
        _ = curl_multi_remove_handle(multi, easy.handle)
        let slot = t.activeSlot
        if slot >= 0 && slot < state.pointee.active.count {
            let last = state.pointee.active.removeLast()
            if slot < state.pointee.active.count {
                state.pointee.active[slot] = last
                last.activeSlot = slot
            }
        }
        t.activeSlot = -1
        t.easy = nil
        easy.parked()
        // Kept for the next transfer while the pool's size allows (EasyHandlePool).
        state.pointee.easyPool.put(easy, inUse: state.pointee.active.count)
    }

    private func drainMessages(_ multi: UnsafeMutableRawPointer) {
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
            finish(t, easy, code, multi)
        }
        state.pointee.messages.removeAll(keepingCapacity: true)
    }

    /// Ends the current hop of `t`: completes it, or sends the next hop of a redirect.
    private func finish(_ t: Transfer, _ easy: EasyHandle, _ code: CURLcode, _ multi: UnsafeMutableRawPointer) {
        let hop = t.conclude(easy, code)
        stop(t, easy, multi)
        switch hop {
        case .done(let response, let error): complete(t, response, error)
        case .redirect: launch(t, multi)
        }
    }

    /// Delivers the single completion: now (loop mode) or via the queue (queue mode).
    private func complete(_ t: Transfer, _ response: Response?, _ error: NetError?) {
        _ = t.closeOutput()   // before anyone is told: the file is complete
        if mode == .queue {
            t.result = (response, error)
            monitor.lock()
            let wasEmpty = completed.isEmpty
            completed.append(t)
            if wasEmpty {
                var one: UInt64 = 1
                _ = write(eventFD, &one, 8)
            }
            monitor.unlock()
            return
        }
        t.deliver(t, response, error)
        markDone(t)
    }

    private func markDone(_ t: Transfer) {
        monitor.lock()
        t.done = true
        if doneWaiters > 0 { monitor.broadcast() }
        monitor.unlock()
    }

    /// nc_task_cancel from inside a callback running on the loop thread: act now,
    /// since waiting for the loop would wait for ourselves.
    private func cancelOnLoopThread(_ t: Transfer) {
        guard let multi = monitor.withLock({ self.multi }) else { return }
        if let easy = t.easy, t.activeSlot >= 0 {
            let sent = t.attempts(easy)
            stop(t, easy, multi)
            complete(t, nil, NetError.cancelled.attempted(sent))
            return
        }
        let wasPending: Bool = monitor.withLock {
            guard !t.done, let i = pending.firstIndex(where: { $0 === t }) else { return false }
            pending.remove(at: i)
            return true
        }
        if wasPending { complete(t, nil, .cancelled) }
        // Otherwise it is completing (perhaps this very callback) or done.
    }
}

/// What `dispatch()` did.
public enum DispatchResult: Sendable {
    case ok
    /// The client is not in queue mode.
    case wrongMode
    /// Called from inside a completion that dispatch() is running.
    case nested
}

extension NetError {
    func attempted(_ n: Int32) -> NetError {
        var e = self
        e.attempts = n
        return e
    }
}

/// Process-wide libcurl state.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    static func ensureInitialized() { _ = initialized }

    private static let protocolsText = CString("http,https")
    private static let emptyText = CString("")
    static var protocols: UnsafePointer<CChar> { protocolsText.pointer }
    static var empty: UnsafePointer<CChar> { emptyText.pointer }
}
