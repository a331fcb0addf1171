import CCurlShim
import Synchronization

/// What other threads hand a transfer loop, and how they wait for it: the queues in
/// (new transfers, cancels, resumes of parked ones and of paused bodies, transfers
/// ended by their owner, cancel sweeps), the pass hook's work, the loop's life (`LoopLifecycle`), the
/// wake-up of its poll, and the threads waiting for a completion.
///
/// Everything here is guarded by `monitor`; the loop thread takes the queues once
/// a pass (`take`) and asks before it sleeps (`mayPoll`). No user code runs under
/// the monitor.
final class LoopInbox: @unchecked Sendable {
    let monitor = Monitor()
    /// Where the loop is in its life; written under the monitor.
    let lifecycle = Atomic<LoopLifecycle>(.running)
    /// The transport whose wait `wake()` interrupts.
    private let transport: any HopTransport
    private let ids = Atomic<UInt64>(0)

    // Guarded by monitor. The queues are touched on every send: their accesses are
    // serialised by the monitor, so the runtime's dynamic exclusivity check (which
    // `swap` with a local makes the compiler emit) is turned off for them.
    @exclusivity(unchecked) private(set) var pending: [Transfer] = []
    @exclusivity(unchecked) private var cancels: [Transfer] = []
    @exclusivity(unchecked) private var unparks: [Transfer] = []
    /// Transfers the loop does not run that their owner ended (TransferOwner.swift),
    /// each with its `result` set, for the loop thread to complete.
    @exclusivity(unchecked) private var detached: [Transfer] = []
    /// cancelMatching() calls from other threads, for the loop thread to run.
    @exclusivity(unchecked) private var sweeps: [Sweep] = []
    /// Transfers whose paused body is to continue (nc_task_resume_body), and what
    /// the loop thread does with them at the start of its next pass
    /// (TransferLoop.resumeBodies, installed with the first one): nil and empty on a
    /// client that never paused a body, which costs each pass one check.
    @exclusivity(unchecked) private var bodyResumes: [Transfer] = []
    private var resumeBodies: (([Transfer]) -> Void)?
    /// What runs at the start of each pass besides the loop's own work: module
    /// NetCore's executor, once a task asked for it (LoopPassHook); nil otherwise,
    /// which costs the loop one check per pass. Dropped when the loop stops.
    private(set) var passHook: (any LoopPassHook)?
    /// The loop thread is in (or about to enter) its transport's wait: new work must wake it.
    private var polling = false
    /// A wake-up was sent during the current poll.
    private var wakeSent = false
    /// Threads waiting for a completion or a sweep (markDone and runSweeps wake them).
    private var doneWaiters = 0

    init(transport: any HopTransport) { self.transport = transport }

    var acceptsWork: Bool { lifecycle.load(ordering: .relaxed).acceptsWork }

    /// The next request number of this client (events' `id`, nc_task_id).
    func nextID() -> UInt64 { ids.wrappingAdd(1, ordering: .relaxed).newValue }

    /// Wakes the loop thread if it sleeps in its transport's wait. A loop that is busy
    /// (or a submission from a callback, on the loop thread itself) needs none: the
    /// loop looks at its queues before it polls again. Monitor held.
    func wake() {
        if polling && !wakeSent {
            wakeSent = true
            transport.wake()
        }
    }

    // MARK: queuing, any thread

