import CCurlShim
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What other threads call on a transfer loop: sending, resuming a parked transfer,
/// the pass hook, queue mode's dispatch, the async API's batched resumes, and
/// stopping. Each only queues work in the `LoopInbox` and wakes the loop (or waits
/// for it); libcurl is called on the loop thread alone.
extension TransferLoop {
    /// The loop's monitor (LoopInbox): guards the fields of `Transfer` marked so.
    var monitor: Monitor { inbox.monitor }
    /// Queue mode's notification descriptor (eventfd), -1 in loop mode.
    var eventFD: Int32 { completions?.fd ?? -1 }

    /// The next request number of this client (events' `id`, nc_task_id).
    func nextID() -> UInt64 { inbox.nextID() }

    /// Queues a transfer. False if the client is shutting down.
    func submit(_ t: Transfer) -> Bool { inbox.submit(t) }

    /// Queues `shared` (its `owner` set) on behalf of `caller`, a transfer the loop
    /// will not run: the caller takes the shared transfer's id and `owner`, so its
    /// cancels go to the owner (TransferOwner.swift). False, with nothing queued,
    /// if the client is shutting down or `caller` was already asked to cancel (a
    /// Swift task cancelled before its send: submit it alone).
    func submit(_ shared: Transfer, for caller: Transfer) -> Bool { inbox.submit(shared, for: caller) }

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
    package func passHook<H: LoopPassHook>(_ make: () -> H) -> H { inbox.passHook(make) }

    /// Queues work of the installed pass hook `hook`, from any thread (the loop
    /// thread included): runs `body` (which adds to the hook's queue) under the
    /// monitor and wakes the loop, whose next pass takes it (`LoopPassHook.take`)
    /// and runs it before new transfers start, so a task resumed by a completion
    /// sends its next request in the same pass without a thread switch. False,
    /// `body` not run, once shutdown has begun or when `hook` is not installed.
    package func queueForPass(_ hook: AnyObject, _ body: () -> Void) -> Bool { inbox.queueForPass(hook, body) }

    /// Relaunches a transfer parked by `TransferAction.park` (a new attempt), from
    /// any thread. Nothing happens for a transfer that is not parked (anymore).
    package func resume(_ t: Transfer) {
        monitor.lock()
        t.resumeRequested = true
        if let lane = t.parkedLane {
            monitor.unlock()
            lanes.wake(lane)
            return
        }
        inbox.queueResume(t)
        monitor.unlock()
    }

    /// Sends now a transfer waiting out a retry's delay (`TransferAction.relaunchAfter`),
    /// from any thread: the loop's next pass takes it as it takes a resumed one and
    /// relaunches it. Nothing happens to a transfer no longer waiting by then (nor to
    /// a synchronous send, which waits its delay out on its lane).
    package func relaunchNow(_ t: Transfer) {
        monitor.withLock { inbox.queueResume(t) }
    }

    /// What `resumeBody` found.
    package enum BodyResume: Sendable {
        /// Asked: the hop, if paused, continues from its driving thread (soon).
        case asked
        /// The transfer has completed (or its synchronous send has returned).
        case finished
        /// The request has no body callback: nothing to resume.
        case notStreaming
    }

    /// Lets the body of `t`, paused by its body callback (NC_BODY_PAUSE), continue:
    /// from any thread, the loop's included. The thread driving the hop (the loop's
    /// next pass, or the lane of a synchronous send) calls ncsink_resume — after the
    /// body callback in progress, if any, has returned, so a resume asked while
    /// the callback that pauses still runs is not lost. A hop that is not paused
    /// is left alone.
    package func resumeBody(_ t: Transfer) -> BodyResume {
        guard let x = t.extras, x.stream != nil else { return .notStreaming }
        monitor.lock()
        if t.done || x.laneEnded {
            monitor.unlock()
            return .finished
        }
        if let lane = x.lane {
            x.laneResume = true
            monitor.unlock()
            lanes.wake(lane)
            return .asked
        }
        inbox.queueBodyResume(t) { { [unowned self] in resumeBodies($0) } }
        monitor.unlock()
        return .asked
    }

