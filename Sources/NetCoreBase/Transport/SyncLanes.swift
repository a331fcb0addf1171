import CCurlShim
import Synchronization

/// Synchronous sends run on the calling thread: no hand-off to the transfer
/// thread and back (two context switches per request). Each one borrows a *lane*,
/// a private multi handle with one easy handle, and drives it with
/// curl_multi_perform / curl_multi_poll until the response is in. Lanes are pooled
/// by the client, so a thread that sends one request after another reuses the
/// lane's kept-alive connection. Connections are not shared between lanes and the
/// transfer thread: N threads sending synchronously at once use up to N lanes.
final class SyncLane {
    let multi: UnsafeMutableRawPointer
    let easy: EasyHandle

    init?(share: CurlShare?) {
        guard let m = curl_multi_init() else { return nil }
        guard let e = EasyHandle(share: share) else {
            curl_multi_cleanup(m)
            return nil
        }
        multi = m
        easy = e
    }

    // The easy handle is never left in the multi handle (see drive()), and is
    // cleaned up after it, when `easy` is released.
    deinit { curl_multi_cleanup(multi) }

    /// Waits up to `ms` on the lane: returns early for libcurl's own timers, socket
    /// activity, or a wake-up (shutdown, resume of a parked transfer).
    func poll(_ ms: Int32) { _ = curl_multi_poll(multi, nil, 0, ms, nil) }
}

/// A client's lanes: the idle ones kept for reuse and the busy ones, which
/// `stop()` wakes and waits for. Storage and pool in one type, with its own lock.
final class SyncLanes: @unchecked Sendable {
    /// Idle lanes kept for reuse.
    static let maxIdle = 16

    private let monitor = Monitor()
    private var idle: [SyncLane] = []
    private var busy: [SyncLane] = []
    /// Set once by stop(); read by the lanes' drive loops without the lock.
    let stopping = Atomic<Bool>(false)
    /// What the lanes' easy handles attach to (the client's, CurlShare.swift).
    private let share: CurlShare?
    /// The client's stubs (Features/Stubs), set once before its first send: a hop
    /// a stub answers is not sent. nil: none.
    @exclusivity(unchecked) var stubs: StubTable?

    init(share: CurlShare?) { self.share = share }

    enum Acquired {
        case lane(SyncLane)
        case stopping
        case noMemory
    }

    /// A lane for one synchronous send, marked busy; `.stopping` once stop() began.
    func acquire() -> Acquired {
        if let lane: SyncLane = monitor.withLock({
            guard !stopping.load(ordering: .relaxed), let lane = idle.popLast() else { return nil }
            busy.append(lane)
            return lane
        }) {
            return .lane(lane)
        }
        if stopping.load(ordering: .acquiring) { return .stopping }
        // A new lane is made without the lock; stop() may have begun meanwhile.
        guard let made = SyncLane(share: share) else { return .noMemory }
        return monitor.withLock {
            if stopping.load(ordering: .relaxed) { return .stopping }
            busy.append(made)
            return .lane(made)
        }
    }

    /// Gives a lane back after its send.
    func release(_ lane: SyncLane) {
        monitor.withLock {
            if let i = busy.firstIndex(where: { $0 === lane }) { busy.remove(at: i) }
            if stopping.load(ordering: .relaxed) {
                monitor.broadcast()   // stop() waits for busy lanes
            } else if idle.count < SyncLanes.maxIdle {
                idle.append(lane)
            }
        }
    }

    /// Makes every send in progress end with NetError.shutdown; with `wait`, returns
    /// once each has (not from a send's own thread).
    func stop(wait: Bool) {
        monitor.withLock {
            stopping.store(true, ordering: .releasing)
            for lane in busy { curl_multi_wakeup(lane.multi) }
            if wait { while !busy.isEmpty { monitor.wait() } }
            idle.removeAll()
        }
    }

    /// Wakes the lane a parked synchronous send waits on (TransferLoop.resume).
    func wake(_ lane: SyncLane) {
        monitor.withLock { if busy.contains(where: { $0 === lane }) { curl_multi_wakeup(lane.multi) } }
    }
}

