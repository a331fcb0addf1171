import CCurlShim

/// The transfers in a loop's multi handle: putting a hop in (an easy handle from
/// the pool, set up by `HopDriver`), taking it out (`stop`, `release`), reading
/// which hops ended (libcurl's messages, the idle watch), and sizing libcurl's
/// connection cache to the pool. Loop thread only; each ended hop goes on to
/// `hopEnded`, where `Transfer.next(after:)` decides.
extension TransferLoop {
    /// Puts `t` (its current hop) into the multi handle.
    func launch(_ t: Transfer) {
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
        t.phase = .running(slot: state.pointee.active.count)
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

    private func newEasyHandle() -> EasyHandle? {
        probe.handlesMade.add(1, ordering: .relaxed)
        return EasyHandle(share: share)
    }

    /// Takes a running transfer out of the multi handle and recycles its easy handle.
    func stop(_ t: Transfer, _ easy: EasyHandle) {
        _ = curl_multi_remove_handle(multi, easy.handle)
        t.easy = nil
        release(t, easy)
    }

    /// `t`, out of the multi handle, leaves the active list (phase `moving`); its
    /// easy handle goes back to the pool.
    func release(_ t: Transfer, _ easy: EasyHandle) {
        let slot = t.runningSlot
        if slot >= 0 && slot < state.pointee.active.count {
            let last = state.pointee.active.removeLast()
            if slot < state.pointee.active.count {
                state.pointee.active[slot] = last
                last.phase = .running(slot: slot)
            }
        }
        t.phase = .moving
        easy.parked()
        // Kept for the next transfer while the pool's size allows (EasyHandlePool).
        state.pointee.easyPool.put(easy, inUse: state.pointee.active.count)
    }

    func drainMessages() {
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
            guard t.runningSlot >= 0, let easy = t.easy, easy.handle == h else { continue }
            hopEnded(t, easy, code)
        }
        state.pointee.messages.clearKeepingBuffer()
    }

    /// The idle watch's look at every transfer in flight (IdleWatch.swift): those
    /// that moved no byte for their idle limit end as libcurl's timeouts do, and the
    /// next look is set.
    func lookForIdle(now: UInt64) {
        let (stalled, next) = Transfer.lookForIdle(state.pointee.active, now: now)
        state.pointee.idleLookAt = next
        for t in stalled {
            guard t.runningSlot >= 0, let easy = t.easy else { continue }
            hopEnded(t, easy, CURLE_OPERATION_TIMEDOUT)
        }
    }
}
