import CCurlShim
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One sent request: what to send, the state of its attempts, and its single
/// completion. The caller's task handle is a reference to it.
///
/// Threads: attempt and receive state is touched only by the thread that drives
/// the transfer (the client's loop thread, or the caller's for a synchronous
/// send); the fields marked below are guarded by the loop's monitor.
public final class Transfer: @unchecked Sendable {
    /// The completion, given the transfer itself (whose `foreign` words a
    /// non-capturing completion reads), the response and the error.
    package typealias Deliver = (Transfer, Response?, NetError?) -> Void

    /// The request as resolved at send; every attempt starts from it.
    let original: PreparedRequest?
    // Driving thread only (here and below), so accesses cannot overlap: the
    // runtime's dynamic exclusivity checks are turned off for the hot ones.
    /// What the current hop sends: `original`, or a redirect of it.
    @exclusivity(unchecked) var prepared: PreparedRequest?
    /// Redirects followed in the current attempt.
    @exclusivity(unchecked) var redirects: Int32 = 0
    /// The redirects the current attempt followed (status, URL that answered it);
    /// nil until one is followed, so a request without redirects allocates nothing.
    var redirectChain: [RedirectHop]? = nil
    /// Attempts begun: 1 while the first runs (`beginAttempt`).
    @exclusivity(unchecked) var attempt: Int32 = 0
    /// Start of the current attempt (monotonicNanos), for its total timeout.
    @exclusivity(unchecked) var attemptStart: UInt64 = 0
    /// The idle watch of the hop in flight (IdleWatch.swift): when bytes last moved
    /// (monotonicNanos), the byte count seen then, and whether the watch ended it.
    @exclusivity(unchecked) var idleSince: UInt64 = 0
    @exclusivity(unchecked) var idleSeen: Int64 = 0
    @exclusivity(unchecked) var idleFired = false
    /// When the hop's own time limit (libcurl's total timeout for it: timeout_ms,
    /// the deadline) has passed, for the watch (0: none), and whether the watch
    /// ended the hop by it (IdleWatch.swift).
    @exclusivity(unchecked) var hopDueAt: UInt64 = 0
    @exclusivity(unchecked) var hopLimitFired = false
    /// Set when the request could not be built: completes with it, sends nothing.
    let presetError: NetError?
    /// Set before submission when seam 1 already has the answer (a stored one:
    /// Features/Cache): completes with it (and `presetError`, if set) through the
    /// usual completion path, sends nothing.
    var presetResponse: Response?
    /// Set before submission when seam 1 made this transfer its caller's own (it
    /// serves or revalidates a stored answer): it never shares a coalesced transfer.
    var standsAlone = false
    /// The completion. Set before the transfer is submitted and not changed after
    /// (the async API fills it in once it has its continuation).
    var deliver: Deliver
    /// Two words for a completion that is not a Swift closure — the C API's function
    /// pointer and userdata — so a send allocates no closure context.
    package let foreign: (UnsafeRawPointer?, UnsafeMutableRawPointer?)
    /// The loop that runs it, as a transfer sees it (TransferContext.swift).
    package let context: any TransferContext
    /// The client's event monitor when the transfer was sent (nil: no events, and
    /// no timings read).
    let monitor: (any EventMonitor)?
    /// Decides what follows an attempt's result (retry, refresh, …); nil: it completes.
    let policy: (any TransferPolicy)?
    /// Works out what each attempt sends (AttemptPreparer.swift); nil: `original`.
    let preparer: (any AttemptPreparer)?
    /// Says whether each attempt may go now, must wait, or fails unsent
    /// (AttemptGate.swift); nil: every attempt goes.
    let gate: (any AttemptGate)?
    /// While the gate holds the transfer: when its wait ends (monotonicNanos); 0
    /// otherwise. Driving thread only; the gate's to read and write.
    var gateDeadline: UInt64 = 0
    /// The request's number among the client's, from 1; the `id` of its events.
    /// Set when it is submitted.
    public internal(set) var id: UInt64 = 0

