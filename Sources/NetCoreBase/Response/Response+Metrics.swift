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
            httpVersion: info.httpVersion?.text, request: request)
    }

    /// The request this response answers: method, URL (redacted as events show
    /// it), endpoint, label and task id; nil for a response no send produced.
    public var request: NetError.RequestIdentity? {
        let info = completionInfo
        guard let p = info.origin else { return nil }
        return NetError.RequestIdentity(
            method: p.method, rawURL: p.urlText, endpoint: p.endpointName, label: p.label, taskID: info.taskID)
    }

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