extension TransferLoop {
    /// Sends `t` on the calling thread and stores its outcome in `t.result`. False
    /// (nothing sent) if the client is shutting down. Not from a callback.
    func runSync(_ t: Transfer) -> Bool {
        let lane: SyncLane
        switch lanes.acquire() {
        case .stopping: return false
        case .noMemory:
            t.result = (nil, NetError.internalError("libcurl could not create a transfer (out of memory)."))
            return true
        case .lane(let l): lane = l
        }
        t.id = nextID()
        // A send with callbacks may hand its task out (nc_task_current): its body
        // resumes and cancels reach the lane (TransferExtras).
        if let x = t.extras { monitor.withLock { x.lane = lane } }
        t.emitStart()
        let (driven, failure) = drive(t, lane)
        if let x = t.extras {
            monitor.withLock {
                x.lane = nil
                x.laneEnded = true
            }
        }
        t.gate?.ended(t)
        let (response, error) = t.closingOutput(driven, failure)
        t.closeInput()
        t.emitEnd(response, error)
        t.result = (response, error)
        lanes.release(lane)
        return true
    }

    /// Runs every hop and attempt of `t` on `lane`, carrying out what
    /// `Transfer.next(after:)` decides; returns the single outcome.
    private func drive(_ t: Transfer, _ lane: SyncLane) -> (Response?, NetError?) {
        if t.presetError != nil || t.presetResponse != nil { return (t.presetResponse, t.presetError) }
        let easy = lane.easy
        if let e = begin(t, lane) { return (nil, e) }
        while true {
            let hop: (request: PreparedRequest, timeoutMs: Int64)
            switch HopDriver.ready(t) {
            case .failure(let e): return (nil, e)
            case .success(let ready): hop = ready
            }
            // A stub's answer, or its refusal (StubTable+Sync.swift); nil: the network's.
            if let stubs = lanes.stubs, let stubbed = stubbedHop(t, hop, stubs, lane) {
                switch stubbed {
                case .failure(let e): return (nil, e)
                case .success(let action):
                    if let done = carryOut(action, t, lane) { return done }
                    continue
                }
            }
            var lookAt: UInt64
            switch HopDriver.start(t, hop.request, timeoutMs: hop.timeoutMs, on: easy, multi: lane.multi) {
            case .failure(let e): return (nil, e)
            case .success(let first): lookAt = first
            }
            var code = CURLE_OK
            var finished = false
            var running: Int32 = 0
            while true {
                _ = curl_multi_perform(lane.multi, &running)
                var left: Int32 = 0
                while let msg = curl_multi_info_read(lane.multi, &left) {
                    if msg.pointee.msg == CURLMSG_DONE {
                        code = ncshim_msg_result(msg)
                        finished = true
                    }
                }
                if finished { break }
                if lanes.stopping.load(ordering: .acquiring) {
                    let sent = t.attemptsMade(stoppedOn: easy)
                    _ = curl_multi_remove_handle(lane.multi, easy.handle)
                    t.easy = nil
                    return (nil, NetError.shutdown.attempted(sent))
                }
                if let x = t.extras {
                    // What another thread asked of this send (resumeBody, cancelOnLane).
                    let (resume, cancel) = monitor.withLock {
                        defer { x.laneResume = false }
                        return (x.laneResume, x.laneCancel)
                    }
                    if cancel {
                        let sent = t.attemptsMade(stoppedOn: easy)
                        _ = curl_multi_remove_handle(lane.multi, easy.handle)
                        t.easy = nil
                        return (nil, NetError.cancelled.attempted(sent))
                    }
                    if resume {
                        let rc = ncsink_resume(easy.sink)
                        if rc != CURLE_OK.rawValue {
                            code = CURLcode(rawValue: UInt32(rc))
                            break
                        }
                    }
                }
                if lookAt != 0 {
                    // The idle watch (IdleWatch.swift): a stalled hop ends as libcurl's timeouts do.
                    let now = monotonicNanos()
                    if now >= lookAt {
                        guard let at = t.lookForIdle(easy, now: now) else {
                            code = CURLE_OPERATION_TIMEDOUT
                            break
                        }
                        lookAt = at
                    }
                    lane.poll(pollTimeoutMs(until: lookAt, now: now))
                } else {
                    lane.poll(1000)
                }
            }
            let outcome = HopDriver.finish(t, easy, code, multi: lane.multi)
            if let stubs = lanes.stubs, let recorder = stubs.recorder { StubTransport.record(recorder, t, outcome) }
            if let done = carryOut(t.next(after: outcome), t, lane) { return done }
        }
    }

