import CCurlShim

/// Starting and ending one hop on an easy handle: what the transfer loop and a
/// synchronous lane both do around libcurl, written once. The two differ only in
/// where the handle comes from (the loop's pool, the lane's own) and what waits
/// for libcurl (the loop's poll over every transfer, the lane's over one).
enum HopDriver {
    /// What the hop about to start sends: the request and libcurl's total timeout
    /// for it (what is left of the attempt's and the deadline's), with the
    /// transfer's output and input files open; or the error to complete with,
    /// nothing sent.
    static func ready(_ t: Transfer) -> Result<(request: PreparedRequest, timeoutMs: Int64), NetError> {
        if let e = t.openOutput() { return .failure(e) }
        if let e = t.openInput() { return .failure(e) }
        guard let p = t.prepared else {
            return .failure(NetError.internalError("A transfer ended without its request.").attempted(t.attempt))
        }
        guard let timeoutMs = t.hopTimeoutMs(p) else { return .failure(t.outOfTime(p)) }
        return .success((p, timeoutMs))
    }

    /// Configures `easy` for the hop and adds it to `multi`: nil when the hop runs,
    /// with the first look of its idle watch due then (0: no idle limit;
    /// IdleWatch.swift); else the error to complete with (libcurl refused it; the
    /// transfer no longer holds the handle).
    static func start(
        _ t: Transfer, _ p: PreparedRequest, timeoutMs: Int64, on easy: EasyHandle,
        multi: UnsafeMutableRawPointer
    ) -> Result<UInt64, NetError> {
        t.easy = easy
        easy.configure(for: t, p, timeoutMs: timeoutMs)
        guard curl_multi_add_handle(multi, easy.handle) == CURLM_OK else {
            t.easy = nil
            return .failure(
                NetError.internalError("libcurl refused the transfer.").attempted(t.attemptsMade(thisOneSent: false)))
        }
        return .success(t.armIdleWatch(p, timeoutMs: timeoutMs))
    }

    /// The hop on `easy` ended with `code` (libcurl's, or the idle watch's
    /// CURLE_OPERATION_TIMEDOUT): its timings go to the attempt log, its outcome is
    /// read off the handle, and the handle leaves `multi` (the transfer no longer
    /// holds it). What follows is `Transfer.next(after:)`'s to decide.
    static func finish(
        _ t: Transfer, _ easy: EasyHandle, _ code: CURLcode, multi: UnsafeMutableRawPointer
    ) -> HopOutcome {
        t.noteHopEnded(easy)
        let outcome = HopOutcome(easy, code)
        _ = curl_multi_remove_handle(multi, easy.handle)
        t.easy = nil
        return outcome
    }
}