    /// The async API's outcome, handed from the completion to the awaiting task
    /// (`publish`, `publishedOutcome`): written once, then `publishedReady` is set
    /// with release ordering; read after an acquiring load of it.
    private var published: Result<Response, NetError>?
    private let publishedReady = Atomic<Bool>(false)

    // Guarded by the loop's monitor (TransferLoop.monitor).
    var done = false
    var cancelRequested = false
    /// The async API's waiting task (module NetCore, NetClient+Async.swift): its
    /// `UnsafeContinuation<Void, Never>` as the one pointer that value is, so this
    /// module names no concurrency type. Set before submission, resumed once by the
    /// completion (a field rather than a closure capture, so no context is allocated).
    package var waiter: UnsafeRawPointer?
    /// The waiting task runs on the client's executor (the loop thread): resumed at
    /// once rather than batched (TransferLoop.deferResume). Set before submission.
    package var waiterOnLoop = false
    /// `TransferLoop.resume(_:)` was asked for this parked transfer.
    var resumeRequested = false
    /// The lane a parked synchronous send waits on (woken by resume).
    var parkedLane: SyncLane?
    /// Set when callers and transfers are not one to one (TransferOwner.swift): on
    /// a caller's transfer that the loop does not run, and on the shared transfer
    /// it does run. nil for every other transfer.
    var owner: (any TransferOwner)?

    // Driving thread only.
    var easy: EasyHandle?
    /// Where the transfer is in the loop and whether a cancel waits for its next
    /// step (Transfer+Lifecycle.swift). Loop thread only.
    @exclusivity(unchecked) var lifecycle = Lifecycle()
    /// Where the transfer is in the loop (`Phase`).
    var phase: Phase { lifecycle.phase }
    /// The body file (Upload.file) and its size, open from the first attempt to the
    /// completion (Transfer+Upload.swift); -1 otherwise.
    var inputFD: Int32 = -1
    var inputSize: Int64 = 0
    /// The download (Request.outputPath) while the transfer runs (Transfer+Download.swift).
    var download: Download?
    /// The request's progress and body callbacks, when it set one (Request+Transfers.swift).
    var extras: TransferExtras?
    /// The download's descriptor, -1 when there is none.
    var outputFD: Int32 { download?.fd ?? -1 }
    /// Index in the loop's timer queue (TimerQueueItem) and parked list; -1 when
    /// not there.
    var timerSlot = -1
    var parkedSlot = -1
    var result: (Response?, NetError?) = (nil, nil)
    /// The current attempt's libcurl timings (read only when `keepsAttemptLog`).
    @exclusivity(unchecked) var timings = AttemptTimings()
    /// The monitor asked for the attempt log when the transfer was made
    /// (EventMonitor.keepsAttemptLog): timings are read and attempts recorded.
    let keepsAttemptLog: Bool
    /// The URL events show, made on the first event (Transfer+Events.swift).
    var redactedURL: String?
    /// Start of the first attempt (monotonicNanos), for the response's total time.
    @exclusivity(unchecked) var startedAt: UInt64 = 0
    /// Every ended attempt (filled only when `keepsAttemptLog`), for the response's metrics.
    var attemptLog: [AttemptRecord] = []

    init(
        prepared: PreparedRequest?, presetError: NetError?, context: any TransferContext,
        foreign: (UnsafeRawPointer?, UnsafeMutableRawPointer?) = (nil, nil),
        monitor: (any EventMonitor)? = nil, policy: (any TransferPolicy)? = nil,
        preparer: (any AttemptPreparer)? = nil, gate: (any AttemptGate)? = nil,
        deliver: @escaping Deliver
    ) {
        self.foreign = foreign
        self.original = prepared
        self.prepared = prepared
        self.presetError = presetError
        self.context = context
        self.monitor = monitor
        self.keepsAttemptLog = monitor?.keepsAttemptLog ?? false
        self.policy = policy
        self.preparer = preparer
        self.gate = gate
        self.deliver = deliver
    }

