import CCurlShim

/// The production `HopTransport`: libcurl's multi interface. One multi handle, the
/// pool of easy handles its hops run on (`EasyHandlePool`), libcurl's connection
/// cache sized to that pool. A hop is set up and read by `HopDriver`, as the
/// synchronous lanes do it. Loop thread only, but `wake()`.
final class CurlTransport: HopTransport {
    let multi: UnsafeMutableRawPointer
    /// What every easy handle attaches to at creation (CurlShare.swift); nil: nothing shared.
    private let share: CurlShare?
    private let probe: LoopProbe
    // Loop thread only, so accesses cannot overlap: the runtime's dynamic
    // exclusivity checks (about 450 instructions a request) are turned off.
    @exclusivity(unchecked) private var pool = EasyHandlePool()
    /// Hops in flight (handles out of the pool).
    @exclusivity(unchecked) private var inUse = 0
    /// Finished hops of one `perform`, each transfer retained once by hand:
    /// trivial elements, so emptying the list costs no per-element destroy.
    @exclusivity(unchecked) private var messages: [(Unmanaged<Transfer>, UnsafeMutableRawPointer, CURLcode)] = []

    init?(limits: Configuration.Limits, share: CurlShare?, probe: LoopProbe) {
        CurlGlobal.ensureInitialized()
        guard let m = curl_multi_init() else { return nil }
        multi = m
        self.share = share
        self.probe = probe
        _ = ncshim_multi_setopt_long(m, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxConnectionsPerHost)
        CurlTransport.sizeConnectionCache(m, handles: EasyHandlePool.floor)
    }

    func start(_ t: Transfer, _ p: PreparedRequest, timeoutMs: Int64) -> Result<UInt64, NetError> {
        guard let easy = pool.take() ?? newEasyHandle() else {
            return .failure(
                NetError.internalError("libcurl could not create a transfer (out of memory).")
                    .attempted(t.attemptsMade(thisOneSent: false)))
        }
        inUse += 1
        switch HopDriver.start(t, p, timeoutMs: timeoutMs, on: easy, multi: multi) {
        case .failure(let e):
            giveBack(easy)
            return .failure(e)
        case .success(let look):
            if pool.noteInUse(inUse) { CurlTransport.sizeConnectionCache(multi, handles: pool.keep) }
            return .success(look)
        }
    }

    func perform(_ ended: (Transfer, consuming HopOutcome) -> Void) {
        var running: Int32 = 0
        _ = curl_multi_perform(multi, &running)
        // Read every message (and whose transfer it is) before ending any hop: an
        // ended hop's callbacks may stop or recycle other easy handles, which
        // invalidates libcurl's message storage and may hand a handle to another transfer.
        var left: Int32 = 0
        while let msg = curl_multi_info_read(multi, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let h = msg.pointee.easy_handle else { continue }
            var priv: UnsafeMutableRawPointer? = nil
            guard ncshim_easy_getinfo_ptr(h, CURLINFO_PRIVATE, &priv) == CURLE_OK, let priv else { continue }
            messages.append((Unmanaged<Transfer>.fromOpaque(priv).retain(), h, ncshim_msg_result(msg)))
        }
        for (ref, h, code) in messages {
            let t = ref.takeRetainedValue()
            // A callback earlier in this batch may have stopped it already.
            guard let easy = t.easy, easy.handle == h else { continue }
            ended(t, finish(t, easy, code))
        }
        messages.clearKeepingBuffer()
        if !probe.poolFrozen.load(ordering: .relaxed), pool.tick(inUse: inUse, now: EasyHandlePool.nowMs()) {
            CurlTransport.sizeConnectionCache(multi, handles: pool.keep)
        }
    }

    func stop(_ t: Transfer) -> Int32 {
        guard let easy = t.easy else { return t.attemptsMade(stoppedOn: nil) }
        let sent = t.attemptsMade(stoppedOn: easy)
        _ = curl_multi_remove_handle(multi, easy.handle)
        t.easy = nil
        giveBack(easy)
        return sent
    }

    func end(_ t: Transfer, _ code: CURLcode) -> HopOutcome {
        guard let easy = t.easy else { return HopOutcome(code: code) }
        return finish(t, easy, code)
    }

    func wait(timeoutMs: Int32) { _ = curl_multi_poll(multi, nil, 0, timeoutMs, nil) }

    func wake() { curl_multi_wakeup(multi) }

    func close() {
        pool.removeAll()
        curl_multi_cleanup(multi)
    }

    /// The hop's outcome, read off `easy` (HopDriver.finish); the handle back to the pool.
    private func finish(_ t: Transfer, _ easy: EasyHandle, _ code: CURLcode) -> HopOutcome {
        let outcome = HopDriver.finish(t, easy, code, multi: multi)
        giveBack(easy)
        return outcome
    }

    /// Kept for the next hop while the pool's size allows (EasyHandlePool).
    private func giveBack(_ easy: EasyHandle) {
        inUse -= 1
        easy.parked()
        pool.put(easy, inUse: inUse)
    }

    private func newEasyHandle() -> EasyHandle? {
        probe.handlesMade.add(1, ordering: .relaxed)
        return EasyHandle(share: share)
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
}
