import CCurlShim

/// idle_timeout_ms, measured by the library in milliseconds: no byte sent or
/// received for that long — waiting for the first byte of the answer included —
/// ends the hop with TRANSPORT 28, `"timeout": "idle"` (docs/errors.md). libcurl's
/// own low-speed check (a one-second average, whole seconds) is not used: it killed
/// a stream sending a byte a second and missed a 6 s stall after 100 bytes.
///
/// Nothing runs per byte. The thread driving a hop (the loop, or a synchronous
/// lane) *looks* at it now and then: the bytes libcurl has counted so far
/// (response headers and body, request line and body) against the count at the
/// last look. A count that moved is activity, dated at this look; one that did not
/// move for the hop's limit since its last activity is a stall. Looks come at least
/// every quarter of the limit, so a stall is caught between 1× and 1.25× the limit
/// after the last byte. While the connection is being made (no
/// CURLINFO_PRETRANSFER_TIME yet) the hop is never idle: connect_timeout_ms rules
/// that part. Nor while its body callback has paused it (NC_BODY_PAUSE): the
/// caller, not the network, holds it; the limit runs again from the resume.
///
/// The same looks end a hop that outlived its total limit while libcurl held it
/// waiting for a connection to its host (`lookForIdle`): timeout_ms and
/// deadline_ms hold then too.
extension Transfer {
    /// Arms the watch for the hop about to start, whose libcurl total timeout is
    /// `timeoutMs` (0: none): returns when the first look is due (monotonicNanos),
    /// or 0 when the hop has neither an idle limit nor a total one. Driving thread.
    @inline(__always)
    func armIdleWatch(_ p: PreparedRequest, timeoutMs: Int64) -> UInt64 {
        let idleMs = p.resilience.idleTimeoutMs
        hopLimitFired = false
        guard idleMs > 0 || timeoutMs > 0 else {
            hopDueAt = 0
            return 0
        }
        // The first hop of an attempt starts now: `attemptStart` was just set; a
        // redirect hop reads the clock.
        let now = redirects == 0 ? attemptStart : monotonicNanos()
        idleSince = now
        idleSeen = 0
        idleFired = false
        hopDueAt = timeoutMs > 0 ? Transfer.after(now, nanos(ms: timeoutMs), Transfer.limitGrace) : 0
        return Transfer.earliest(idleMs > 0 ? now &+ Transfer.lookEvery(idleMs) : 0, hopDueAt)
    }

    /// Looks at the hop in flight on `easy` at `now`: nil when it is to end with
    /// a timeout (the caller ends it: `idleFired` or `hopLimitFired` says why),
    /// else when to look again (0: never).
    ///
    /// The hop's total limit is libcurl's to enforce, and it does while the
    /// transfer runs; but libcurl 7.88 does not look at the clock of a transfer that
    /// waits for one of the host's connections (CURLMOPT_MAX_HOST_CONNECTIONS, its
    /// PENDING state): such a transfer outlived its timeout_ms and its deadline
    /// until a connection was free (53.7 s against a 45 s deadline in the chaos
    /// run, docs/RELIABILITY.md). The watch ends a hop still in flight
    /// `limitGrace` after its limit; libcurl's own timer, due earlier, ends a
    /// running one first, with its own words.
    func lookForIdle(_ easy: EasyHandle, now: UInt64) -> UInt64? {
        if hopDueAt != 0 && now >= hopDueAt {
            hopLimitFired = true
            return nil
        }
        guard let p = prepared, p.resilience.idleTimeoutMs > 0 else { return hopDueAt }
        let idleMs = p.resilience.idleTimeoutMs
        let (moved, connected) = easy.bytesMoved()
        // A body its callback paused (NC_BODY_PAUSE) waits for the caller, not the
        // network: the pause counts as activity, so the idle limit runs from its end.
        if moved != idleSeen || !connected || easy.sink.pointee.paused != 0 {
            idleSeen = moved
            idleSince = now
        } else if now &- idleSince >= nanos(ms: idleMs) {
            idleFired = true
            return nil
        }
        let stallAt = idleSince &+ nanos(ms: idleMs)
        let nextLook = now &+ Transfer.lookEvery(idleMs)
        return Transfer.earliest(min(stallAt, nextLook), hopDueAt)
    }