    /// The body resumes taken by a pass (LoopInbox.take), on the loop thread: each
    /// running hop that is paused continues; one whose callback aborts on the chunk
    /// handed over again ends as an abort does. The hop's easy handle is
    /// CurlTransport's (`Transfer.easy`); a transport without one (TableTransport)
    /// has nothing to resume.
    private func resumeBodies(_ list: [Transfer]) {
        for t in list {
            guard t.runningSlot >= 0, let easy = t.easy else { continue }
            let rc = ncsink_resume(easy.sink)
            if rc != CURLE_OK.rawValue { hopEnded(t, transport.end(t, CURLcode(rawValue: UInt32(rc)))) }
        }
    }

    /// True once the loop has stopped and freed its multi handle.
    var isStopped: Bool { inbox.lifecycle.load(ordering: .acquiring) == .stopped }

    /// Whether the caller runs on the loop thread (an executor job or a callback).
    package var onLoopThread: Bool { isLoopThread }

    /// Queue mode, called on the loop thread: queues `call` to run in the next
    /// `dispatch()` (after the completions queued before it) and returns true.
    /// Otherwise false: the caller runs it now. How a hook reaches the caller's
    /// thread in queue mode, as the completions do.
    package func deferToDispatch(_ call: @escaping @Sendable () -> Void) -> Bool {
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

    /// Marks `t` completed and wakes the threads waiting for it.
    package func markDone(_ t: Transfer) { inbox.markDone(t) }

    /// Queue mode: runs the completions waiting now on the calling thread.
    func dispatch(force: Bool = false) -> DispatchResult {
        guard let completions else { return .wrongMode }
        return completions.drain(force: force) { t in
            t.deliver(t, t.result.0, t.result.1)
            t.result = (nil, nil)
            markDone(t)
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
    /// goes on to its next pass without a thread switch). Loop thread.
    func resumeDeferred() {
        guard !state.pointee.deferred.isEmpty, let resumeAll = state.pointee.resumeAll else { return }
        let batch = state.pointee.deferred
        state.pointee.deferred.removeAll(keepingCapacity: true)
        resumeAll(batch)
    }

    /// Stops the loop: every transfer completes with `NetError.shutdown`; returns
    /// after the loop thread has exited. Queued completions (queue mode) then run
    /// on the calling thread. False (nothing done) from inside a callback.
    func shutdown() -> Bool {
        if isCallbackThread { return false }
        guard inbox.beginStop(.stopping) else { return true }
        lanes.stop(wait: true)
        joinThread()
        cleanUpAfterLoop()
        return true
    }

    /// Stops the loop without waiting for it, from inside one of its callbacks (or
    /// a job of its executor): for the owner's deinit, which may run there when
    /// the last reference goes. Transfers in flight complete with
    /// `NetError.shutdown` as with shutdown(); the loop thread then cleans up and
    /// exits on its own.
    func stopDetached() {
        guard inbox.beginStop(.stoppingDetached) else { return }
        // A synchronous send holds its client, so no lane is busy when the owner
        // goes; stop them anyway.
        lanes.stop(wait: false)
    }

    /// After the loop thread has stopped: nothing may stay queued behind it (a
    /// transfer or a job refers to it), queued completions run, libcurl is freed.
    func cleanUpAfterLoop() {
        let hook = inbox.emptyAfterStop()
        // Tasks waiting on the executor continue on Swift's global executor.
        hook?.loopStopped()
        _ = dispatch(force: true)
        monitor.withLock {
            transport.close()
            inbox.lifecycle.store(.stopped, ordering: .releasing)
        }
    }
}

extension Transfer {
    /// Lets this transfer's body, paused by its body handler (`BodyAnswer.pause`),
    /// continue: the same chunk is handed over again, then the rest. From any
    /// thread. False when the transfer has completed or streams no body
    /// (nothing happens).
    @discardableResult
    public func resumeBody() -> Bool { context.resumeBody(self) == .asked }

    /// The transfer whose body or head callback runs on this thread, else nil
    /// (nc_task_current; a thread-local of ncprogress.c).
    package static var current: Transfer? {
        ncstream_current().map { Unmanaged<Transfer>.fromOpaque($0).takeUnretainedValue() }
    }
}