    deinit { if inputFD >= 0 { close(inputFD) } }

    /// Starts attempt `attempt + 1` from the request as resolved at send, as the
    /// preparer (if any) adapts it. Nil: send it now. Otherwise what to do instead,
    /// sending nothing: `.complete` with the error to end the transfer with, or
    /// `.park` when the gate holds it (it resumes through `TransferLoop.resume(_:)`
    /// and then begins the attempt again).
    func beginAttempt(now: UInt64) -> TransferAction? {
        // The deadline counts from the first try to begin, waits for the gate included.
        if startedAt == 0 { startedAt = now }
        if let original, let left = deadlineLeftMs(original, now: now), left == 0 {
            // It waited (parked, or held by the gate) past its deadline.
            return .complete(
                nil, NetError.deadlineExceededWaiting(deadlineMs: original.resilience.deadlineMs, attempts: attempt))
        }
        if let gate, let original {
            switch gate.admit(self, original, now: now) {
            case .proceed: break
            case .hold: return .park
            case .fail(let e): return .complete(nil, e.attempted(attempt))
            }
        }
        attempt += 1
        attemptStart = now
        // The first attempt starts as the transfer was made.
        if attempt > 1 {
            redirects = 0
            redirectChain = nil
            prepared = original
            // The body file is opened again: this attempt sends it as it is now.
            closeInput()
            if keepsAttemptLog { timings = AttemptTimings() }
        }
        guard let preparer, let original else { return nil }
        // Adapters are the caller's code: on a synchronous send's own thread the
        // library is told it runs inside a callback, as for every other hook
        // (nc_client_free and nc_client_send_sync are refused there, not deadlocked).
        let adapted =
            context.onLoopThread
            ? preparer.prepare(original, attempt: attempt)
            : CallbackScope.run(context) { preparer.prepare(original, attempt: attempt) }
        switch adapted {
        case .success(let p):
            prepared = p
            return nil
        case .failure(let e):
            return .complete(nil, e.attempted(attempt - 1))
        }
    }

    /// Attempts that reached the network, for the error's `attempts`: the earlier
    /// attempts, and this one if it (or an earlier hop of it) sent anything.
    func attemptsMade(thisOneSent: Bool) -> Int32 {
        let earlier = attempt > 1 ? attempt - 1 : 0
        return earlier + (thisOneSent || redirects > 0 ? 1 : 0)
    }

    /// Milliseconds left of the current attempt's total timeout at `now`: nil when
    /// there is none (timeout 0), 0 when it has run out, else at least 1.
    func remainingTimeoutMs(_ p: PreparedRequest, now: UInt64) -> Int64? {
        guard p.timeoutMs > 0 else { return nil }
        let elapsedMs = Int64(clamping: (now &- attemptStart) / 1_000_000)
        let left = p.timeoutMs - elapsedMs
        return left > 0 ? left : 0
    }

    /// Hands the async API's outcome to the awaiting task, once, before its
    /// continuation is resumed. An atomic flag (release here, acquire in
    /// `publishedOutcome`) orders the write before the task's read where
    /// ThreadSanitizer can see it; the loop's monitor is not taken, so the task
    /// resumed at the end of a pass never waits for the loop thread, which takes
    /// the monitor right then (its look for new work before it sleeps).
    package func publish(_ outcome: Result<Response, NetError>) {
        published = outcome
        publishedReady.store(true, ordering: .releasing)
    }

    /// The outcome `publish` handed over; nil if none was.
    package var publishedOutcome: Result<Response, NetError>? {
        publishedReady.load(ordering: .acquiring) ? published : nil
    }

    /// Cancels the request: when this returns the completion has run (loop mode,
    /// from another thread), with its real result if it had begun, else with
    /// `NetError.cancelled`. Idempotent.
    public func cancel() { context.cancel(self) }
}

extension NetError {
    func attempted(_ n: Int32) -> NetError {
        var e = self
        e.attempts = n
        return e
    }
}