    /// Queues a transfer. False if the loop takes no more work.
    func submit(_ t: Transfer) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        guard acceptsWork else { return false }
        t.id = nextID()
        pending.append(t)
        wake()
        return true
    }

    /// Queues `shared` on behalf of `caller` (TransferLoop.submit(_:for:)).
    func submit(_ shared: Transfer, for caller: Transfer) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        guard acceptsWork, !caller.cancelRequested else { return false }
        shared.id = nextID()
        caller.id = shared.id
        caller.owner = shared.owner
        pending.append(shared)
        wake()
        return true
    }

    /// A parked transfer to relaunch. Monitor held.
    func queueResume(_ t: Transfer) {
        guard acceptsWork else { return }
        unparks.append(t)
        wake()
    }

    /// Queues `t` for a body resume at the start of the loop's next pass; the
    /// first call installs what the pass does with it (`run`). Monitor held.
    func queueBodyResume(_ t: Transfer, _ run: () -> ([Transfer]) -> Void) {
        guard acceptsWork else { return }
        if resumeBodies == nil { resumeBodies = run() }
        bodyResumes.append(t)
        wake()
    }

    /// Queues `t` for the loop's cancel pass, once. Monitor held.
    func queueCancel(_ t: Transfer) {
        if t.done || t.cancelRequested { return }
        t.cancelRequested = true
        // Shutting down: the loop completes every transfer anyway. Queuing it now
        // could outlive the loop thread and keep the transfer (and, through it,
        // the loop) alive forever.
        guard acceptsWork else { return }
        cancels.append(t)
        wake()
    }

    /// A transfer its owner ended, `result` set, for the loop thread to complete.
    /// False (nothing queued) once the loop takes no more work. Monitor held.
    func queueDetached(_ t: Transfer) -> Bool {
        guard acceptsWork else { return false }
        detached.append(t)
        wake()
        return true
    }

    /// The pass hook installed, else `make()`'s, installed now while the loop
    /// accepts work (TransferLoop.passHook(_:)).
    func passHook<H: LoopPassHook>(_ make: () -> H) -> H {
        monitor.lock()
        defer { monitor.unlock() }
        if let installed = passHook as? H { return installed }
        let hook = make()
        if passHook == nil && acceptsWork { passHook = hook }
        return hook
    }

    /// Runs `body` under the monitor and wakes the loop, if `hook` is the one
    /// installed and the loop takes work (TransferLoop.queueForPass).
    func queueForPass(_ hook: AnyObject, _ body: () -> Void) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        guard acceptsWork, passHook === hook else { return false }
        body()
        wake()
        return true
    }

    /// Takes `t` out of the queue of new transfers; false if it is not there (or done).
    func removePending(_ t: Transfer) -> Bool {
        monitor.withLock {
            guard !t.done, let i = pending.firstIndex(where: { $0 === t }) else { return false }
            pending.remove(at: i)
            return true
        }
    }

    // MARK: waiting, any thread

    /// Blocks until `t` has completed (`markDone`).
    func waitUntilDone(_ t: Transfer) {
        monitor.lock()
        doneWaiters += 1
        while !t.done { monitor.wait() }
        doneWaiters -= 1
        monitor.unlock()
    }

    /// Marks `t` completed and wakes the threads waiting for it.
    func markDone(_ t: Transfer) {
        monitor.lock()
        t.done = true
        if doneWaiters > 0 { monitor.broadcast() }
        monitor.unlock()
    }

    /// Queues a sweep for the loop thread and waits until it ran; 0 once the loop
    /// takes no more work.
    func sweepAndWait(_ s: Sweep) -> Int {
        monitor.lock()
        defer { monitor.unlock() }
        guard acceptsWork else { return 0 }
        sweeps.append(s)
        wake()
        doneWaiters += 1
        while !s.finished { monitor.wait() }
        doneWaiters -= 1
        return s.cancelled
    }

    /// Marks `asked` (and, when `all`, every sweep still queued) finished and wakes
    /// their callers.
    func finish(_ asked: [Sweep], all: Bool = false) {
        monitor.withLock {
            for s in asked { s.finished = true }
            if all {
                for s in sweeps { s.finished = true }
                sweeps.removeAll()
            }
            monitor.broadcast()
        }
    }

    // MARK: the loop thread's side

    /// What one pass takes in; its arrays keep their buffers from pass to pass.
    struct Batch {
        var new: [Transfer] = []
        var cancelled: [Transfer] = []
        var resumed: [Transfer] = []
        var ended: [Transfer] = []
        var sweeps: [Sweep] = []
    }

    /// Runs the pass hook's waiting work (executor jobs first: what they send
    /// starts in this same pass), then moves every queue into `batch`; returns the
    /// loop's life as it was then. Transfers whose cancel was asked before now get
    /// a pending cancel (`Transfer.Lifecycle.taken`); later cancels arrive through
    /// the cancel queue.
    func take(into batch: inout Batch) -> LoopLifecycle {
        monitor.lock()
        polling = false
        if let hook = passHook, hook.hasWork {
            hook.take()
            monitor.unlock()
            hook.runTaken()
            monitor.lock()
        }
        if !bodyResumes.isEmpty, let run = resumeBodies {
            // Before the cancels are taken: a hop a resume ends is not cancelled twice.
            let resumed = bodyResumes
            bodyResumes.removeAll()
            monitor.unlock()
            run(resumed)   // user code (the body callback) may run: no lock held
            monitor.lock()
        }
        swap(&batch.new, &pending)
        swap(&batch.cancelled, &cancels)
        if !sweeps.isEmpty { swap(&batch.sweeps, &sweeps) }
        if !unparks.isEmpty { swap(&batch.resumed, &unparks) }
        if !detached.isEmpty { swap(&batch.ended, &detached) }
        let phase = lifecycle.load(ordering: .relaxed)
        for t in batch.new { t.lifecycle.taken(cancelClaimed: t.cancelRequested) }
        monitor.unlock()
        return phase
    }

    /// Whether the loop may sleep in its poll: nothing arrived since `take` (from
    /// callbacks or other threads). From a true answer on, new work wakes the poll.
    func mayPoll() -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        let idle =
            pending.isEmpty && cancels.isEmpty && unparks.isEmpty && !(passHook?.hasWork ?? false)
            && sweeps.isEmpty && detached.isEmpty && bodyResumes.isEmpty && acceptsWork
        if idle {
            polling = true
            wakeSent = false
        }
        return idle
    }

    /// Moves the loop from running to `stopping`: false if it was not running.
    func beginStop(_ stopping: LoopLifecycle) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        guard lifecycle.load(ordering: .relaxed) == .running else { return false }
        lifecycle.store(stopping, ordering: .releasing)
        transport.wake()
        return true
    }

    /// After the loop thread has stopped: nothing stays queued behind it (a
    /// transfer or a job refers to it) and its waiters are woken. Returns the pass
    /// hook, dropped now (ending the loop → hook → loop cycle), with its last work
    /// taken, for the caller to hand on.
    func emptyAfterStop() -> (any LoopPassHook)? {
        monitor.withLock {
            pending.removeAll()
            cancels.removeAll()
            detached.removeAll()
            unparks.removeAll()
            bodyResumes.removeAll()
            resumeBodies = nil
            for s in sweeps { s.finished = true }
            sweeps.removeAll()
            if doneWaiters > 0 { monitor.broadcast() }
            let left = passHook
            passHook = nil
            left?.take()
            return left
        }
    }

    /// One cancelMatching() call waiting for the loop thread.
    final class Sweep {
        let match: (Transfer) -> Bool
        var cancelled = 0
        var finished = false
        init(_ match: @escaping (Transfer) -> Bool) { self.match = match }
    }
}