    /// One look at every hop in flight: those that moved no byte for their idle
    /// limit (the caller ends them), and when the next look is due (0: none is
    /// watched). The loop's pass calls it when `idleLookAt` is due.
    static func lookForIdle(_ active: [Transfer], now: UInt64) -> (stalled: [Transfer], next: UInt64) {
        var next: UInt64 = 0
        var stalled: [Transfer] = []
        for t in active {
            guard let easy = t.easy else { continue }
            guard let at = t.lookForIdle(easy, now: now) else {
                stalled.append(t)
                continue
            }
            if at != 0 && (next == 0 || at < next) { next = at }
        }
        return (stalled, next)
    }

    /// A quarter of the limit, at least a millisecond, in nanoseconds.
    @inline(__always)
    static func lookEvery(_ idleMs: Int64) -> UInt64 { nanos(ms: max(1, idleMs / 4)) }

    /// How long after a hop's total limit the watch ends it (libcurl starts its
    /// clock a little after the hop's, when the loop first drives it): 20 ms.
    static let limitGrace: UInt64 = 20_000_000

    /// `start` + `a` + `b` (nanoseconds), `.max` (never) when it would overflow: a
    /// request's own timeout_ms may be as large as Int64 allows.
    @inline(__always)
    static func after(_ start: UInt64, _ a: UInt64, _ b: UInt64) -> UInt64 {
        let (x, o1) = start.addingReportingOverflow(a)
        let (y, o2) = x.addingReportingOverflow(b)
        return o1 || o2 ? .max : y
    }

    /// The earlier of two moments, 0 being "none".
    @inline(__always)
    static func earliest(_ a: UInt64, _ b: UInt64) -> UInt64 { a == 0 ? b : (b == 0 ? a : min(a, b)) }
}

extension EasyHandle {
    /// Bytes libcurl has moved on the hop in flight (response headers and body
    /// received, request headers and body sent), and whether its connection is
    /// ready (CURLINFO_PRETRANSFER_TIME_T set). Four getinfo reads of counters
    /// libcurl keeps up to date as bytes move.
    func bytesMoved() -> (moved: Int64, connected: Bool) {
        var down: curl_off_t = 0
        var up: curl_off_t = 0
        var headers: Int = 0
        var request: Int = 0
        var pretransfer: curl_off_t = 0
        _ = ncshim_easy_getinfo_off(handle, CURLINFO_SIZE_DOWNLOAD_T, &down)
        _ = ncshim_easy_getinfo_off(handle, CURLINFO_SIZE_UPLOAD_T, &up)
        _ = ncshim_easy_getinfo_long(handle, CURLINFO_HEADER_SIZE, &headers)
        _ = ncshim_easy_getinfo_long(handle, CURLINFO_REQUEST_SIZE, &request)
        _ = ncshim_easy_getinfo_off(handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
        let moved = Int64(down) &+ Int64(up) &+ Int64(headers) &+ Int64(request)
        return (moved, pretransfer > 0 || request > 0)
    }

    /// Body bytes received so far on the hop, and the size the response announced
    /// (-1: unknown): what an idle or total timeout's message says had arrived.
    func bodyProgress() -> (received: Int64, expected: Int64) {
        var down: curl_off_t = 0
        var length: curl_off_t = -1
        _ = ncshim_easy_getinfo_off(handle, CURLINFO_SIZE_DOWNLOAD_T, &down)
        _ = ncshim_easy_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        return (Int64(down), Int64(length))
    }
}
