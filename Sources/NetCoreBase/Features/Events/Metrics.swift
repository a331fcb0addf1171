/// One attempt of a request as its response's metrics show it.
public struct AttemptRecord: Sendable, Equatable {
    /// From 1.
    public var attempt: Int32
    /// The HTTP status of the attempt's last response, 0 if none.
    public var status: Int32
    /// The attempt's error, nil on success.
    public var domain: NetError.Domain?
    /// The attempt's error code in its domain, nil on success.
    public var code: Int64?
    /// libcurl's timings (µs) and the body bytes received.
    public var timings: AttemptTimings
}

/// What a response says about how it was obtained (`Response.metrics`,
/// nc_response_metrics_json): attempts, redirects, total time, effective URL and,
/// when the client had an event handler, a log handler at DEBUG or TRACE, or an
/// EventMonitor that keeps one (`keepsAttemptLog`) installed at send, the log of
/// every attempt with libcurl's timings. Otherwise the log is empty: the transfer
/// reads no timings, so a client without hooks, or with a log at WARN or INFO
/// alone (Python's default), pays nothing for them.
public struct ResponseMetrics: Sendable {
    /// Attempts made (1 without retries).
    public var attempts: Int32
    /// Redirects followed by the last attempt.
    public var redirects: Int32
    /// Microseconds from the start of the first attempt to the completion.
    public var totalUs: Int64
    /// The URL that answered, redacted as in events (Redaction.swift).
    public var url: String
    /// One record per attempt; empty when no monitor was installed.
    public var attemptLog: [AttemptRecord]
    /// The redirects the last attempt followed, in order (URLs redacted as `url`);
    /// empty when none. Recorded whether or not a monitor is installed.
    public var history: [RedirectHop] = []
    /// The HTTP version the answer came in ("HTTP/1.1", "HTTP/2"); nil when it
    /// came from the cache without a network exchange.
    public var httpVersion: String? = nil
    /// The task id of the request this response answers (`nc_task_id`, the `id` of
    /// its events); 0 for a response no send produced.
    public var taskID: UInt64 = 0

    /// `{"attempts":N,"redirects":N,"total_us":N,"url":"…","http_version":"HTTP/2"|null,
    /// "attempt_log":[{"attempt","status","domain","code",
    /// "timings":{dns,connect,tls,first_byte,total},"bytes","http_version","tls_version"}],
    /// "history":[{"status":301,"url":"…"}],"id":N}`
    public var json: String {
        var o = JSONText()
        o.int("attempts", attempts)
        o.int("redirects", redirects)
        o.int("total_us", totalUs)
        o.string("url", url)
        o.string("http_version", httpVersion)
        o.beginArray("attempt_log")
        for r in attemptLog {
            var a = JSONText(capacity: 192)
            a.int("attempt", r.attempt)
            a.int("status", r.status)
            a.string("domain", r.domain?.name)
            a.int("code", r.code)
            a.beginObject("timings")
            r.timings.write(into: &a)
            a.endObject()
            a.int("bytes", r.timings.bytes)
            a.string("http_version", r.timings.httpVersion?.text)
            a.string("tls_version", r.timings.tlsVersion)
            o.element(a)
        }
        o.endArray()
        o.beginArray("history")
        for hop in history {
            var h = JSONText(capacity: 96)
            h.int("status", hop.status)
            h.string("url", hop.url)
            o.element(h)
        }
        o.endArray()
        o.int("id", taskID)
        return o.finished()
    }
}

/// What the transfer stores in its response at completion: plain fields (no
/// allocation), plus the attempt log only when a monitor collected one.
struct CompletionInfo {
    /// The HTTP version the answer came in (nil: none came over the network).
    var httpVersion: HTTPVersionSeen? = nil
    var attempts: Int32 = 0
    var redirects: Int32 = 0
    var elapsedNs: UInt64 = 0
    var log: [AttemptRecord]? = nil
    var redirectChain: [RedirectHop]? = nil
    /// The request's task id (a plain store: who the response answers, for a
    /// decoding failure's `NetError.request`, and the metrics' "id").
    var taskID: UInt64 = 0
    /// A stub gave the answer, not the network (Features/Stubs).
    var stubbed = false
}

/// One redirect a request followed: the 3xx status and the URL that answered it.
public struct RedirectHop: Sendable, Equatable {
    /// The redirect's 3xx status.
    public var status: Int32
    /// The URL that answered with the redirect (credentials and secret query values redacted).
    public var url: String
}
