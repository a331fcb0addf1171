import CCurlShim

/// The loop's side of its hops: putting a transfer's hop on the transport
/// (`launch`), taking it off (`stopHop`, a cancel or the shutdown), and an ended
/// hop going on to `Transfer.next(after:)` (`hopEnded`: from the transport, or from
/// the idle watch). The list of running transfers (`LoopState.active`, each at its
/// `Phase.running` slot) is kept here. Loop thread only.
extension TransferLoop {
    /// Puts `t` (its current hop) on the transport.
    func launch(_ t: Transfer) {
        let prepared: PreparedRequest
        let timeoutMs: Int64
        switch HopDriver.ready(t) {
        case .failure(let e):
            complete(t, nil, e)
            return
        case .success(let hop): (prepared, timeoutMs) = hop
        }
        let look: UInt64
        switch transport.start(t, prepared, timeoutMs: timeoutMs) {
        case .failure(let e):
            complete(t, nil, e)
            return
        case .success(let first): look = first
        }
        t.lifecycle.launched(slot: state.pointee.active.count)
        state.pointee.active.append(t)
        if look != 0 && (state.pointee.idleLookAt == 0 || look < state.pointee.idleLookAt) {
            state.pointee.idleLookAt = look
        }
    }

    /// Takes a running transfer's hop off the transport: the attempts it made,
    /// counting this one if it sent anything.
    func stopHop(_ t: Transfer) -> Int32 {
        let sent = transport.stop(t)
        leaveActive(t)
        return sent
    }

    /// `t`'s hop is over: it leaves the list of running transfers (phase `moving`).
    private func leaveActive(_ t: Transfer) {
        let slot = t.runningSlot
        if slot >= 0 && slot < state.pointee.active.count {
            let last = state.pointee.active.removeLast()
            if slot < state.pointee.active.count {
                state.pointee.active[slot] = last
                last.lifecycle.moved(to: slot)
            }
        }
        t.lifecycle.moves()
    }

    /// The idle watch's look at every transfer in flight (IdleWatch.swift): those
    /// that moved no byte for their idle limit end as libcurl's timeouts do, and the
    /// next look is set.
    func lookForIdle(now: UInt64) {
        let (stalled, next) = Transfer.lookForIdle(state.pointee.active, now: now)
        state.pointee.idleLookAt = next
        for t in stalled where t.runningSlot >= 0 {
            hopEnded(t, transport.end(t, CURLE_OPERATION_TIMEDOUT))
        }
    }

    /// The hop of `t` ended with `outcome`: carry out what `Transfer.next(after:)` decides.
    func hopEnded(_ t: Transfer, _ outcome: consuming HopOutcome) {
        guard t.runningSlot >= 0 else { return }
        leaveActive(t)
        moving(t)
        execute(t.next(after: consume outcome), for: t)
        state.pointee.moving = nil
    }
}
