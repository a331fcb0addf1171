extension Response {
    /// How this response was obtained: attempts, redirects, total time, URL, and
    /// the attempt log when the client had a monitor installed (Metrics.swift).
    public var metrics: ResponseMetrics {
        let info = completionInfo
        return ResponseMetrics(
            attempts: info.attempts, redirects: info.redirects,
            totalUs: Int64(clamping: info.elapsedNs / 1000),
            url: Redaction.url(url), attemptLog: info.log ?? [],
            history: (info.redirectChain ?? []).map { RedirectHop(status: $0.status, url: Redaction.url($0.url)) },
            httpVersion: info.httpVersion?.text, taskID: info.taskID)
    }

    /// The task id of the request this response answers (0: no send produced it).
    package var taskID: UInt64 { completionInfo.taskID }

    /// `metrics.json` as a C string owned by the response (made once).
    public var metricsJSON: UnsafePointer<CChar> {
        metricsText.withLock { cached in
            if let cached { return cached.pointer }
            let made = CString(metrics.json)
            cached = made
            return made.pointer
        }
    }
}
