import CCurlShim
import Synchronization

/// Synchronous sends run on the calling thread: no hand-off to the transfer
/// thread and back (two context switches per request). Each one borrows a *lane*,
/// a private multi handle with one easy handle, and drives it with
/// curl_multi_perform / curl_multi_poll until the response is in. Lanes are pooled
/// by the client, so a thread that sends one request after another reuses the
/// lane's kept-alive connection. Connections are not shared between lanes and the
/// transfer thread: N threads sending synchronously at once use up to N lanes.
///
/// Shutdown sets `syncStopping`, wakes every busy lane (curl_multi_wakeup may be
/// called from any thread), and waits until each has returned: a send in progress
/// completes with NetError.shutdown.
final class SyncLane {
    let multi: UnsafeMutableRawPointer
    let easy: EasyHandle

    init?() {
        guard let m = curl_multi_init() else { return nil }
        guard let e = EasyHandle() else {
            curl_multi_cleanup(m)
            return nil
        }
        multi = m
        easy = e
    }

    // The easy handle is never left in the multi handle (see drive()), and is
    // cleaned up after it, when `easy` is released.
    deinit { curl_multi_cleanup(multi) }
}

extension TransferLoop {
    /// Idle lanes kept for reuse.
    static let maxIdleLanes = 16

    /// Sends `t` on the calling thread and stores its outcome in `t.result`. False
    /// (nothing sent) if the client is shutting down. Not from a callback.
    func runSync(_ t: Transfer) -> Bool {
        monitor.lock()
        if shuttingDown {
            monitor.unlock()
            return false
        }
        let lane: SyncLane
        if let idle = idleLanes.popLast() {
            lane = idle
            busyLanes.append(lane)
            monitor.unlock()
        } else {
            // A new lane is made without the lock; shutdown may have begun meanwhile.
            monitor.unlock()
            guard let made = SyncLane() else {
                t.result = (nil, NetError.internalError("libcurl could not create a transfer (out of memory)."))
                return true
            }
            monitor.lock()
            if shuttingDown {
                monitor.unlock()
                return false
            }
            lane = made
            busyLanes.append(lane)
            monitor.unlock()
        }

        t.result = drive(t, lane)
        _ = t.closeOutput()

        monitor.lock()
        if let i = busyLanes.firstIndex(where: { $0 === lane }) { busyLanes.remove(at: i) }
        if shuttingDown {
            monitor.broadcast()      // shutdown() waits for busy lanes
        } else if idleLanes.count < TransferLoop.maxIdleLanes {
            idleLanes.append(lane)
        }
        monitor.unlock()
        return true
    }

    /// Runs every hop of `t` on `lane`; returns the single outcome.
    private func drive(_ t: Transfer, _ lane: SyncLane) -> (Response?, NetError?) {
        if let e = t.presetError { return (nil, e) }
        let easy = lane.easy
        while true {
            guard let p = t.prepared else {
                return (nil, NetError.internalError("A transfer ended without its request.").attempted(1))
            }
            if let e = t.openOutput() { return (nil, e) }
            let timeoutMs: Int64
            do { timeoutMs = try t.hopTimeoutMs(p) } catch { return (nil, error) }
            t.easy = easy
            easy.configure(for: t, p, timeoutMs: timeoutMs)
            guard curl_multi_add_handle(lane.multi, easy.handle) == CURLM_OK else {
                t.easy = nil
                return (nil, NetError.internalError("libcurl refused the transfer.").attempted(t.redirects > 0 ? 1 : 0))
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
                if syncStopping.load(ordering: .acquiring) {
                    let sent = t.attempts(easy)
                    _ = curl_multi_remove_handle(lane.multi, easy.handle)
                    t.easy = nil
                    return (nil, NetError.shutdown.attempted(sent))
                }
                // Returns early for libcurl's own timers, socket activity, or a
                // wake-up from shutdown().
                _ = curl_multi_poll(lane.multi, nil, 0, 1000, nil)
            }
            let hop = t.conclude(easy, code)
            _ = curl_multi_remove_handle(lane.multi, easy.handle)
            t.easy = nil
            switch hop {
            case .done(let response, let error): return (response, error)
            case .redirect: continue
            }
        }
    }

    /// Part of shutdown(): makes every synchronous send in progress end with
    /// NetError.shutdown and waits until they have. Call without the monitor held.
    func stopSyncLanes() {
        syncStopping.store(true, ordering: .releasing)
        monitor.lock()
        for lane in busyLanes { curl_multi_wakeup(lane.multi) }
        while !busyLanes.isEmpty { monitor.wait() }
        idleLanes.removeAll()
        monitor.unlock()
    }
}