    /// Carries out what `Transfer.next(after:)` decided: the single outcome when
    /// the send is over, nil when its next hop is to be sent.
    private func carryOut(_ action: TransferAction, _ t: Transfer, _ lane: SyncLane) -> (Response?, NetError?)? {
        switch action {
        case .complete(let response, let error):
            return (response, error)
        case .redirect:
            return nil
        case .relaunch:
            if let e = begin(t, lane) { return (nil, e) }
        case .relaunchAfter(let ms, let reason):
            t.emitRelaunchScheduled(delayMs: ms, reason: reason)
            if let e = waitOnLane(ms, t, lane) { return (nil, e) }
            if let e = begin(t, lane) { return (nil, e) }
        case .park:
            if let e = waitParked(t, lane) { return (nil, e) }
            if let e = begin(t, lane) { return (nil, e) }
        }
        return nil
    }

    /// Waits `ms` on `lane`: nil, or the shutdown error when the client stops meanwhile.
    func waitOnLane(_ ms: Int64, _ t: Transfer, _ lane: SyncLane) -> NetError? {
        let due = monotonicNanos(afterMs: ms)
        while true {
            if lanes.stopping.load(ordering: .acquiring) { return NetError.shutdown.attempted(t.attempt) }
            let now = monotonicNanos()
            if now >= due { return nil }
            lane.poll(Int32(clamping: (due - now + 999_999) / 1_000_000))
        }
    }

    /// Cancels `t` if it is a synchronous send (one whose callbacks handed its task
    /// out, nc_task_current): its lane ends the hop in flight and the send returns
    /// CANCELLED. Never waits (the caller may be the send's own callback). False
    /// when `t` is not a synchronous send: the loop cancels it.
    func cancelOnLane(_ t: Transfer) -> Bool {
        guard let x = t.extras else { return false }
        monitor.lock()
        guard let lane = x.lane else {
            let ended = x.laneEnded
            monitor.unlock()
            return ended
        }
        x.laneCancel = true
        monitor.unlock()
        lanes.wake(lane)
        return true
    }

    /// Begins the next attempt of `t` as the loop's relaunch does: nil when it is to
    /// be sent, else the error to end with. A transfer its beginning parks waits
    /// here (waitParked) and begins again.
    private func begin(_ t: Transfer, _ lane: SyncLane) -> NetError? {
        while true {
            switch t.beginAttempt(now: monotonicNanos()) {
            case nil:
                return nil
            case .complete(_, let e):
                return e ?? NetError.internalError("An attempt ended before it began.").attempted(t.attempt)
            case .park:
                if let e = waitParked(t, lane) { return e }
            case .redirect, .relaunch, .relaunchAfter:
                return NetError.internalError("An attempt's beginning asked for a hop.").attempted(t.attempt)
            }
        }
    }

    /// Waits on `lane` until `TransferLoop.resume(_:)` is asked for `t`, or until its
    /// deadline (the next beginning then ends it): nil, or the shutdown error when
    /// the client stops meanwhile.
    private func waitParked(_ t: Transfer, _ lane: SyncLane) -> NetError? {
        monitor.withLock { t.parkedLane = lane }
        let due = t.deadlineAt
        while !monitor.withLock({ t.resumeRequested }) {
            if lanes.stopping.load(ordering: .acquiring) {
                monitor.withLock { t.parkedLane = nil }
                return NetError.shutdown.attempted(t.attempt)
            }
            var wait: Int32 = 1000
            if let due {
                let now = monotonicNanos()
                if now >= due { break }
                wait = Int32(clamping: min(1000, (due - now + 999_999) / 1_000_000))
            }
            lane.poll(wait)
        }
        monitor.withLock {
            t.parkedLane = nil
            t.resumeRequested = false
        }
        return nil
    }
}
