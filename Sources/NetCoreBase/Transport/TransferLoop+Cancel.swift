/// Cancellation on a transfer loop: one transfer (`cancel`, `requestCancel`, from
/// any thread or from a callback on the loop thread), every transfer a predicate
/// matches (`cancelMatching`), and the callers of a shared transfer, whose owner
/// decides (TransferOwner.swift). What a cancel does to one transfer is its
/// lifecycle's answer (`Transfer.Lifecycle.cancel()`, a value state machine); this
/// file reaches the transfer on the right thread, claims it, and carries the
/// answer out. Each cancelled transfer completes once, with CANCELLED.
extension TransferLoop {
    /// Cancels `t`: when this returns, from another thread in loop mode, its
    /// completion has run.
    package func cancel(_ t: Transfer) {
        if t.extras != nil && cancelOnLane(t) { return }   // a synchronous send (SyncLanes.swift)
        if let owner = monitor.withLock({ t.owner }) {
            cancelCaller(t, owner, now: true)
            if onLoopThread || mode == .queue || (completions?.isDrainingThread ?? false) { return }
            inbox.waitUntilDone(t)
            return
        }
        if onLoopThread { cancelOnLoopThread(t); return }
        // In queue mode the completion runs at the next dispatch(): do not wait.
        // Inside dispatch() the transfer may be the one running: do not wait.
        let noWait = mode == .queue || (completions?.isDrainingThread ?? false)
        monitor.withLock { inbox.queueCancel(t) }
        if !noWait { inbox.waitUntilDone(t) }
    }

    /// Asks the loop thread to cancel `t` and returns at once, from any thread
    /// (this loop's included): never waits, never runs the completion on the
    /// calling thread. For callers that hold a lock the completion may need, such
    /// as a Swift task-cancellation handler (see module NetCore's NetClient+Async.swift). Idempotent.
    package func requestCancel(_ t: Transfer) {
        if t.extras != nil && cancelOnLane(t) { return }
        monitor.lock()
        if let owner = t.owner {
            monitor.unlock()
            cancelCaller(t, owner, now: false)
            return
        }
        inbox.queueCancel(t)
        monitor.unlock()
    }

    /// Cancels caller `t` of a shared transfer as its owner says. `now`: on the
    /// loop thread, complete at once (nc_task_cancel from a callback); otherwise
    /// only queue the work (never run a completion on the calling thread). While
    /// shutting down nothing is done: the shared transfer completes every caller.
    private func cancelCaller(_ t: Transfer, _ owner: any TransferOwner, now: Bool) {
        guard inbox.acceptsWork else { return }
        let answer = owner.cancel(caller: t)
        for d in answer.detached { completeDetached(d, nil, .cancelled, now: now) }
        if let shared = answer.shared {
            if now && onLoopThread {
                cancelOnLoopThread(shared)
            } else {
                monitor.withLock { inbox.queueCancel(shared) }
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
        let queued: Bool = monitor.withLock {
            t.result = (response, error)
            return inbox.queueDetached(t)
        }
        if !queued { finishDetached(t, response, error) }
    }

    func finishDetached(_ t: Transfer, _ response: Response?, _ error: NetError?) {
        if let completions {
            t.result = (response, error)
            completions.push(t)
            return
        }
        t.result = (nil, nil)
        t.deliver(t, response, error)
        markDone(t)
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
        return inbox.sweepAndWait(LoopInbox.Sweep(match))
    }

    /// Loop thread: runs the sweeps other threads asked for and wakes them.
    func runSweeps(_ asked: [LoopInbox.Sweep]) {
        for s in asked { s.cancelled = sweep(s.match) }
        inbox.finish(asked)
    }

    /// Claims `t` for a cancel (sets `cancelRequested`): false if it is done or a
    /// cancel claimed it already.
    private func claim(_ t: Transfer) -> Bool {
        monitor.withLock {
            if t.done || t.cancelRequested { return false }
            t.cancelRequested = true
            return true
        }
    }

    /// Loop thread: cancelMatching's work.
    private func sweep(_ match: (Transfer) -> Bool) -> Int {
        var n = 0
        // Not started yet: flagged, completed as cancelled when the loop takes them.
        var ownedPending: [Transfer] = []
        monitor.withLock {
            for t in inbox.pending where !t.cancelRequested {
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
            if answer.shared != nil, claim(t) { n += answer.last }
        }
        var running: [Transfer] = state.pointee.active
        running.append(contentsOf: state.pointee.timers.items)
        running.append(contentsOf: state.pointee.parked.all)
        // Swept from one of its own hooks (an adapter, its attempt-end event).
        if let moving = state.pointee.moving?.takeUnretainedValue() { running.append(moving) }
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
            switch t.phase.onCancel {
            case .stopHop, .endWait, .askBeforeNextStep:
                guard claim(t) else { continue }
                carryOut(t)
                n += last
            case .takeFromQueue, .nothing:
                continue
            }
        }
        return n
    }

    /// Loop thread: completes the callers an owner detached, with CANCELLED; how many.
    private func completeCancelled(_ answer: OwnedCancel) -> Int {
        for d in answer.detached { completeDetached(d, nil, .cancelled, now: true) }
        return answer.detached.count
    }

    /// Loop thread: cancels `t` now if it is in the multi handle or waiting between
    /// attempts; otherwise it is completing (perhaps in this very callback) or done.
    func cancelNow(_ t: Transfer) {
        switch t.phase.onCancel {
        case .stopHop, .endWait: carryOut(t)
        case .askBeforeNextStep, .takeFromQueue, .nothing: break
        }
    }

    /// nc_task_cancel from inside a callback running on the loop thread: act now,
    /// since waiting for the loop would wait for ourselves.
    private func cancelOnLoopThread(_ t: Transfer) {
        guard inbox.acceptsWork else { return }
        carryOut(t)
    }

    /// Loop thread: tells `t`'s lifecycle it is cancelled and does the step it answers.
    private func carryOut(_ t: Transfer) {
        switch t.lifecycle.cancel() {
        case .stopHop:
            complete(t, nil, NetError.cancelled.attempted(stopHop(t)))
        case .endWait:
            unwait(t)
            complete(t, nil, NetError.cancelled.attempted(t.attempt))
        case .askBeforeNextStep:
            break   // pending in the lifecycle: its next step ends it
        case .takeFromQueue:
            // A transfer the loop has not taken yet, or one it never runs (a
            // synchronous send, a caller of a shared transfer): only the former is
            // in the queue.
            if inbox.removePending(t) {
                t.emitStart()
                complete(t, nil, .cancelled)
            }
        case .nothing:
            break
        }
    }
}
