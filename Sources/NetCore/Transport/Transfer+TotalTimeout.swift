import CCurlShim
#if canImport(Glibc)
import Glibc
#endif

/// timeout_ms is the total time of a request, redirects included. libnetcore
/// follows redirects itself (Redirect.swift), one easy-handle transfer per hop, so
/// libcurl's CURLOPT_TIMEOUT_MS only bounds one hop: each hop gets what is left.
/// Called by both ways of running hops (TransferLoop.launch, TransferLoop.drive).
extension Transfer {
    /// CURLOPT_TIMEOUT_MS for the hop of `p` about to launch. The first hop records
    /// when the request started and gets all of timeout_ms; a later hop gets what
    /// remains (at least 1 ms: 0 would mean no limit to libcurl). 0 when there is no
    /// limit. Throws the error to complete with (TRANSPORT 28) when nothing remains.
    func hopTimeoutMs(_ p: PreparedRequest) throws(NetError) -> Int64 {
        let total = p.timeoutMs
        guard total > 0 else { return 0 }
        let now = Transfer.monotonicMs()
        if redirects == 0 {
            startedAtMs = now
            return total
        }
        guard let left = Transfer.remainingMs(total: total, startedAt: startedAtMs, now: now) else {
            throw TransportErrors.error(
                code: CURLE_OPERATION_TIMEDOUT,
                detail: "the total timeout_ms of \(total) ms ran out after \(redirects) redirect\(redirects == 1 ? "" : "s") "
                    + "followed (it bounds all hops of a request together)",
                method: p.method, url: String(cString: p.url.pointer))
        }
        return left
    }

    /// What remains of `total` ms started at `startedAt` (monotonic ms) at `now`;
    /// nil when nothing does. Pure (tests give their own times).
    static func remainingMs(total: Int64, startedAt: Int64, now: Int64) -> Int64? {
        let elapsed = now &- startedAt
        guard elapsed >= 0 else { return total }      // the clock never goes back; be safe
        guard elapsed < total else { return nil }
        return total - elapsed                        // >= 1
    }

    /// Milliseconds of CLOCK_MONOTONIC.
    static func monotonicMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) &* 1_000 &+ Int64(ts.tv_nsec / 1_000_000)
    }
}
