// Hooks through the header: request flags, the error handler, the auth-expired
// handler, events, logging, task ids, response metrics, and re-entering the
// library from inside every hook.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Records what hooks receive: an ordered trace shared with completions, the
/// threads, event and log texts, and what re-entrant calls returned.
final class HookRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _trace: [String] = []
    private var _threads: [String: [pthread_t]] = [:]
    private var _texts: [String] = []
    private var _errors: [ErrorInfo] = []
    var reenter: ((HookRecorder) -> Void)?
    private var _reentered = false
    var reentryResults: [String: nc_status] = [:]
    var client: OpaquePointer?
    /// Collectors of requests sent from inside a hook, kept until the test ends.
    private var kept: [Collector] = []
    func keep(_ c: Collector) { lock.withLock { kept.append(c) } }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    func note(_ what: String, error: OpaquePointer? = nil, text: String? = nil) {
        let runReentry: Bool = lock.withLock {
            _trace.append(what)
            _threads[what, default: []].append(pthread_self())
            if let error { _errors.append(ErrorInfo(error)) }
            if let text { _texts.append(text) }
            if reenter != nil && !_reentered { _reentered = true; return true }
            return false
        }
        if runReentry { reenter?(self) }
    }

    var trace: [String] { lock.withLock { _trace } }
    var texts: [String] { lock.withLock { _texts } }
    var errors: [ErrorInfo] { lock.withLock { _errors } }
    func threads(_ what: String) -> [pthread_t] { lock.withLock { _threads[what] ?? [] } }
    func count(_ what: String) -> Int { trace.filter { $0 == what }.count }
    var reentered: Bool { lock.withLock { _reentered } }
    func record(_ name: String, _ rc: nc_status) { lock.withLock { reentryResults[name] = rc } }
    var results: [String: nc_status] { lock.withLock { reentryResults } }
}

private func recorder(_ p: UnsafeMutableRawPointer?) -> HookRecorder? {
    p.map { Unmanaged<HookRecorder>.fromOpaque($0).takeUnretainedValue() }
}

private let errorHookFn: nc_complete_fn = { _, error, ud in recorder(ud)?.note("error", error: error) }
private let authHookFn: nc_complete_fn = { _, error, ud in recorder(ud)?.note("auth", error: error) }
private let eventHookFn: nc_event_fn = { text, len, ud in
    let s = text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: len), as: UTF8.self) }
    recorder(ud)?.note("event", text: s)
}
private let logHookFn: nc_event_fn = { text, len, ud in
    let s = text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: len), as: UTF8.self) }
    recorder(ud)?.note("log", text: s)
}

private let adapterHookFn: nc_adapter_fn = { _, ud in
    recorder(ud)?.note("adapter")
    return NC_OK
}

/// Cancels its own request from inside one of that request's hooks, once: the
/// first event of kind `trigger`, or its first adapter call (`trigger` "adapter").
final class OwnCancel: @unchecked Sendable {
    enum How { case task, group(String), all }
    private let lock = NSLock()
    private var _task: OpaquePointer?
    private var fired = false
    private var _counted = -1
    let trigger: String
    let how: How
    var client: OpaquePointer?
    init(on trigger: String, how: How) { (self.trigger, self.how) = (trigger, how) }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    /// The sending thread hands over the task once nc_client_send has returned.
    func set(_ task: OpaquePointer?) { lock.withLock { _task = task } }
    /// What nc_client_cancel_group / _cancel_all returned inside the hook (-1: not called).
    var counted: Int { lock.withLock { _counted } }

    /// True the first time only.
    private func claim() -> Bool {
        lock.withLock {
            if fired { return false }
            fired = true
            return true
        }
    }

    fileprivate func hook(_ kind: String) {
        guard kind == trigger, claim() else { return }
        switch how {
        case .task:
            // The hook may run before nc_client_send has returned the task.
            guard waitUntil(timeout: 10, { lock.withLock { _task != nil } }) else { return }
            nc_task_cancel(lock.withLock { _task })
        case .group(let name):
            var n = 0
            if nc_client_cancel_group(client, name, &n) == NC_OK { lock.withLock { _counted = n } }
        case .all:
            var n = 0
            if nc_client_cancel_all(client, &n) == NC_OK { lock.withLock { _counted = n } }
        }
    }
}

private func ownCancel(_ p: UnsafeMutableRawPointer?) -> OwnCancel? {
    p.map { Unmanaged<OwnCancel>.fromOpaque($0).takeUnretainedValue() }
}
private let ownCancelEventFn: nc_event_fn = { text, len, ud in
    guard let text else { return }
    let json = foundationJSON(String(decoding: UnsafeRawBufferPointer(start: text, count: len), as: UTF8.self))
    if let kind = (json as? [String: Any])?["event"] as? String { ownCancel(ud)?.hook(kind) }
}
private let ownCancelAdapterFn: nc_adapter_fn = { _, ud in
    ownCancel(ud)?.hook("adapter")
    return NC_OK
}

/// A completion collector that also notes "complete" in the recorder's trace.
private func completing(_ rec: HookRecorder) -> Collector { Collector { _, _ in rec.note("complete") } }

/// Tries every call a hook may make and records what each returned.
private func reenterEverything(_ rec: HookRecorder) {
    guard let c = rec.client else { return }
    let follow = Collector()
    var r: OpaquePointer?
    _ = nc_request_new("GET", "/env/code/ok", &r)
    rec.keep(follow)   // alive until its completion (collectFn borrows it)
    rec.record("send", nc_client_send(c, r, collectFn, Unmanaged.passUnretained(follow).toOpaque(), nil))
    var resp: OpaquePointer?, err: OpaquePointer?
    rec.record("send_sync", nc_client_send_sync(c, r, &resp, &err))
    nc_response_free(resp)
    nc_error_free(err)
    nc_request_free(r)
    rec.record("set_header", nc_client_set_header(c, "X-From-Hook", "1"))
    rec.record("set_environment", nc_client_set_environment(c, "dev"))
    rec.record("set_log_handler", nc_client_set_log_handler(c, NC_LOG_INFO, logHookFn, rec.userdata))
    nc_client_free(c)   // refused: returns without freeing
}

private var hookConfig: String {
    config(
        envelope: Envelope.a, #""environments":{"dev":"\#(MockServer.shared.baseURL)"}"#,
        #""credential_headers":["X-API-Key"]"#)
}

@Suite struct HooksTests {
    // MARK: flags

    @Test func flagsAcceptTheDefinedBitsOnly() throws {
        let r = try Request("GET", "/env/code/ok")
        #expect(nc_request_set_flags(r.handle, 0) == NC_OK)
        #expect(
            nc_request_set_flags(
                r.handle,
                UInt32(
                    NC_REQUEST_SKIP_ERROR_HANDLER | NC_REQUEST_NO_COALESCE
                        | NC_REQUEST_NO_RETRY | NC_REQUEST_IDEMPOTENT | NC_REQUEST_SKIP_AUTH)) == NC_OK)
        #expect(nc_request_set_flags(r.handle, 32) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_flags(r.handle, 0x8000_0000) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_flags(nil, 1) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_error_handler(nil, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_auth_expired_handler(nil, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_event_handler(nil, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_log_handler(nil, NC_LOG_INFO, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        let client = try TestClient(hookConfig)
        #expect(nc_client_set_log_handler(client.handle, 6, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_log_handler(client.handle, -1, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_log_handler(client.handle, NC_LOG_OFF, nil, nil) == NC_OK)
        #expect(nc_task_id(nil) == 0)
        #expect(nc_response_metrics_json(nil) == nil)
        client.free()
    }

    // MARK: error handler

    @Test func errorHandlerRunsOnceJustBeforeTheCompletionOnItsThread() throws {
        let client = try TestClient(hookConfig)
        let rec = HookRecorder()
        #expect(nc_client_set_error_handler(client.handle, errorHookFn, rec.userdata) == NC_OK)
        let c = Collector { _, _ in rec.note("complete") }
        client.send(try Request("GET", "/env/code/fail"), c, task: false)
        #expect(c.wait())
        // A later request completes after: a second call would have come by then.
        _ = client.sendAndWait(try Request("GET", "/env/code/ok"))
        #expect(rec.trace == ["error", "complete"])
        #expect(rec.threads("error") == c.threads)
        #expect(rec.errors.first?.domain == NC_DOMAIN_API && rec.errors.first?.code == 1001)
        #expect(c.outcome?.error?.code == 1001)   // the request still completes with its error
        client.free()
    }

    @Test func errorHandlerSkipsSuccessFlaggedAndCancelledRequests() throws {
        let client = try TestClient(hookConfig)
        let rec = HookRecorder()
        nc_client_set_error_handler(client.handle, errorHookFn, rec.userdata)
        _ = client.sendAndWait(try Request("GET", "/env/code/ok"))
        let flagged = try Request("GET", "/env/code/fail")
        #expect(nc_request_set_flags(flagged.handle, UInt32(NC_REQUEST_SKIP_ERROR_HANDLER)) == NC_OK)
        #expect(client.sendAndWait(flagged).outcome?.error?.code == 1001)
        let slow = Collector()
        let (rc, task) = client.send(try Request("GET", "/slow?ms=5000"), slow)
        #expect(rc == NC_OK)
        nc_task_cancel(task)
        nc_task_free(task)
        #expect(slow.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
        #expect(rec.count("error") == 0)
        // Removed: later failures are not reported.
        nc_client_set_error_handler(client.handle, errorHookFn, rec.userdata)
        _ = client.sendAndWait(try Request("GET", "/env/code/fail"))
        #expect(rec.count("error") == 1)
        nc_client_set_error_handler(client.handle, nil, nil)
        _ = client.sendAndWait(try Request("GET", "/env/code/fail"))
        #expect(rec.count("error") == 1)
        client.free()
    }

    @Test func errorHandlerRunsOnTheCallersThreadForSendSync() throws {
        let client = try TestClient(hookConfig)
        let rec = HookRecorder()
        nc_client_set_error_handler(client.handle, errorHookFn, rec.userdata)
        let out = try client.sync("/status/500")
        #expect(out.rc == NC_ERR_FAILED)
        #expect(rec.count("error") == 1)
        #expect(rec.threads("error").first.map { pthread_equal($0, pthread_self()) != 0 } == true)
        #expect(rec.errors.first?.domain == NC_DOMAIN_HTTP)
        client.free()
    }

    @Test func errorHandlerRunsInsideDispatchInQueueMode() throws {
        let client = try TestClient(config(envelope: Envelope.a, #""callbacks":"queue""#))
        let rec = HookRecorder()
        nc_client_set_error_handler(client.handle, errorHookFn, rec.userdata)
        let c = Collector { _, _ in rec.note("complete") }
        client.send(try Request("GET", "/env/code/fail"), c, task: false)
        var p = pollfd(fd: nc_client_fd(client.handle), events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 10_000) == 1)
        #expect(rec.count("error") == 0)   // not before dispatch
        #expect(nc_client_dispatch(client.handle) == NC_OK)
        #expect(rec.trace == ["error", "complete"])
        #expect(rec.threads("error").first.map { pthread_equal($0, pthread_self()) != 0 } == true)
        client.free()
    }

    @Test func eventAndLogHandlersRunInsideDispatchInQueueMode() throws {
        let client = try TestClient(config(envelope: Envelope.a, #""callbacks":"queue""#))
        let rec = HookRecorder()
        nc_client_set_event_handler(client.handle, eventHookFn, rec.userdata)
        nc_client_set_log_handler(client.handle, NC_LOG_INFO, logHookFn, rec.userdata)
        let c = Collector { _, _ in rec.note("complete") }
        client.send(try Request("GET", "/env/code/ok"), c, task: false)
        var p = pollfd(fd: nc_client_fd(client.handle), events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 10_000) == 1)
        // Wait until the completion is queued too (the events come first).
        var spins = 0
        while c.calls == 0 && spins < 1000 {
            #expect(nc_client_dispatch(client.handle) == NC_OK)
            if c.calls == 0 { usleep(2000) }
            spins += 1
        }
        // Every hook ran on this thread, inside dispatch, in order, before the completion.
        #expect(rec.trace == ["event", "event", "event", "log", "complete"])
        for what in ["event", "log", "complete"] {
            #expect(rec.threads(what).allSatisfy { pthread_equal($0, pthread_self()) != 0 }, "\(what)")
        }
        #expect(rec.texts.first?.contains(#""event":"request_start""#) == true)
        client.free()
    }

    // MARK: auth expired

    @Test func authExpiredFiresOncePerExpiryAndReArmsOnAuthorizationChange() throws {
        let client = try TestClient(hookConfig)
        let rec = HookRecorder()
        nc_client_set_auth_expired_handler(client.handle, authHookFn, rec.userdata)
        nc_client_set_error_handler(client.handle, errorHookFn, rec.userdata)
        // 20 transfers of their own (not one coalesced transfer), as the server counts.
        func burst() throws -> [Collector] {
            let collectors = (0..<20).map { _ in Collector() }
            let key = uniqueKey()
            let r = try Request("GET", "/profile?key=\(key)")
            #expect(nc_request_set_flags(r.handle, UInt32(NC_REQUEST_NO_COALESCE)) == NC_OK)
            for c in collectors { client.send(r, c, task: false) }
            for c in collectors { #expect(c.wait()) }
            #expect(hits(key) == 20)
            return collectors
        }
        let first = try burst()
        #expect(first.allSatisfy { $0.outcome?.error?.code == 401001 && $0.calls == 1 })
        #expect(rec.count("auth") == 1)
        #expect(rec.count("error") == 20)   // each still reaches the error handler
        #expect(rec.errors.contains { $0.code == 401001 })
        // Same credentials: no new report.
        _ = try burst()
        #expect(rec.count("auth") == 1)
        // A new Authorization re-arms it (this one is still refused by the server).
        #expect(nc_client_set_header(client.handle, "Authorization", "Bearer expired-too") == NC_OK)
        _ = try burst()
        #expect(rec.count("auth") == 2)
        // HTTP 401 counts too, once the credentials change again.
        nc_client_set_header(client.handle, "authorization", nil)
        #expect(client.sendAndWait(try Request("GET", "/status/401")).outcome?.error?.httpStatus == 401)
        #expect(rec.count("auth") == 3)
        // A valid token: no expiry.
        nc_client_set_header(client.handle, "Authorization", "Bearer tok-ada")
        #expect(client.sendAndWait(try Request("GET", "/profile")).outcome?.error == nil)
        #expect(rec.count("auth") == 3)
        client.free()
    }

    // MARK: events and logs

    @Test func eventsAndLogLinesCarryNoSecrets() throws {
        let client = try TestClient(hookConfig)
        let rec = HookRecorder()
        #expect(nc_client_set_header(client.handle, "Authorization", "Bearer SECRET-TOKEN") == NC_OK)
        #expect(nc_client_set_event_handler(client.handle, eventHookFn, rec.userdata) == NC_OK)
        #expect(nc_client_set_log_handler(client.handle, NC_LOG_TRACE, logHookFn, rec.userdata) == NC_OK)
        let port = MockServer.shared.port
        let r = try Request("GET", "http://user:SECRET-PW@127.0.0.1:\(port)/echo?page=2&token=SECRET-Q#SECRET-F")
        r.header("X-API-Key", "SECRET-KEY")
        r.header("Cookie", "sid=SECRET-COOKIE")
        r.query("api_key", "SECRET-QK")
        r.query("q", "books")
        let c = Collector()
        let (rc, task) = client.send(r, c)
        #expect(rc == NC_OK)
        #expect(c.wait())
        let id = nc_task_id(task)
        nc_task_free(task)
        // A failure too: its message names the URL.
        let bad = try Request("GET", "http://127.0.0.1:\(refusingPort().port)/x?password=SECRET-P")
        _ = client.sendAndWait(bad)
        _ = client.sendAndWait(try Request("GET", "/env/code/ok"))
        let texts = rec.texts
        #expect(!texts.isEmpty)
        for t in texts { #expect(!t.contains("SECRET"), "leaked: \(t)") }

        let events = rec.trace.indices.filter { rec.trace[$0] == "event" }.count
        #expect(events >= 9)
        let objects = texts.compactMap { foundationJSON($0) as? [String: Any] }
        let mine = objects.filter { ($0["id"] as? NSNumber)?.uint64Value == id }
        #expect(mine.map { $0["event"] as? String } == ["request_start", "attempt_end", "request_end"])
        let keys: Set<String> = [
            "event", "id", "method", "url", "endpoint", "label", "attempt", "status", "domain", "code",
            "delay_ms", "reason", "timings", "bytes", "from_cache", "not_modified", "cache", "elapsed_us", "stubbed"
        ]
        for e in mine { #expect(Set(e.keys) == keys) }
        let end = try #require(mine.last)
        #expect(end["status"] as? Int == 200 && end["method"] as? String == "GET")
        let url = try #require(end["url"] as? String)
        #expect(url.hasPrefix("http://127.0.0.1:\(port)/echo?"))
        #expect(
            url.contains("page=2") && url.contains("token=REDACTED") && url.contains("api_key=REDACTED")
                && url.contains("q=books"))
        let timings = try #require(mine[1]["timings"] as? [String: Any])
        #expect(Set(timings.keys) == ["dns", "connect", "tls", "first_byte", "total"])
        #expect((timings["total"] as? Int ?? 0) > 0)

        let lines = texts.filter { !$0.hasPrefix("{") }
        #expect(
            lines.contains {
                $0.hasPrefix("INFO GET http://127.0.0.1:\(port)/echo?") && $0.contains(" => 200 (")
                    && $0.hasSuffix(" ms)")
            })
        #expect(
            lines.contains {
                $0.hasPrefix("WARN GET http://127.0.0.1:") && $0.contains("=> NCTransportErrorDomain 7: ")
            })
        #expect(lines.contains { $0.hasPrefix("DEBUG ") && $0.contains("first byte") })
        client.free()
    }

    @Test func logLevelFiltersLinesAndBothHandlersReceive() throws {
        let client = try TestClient(hookConfig)
        let events = HookRecorder(), logs = HookRecorder()
        nc_client_set_event_handler(client.handle, eventHookFn, events.userdata)
        nc_client_set_log_handler(client.handle, NC_LOG_INFO, logHookFn, logs.userdata)
        _ = client.sendAndWait(try Request("GET", "/env/code/ok"))
        _ = client.sendAndWait(try Request("GET", "/env/code/ok"))
        #expect(events.count("event") == 6)
        #expect(logs.texts.count == 2)
        #expect(logs.texts.allSatisfy { $0.hasPrefix("INFO GET ") && $0.contains("/env/code/ok => 200 (") })
        // Removing one leaves the other.
        nc_client_set_event_handler(client.handle, nil, nil)
        _ = client.sendAndWait(try Request("GET", "/env/code/ok"))
        #expect(events.count("event") == 6)
        #expect(logs.texts.count == 3)
        nc_client_set_log_handler(client.handle, NC_LOG_OFF, nil, nil)
        _ = client.sendAndWait(try Request("GET", "/env/code/ok"))
        #expect(logs.texts.count == 3)
        client.free()
    }

    // MARK: metrics

    @Test func metricsTellAttemptsRedirectsAndTheAttemptLog() throws {
        let client = try TestClient(hookConfig)
        let plain = try client.sync("/redirect?to=/env/code/ok&token=SECRET-R")
        _ = plain
        var resp: OpaquePointer?, err: OpaquePointer?
        let r = try Request("GET", "/redirect?to=/env/code/ok")
        #expect(nc_client_send_sync(client.handle, r.handle, &resp, &err) == NC_OK)
        let m1 = try #require(foundationJSON(string(nc_response_metrics_json(resp))) as? [String: Any])
        #expect(nc_response_metrics_json(resp) == nc_response_metrics_json(resp))   // made once, borrowed
        nc_response_free(resp)
        #expect(m1["attempts"] as? Int == 1 && m1["redirects"] as? Int == 1)
        #expect((m1["url"] as? String)?.hasSuffix("/env/code/ok") == true)
        #expect((m1["attempt_log"] as? [Any])?.isEmpty == true)   // no hook: no timings read
        #expect(m1["total_us"] is Int)
        // The redirect followed, with its status and the URL that answered it.
        let h1 = try #require(m1["history"] as? [[String: Any]])
        #expect(h1.count == 1 && h1[0]["status"] as? Int == 302)
        #expect((h1[0]["url"] as? String)?.contains("/redirect?to=/env/code/ok") == true)

        // A chain of three: in order, statuses and URLs; none: [].
        var chainResp: OpaquePointer?
        let chain = try Request("GET", "/redirect/chain?n=3")
        #expect(nc_client_send_sync(client.handle, chain.handle, &chainResp, &err) != NC_ERR_INVALID_ARGUMENT)
        let m3 = try #require(foundationJSON(string(nc_response_metrics_json(chainResp))) as? [String: Any])
        nc_response_free(chainResp)
        nc_error_free(err)
        err = nil
        let h3 = try #require(m3["history"] as? [[String: Any]])
        #expect(h3.map { $0["status"] as? Int } == [302, 302, 302])
        #expect((h3.first?["url"] as? String)?.hasSuffix("/redirect/chain?n=3") == true)
        #expect((h3.last?["url"] as? String)?.hasSuffix("/redirect/chain?n=1") == true)
        #expect(m3["redirects"] as? Int == 3)
        var directResp: OpaquePointer?
        let direct = try Request("GET", "/env/code/ok")
        #expect(nc_client_send_sync(client.handle, direct.handle, &directResp, &err) == NC_OK)
        let m4 = try #require(foundationJSON(string(nc_response_metrics_json(directResp))) as? [String: Any])
        nc_response_free(directResp)
        #expect((m4["history"] as? [Any])?.isEmpty == true)

        let rec = HookRecorder()
        nc_client_set_event_handler(client.handle, eventHookFn, rec.userdata)
        let c = Collector { response, _ in
            rec.note("metrics", text: string(nc_response_metrics_json(response)))
        }
        client.send(r, c, task: false)
        #expect(c.wait())
        let text = try #require(rec.texts.last { $0.contains("attempt_log") })
        let m2 = try #require(foundationJSON(text) as? [String: Any])
        let log = try #require(m2["attempt_log"] as? [[String: Any]])
        #expect(log.count == 1 && log[0]["status"] as? Int == 200 && log[0]["attempt"] as? Int == 1)
        #expect((log[0]["timings"] as? [String: Any])?["total"] != nil)
        client.free()
    }

    // MARK: re-entrancy

    /// Installs one hook with `reenterEverything` and checks what each call returned.
    private func checkReentry(
        _ install: (OpaquePointer, HookRecorder) -> Void, path: String,
        sync: Bool = false
    ) throws {
        let client = try TestClient(hookConfig)
        let rec = HookRecorder()
        rec.client = client.handle
        rec.reenter = reenterEverything
        install(client.handle, rec)
        if sync {
            _ = try client.sync(path)
        } else {
            _ = client.sendAndWait(try Request("GET", path))
        }
        #expect(rec.reentered)
        let results = rec.results
        #expect(results["send"] == NC_OK)
        #expect(results["send_sync"] == NC_ERR_INVALID_STATE)
        #expect(results["set_header"] == NC_OK)
        #expect(results["set_environment"] == NC_OK)
        #expect(results["set_log_handler"] == NC_OK)
        // nc_client_free was refused: the client still works.
        #expect(client.sendAndWait(try Request("GET", "/env/code/ok")).outcome?.error == nil)
        client.free()
    }

    @Test func errorHandlerMayReenterTheLibrary() throws {
        try checkReentry({ nc_client_set_error_handler($0, errorHookFn, $1.userdata) }, path: "/env/code/fail")
        try checkReentry(
            { nc_client_set_error_handler($0, errorHookFn, $1.userdata) }, path: "/env/code/fail", sync: true)
    }

    @Test func authExpiredHandlerMayReenterTheLibrary() throws {
        try checkReentry({ nc_client_set_auth_expired_handler($0, authHookFn, $1.userdata) }, path: "/profile")
        try checkReentry(
            { nc_client_set_auth_expired_handler($0, authHookFn, $1.userdata) }, path: "/profile", sync: true)
    }

    @Test func eventHandlerMayReenterTheLibrary() throws {
        try checkReentry({ nc_client_set_event_handler($0, eventHookFn, $1.userdata) }, path: "/env/code/ok")
        try checkReentry(
            { nc_client_set_event_handler($0, eventHookFn, $1.userdata) }, path: "/env/code/ok", sync: true)
    }

    @Test func logHandlerMayReenterTheLibrary() throws {
        try checkReentry({ nc_client_set_log_handler($0, NC_LOG_DEBUG, logHookFn, $1.userdata) }, path: "/env/code/ok")
        try checkReentry(
            { nc_client_set_log_handler($0, NC_LOG_DEBUG, logHookFn, $1.userdata) }, path: "/env/code/ok", sync: true)
    }

    @Test func adapterMayReenterTheLibrary() throws {
        try checkReentry({ nc_client_add_adapter($0, adapterHookFn, $1.userdata) }, path: "/env/code/ok")
        // On nc_client_send_sync's own thread too: nc_client_free is refused there,
        // not left waiting for the send it is inside.
        try checkReentry({ nc_client_add_adapter($0, adapterHookFn, $1.userdata) }, path: "/env/code/ok", sync: true)
    }

    /// Sends GET /env/code/ok?key=… (in `group`) with `hook` installed and returns
    /// its single outcome and how many requests with its key reached the server.
    private func sendCancellingItself(
        _ hook: OwnCancel, config json: String = hookConfig, path: String = "/env/code/ok", group: String? = nil
    ) throws -> (Outcome?, Int, Int) {
        let client = try TestClient(json)
        hook.client = client.handle
        if hook.trigger == "adapter" {
            #expect(nc_client_add_adapter(client.handle, ownCancelAdapterFn, hook.userdata) == NC_OK)
        } else {
            #expect(nc_client_set_event_handler(client.handle, ownCancelEventFn, hook.userdata) == NC_OK)
        }
        let key = uniqueKey()
        let request = try Request("GET", path + (path.contains("?") ? "&" : "?") + "key=\(key)")
        if let group { #expect(nc_request_set_group(request.handle, group) == NC_OK) }
        let c = Collector()
        let (rc, task) = client.send(request, c)
        #expect(rc == NC_OK)
        hook.set(task)
        #expect(c.wait())
        let sent = hits(key)
        nc_task_free(task)
        client.free()
        return (c.outcome, c.calls, sent)
    }

    @Test(arguments: ["request_start", "adapter"])
    func aRequestCancelledFromItsOwnHookIsNotSent(trigger: String) throws {
        let (outcome, calls, sent) = try sendCancellingItself(OwnCancel(on: trigger, how: .task))
        #expect(calls == 1)
        #expect(outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
        #expect(outcome?.error?.attempts == 0)
        #expect(sent == 0)
    }

    @Test func aGroupCancelledFromAnAdapterCountsAndCancelsItsOwnRequest() throws {
        let group = "own-\(uniqueKey())"
        let hook = OwnCancel(on: "adapter", how: .group(group))
        let (outcome, calls, sent) = try sendCancellingItself(hook, group: group)
        #expect(hook.counted == 1)
        #expect(calls == 1 && outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
        #expect(sent == 0)
    }

    /// A cancel from the retry event, or from the attempt_end event before the retry
    /// is decided: no further attempt, CANCELLED with the one attempt made.
    @Test(arguments: ["retry", "attempt_end"])
    func aRetryCancelledFromTheRequestsOwnEventIsNotSent(trigger: String) throws {
        let json = config(#""retry":\#(quickRetry)"#)
        for how in [OwnCancel.How.task, .all] {
            let hook = OwnCancel(on: trigger, how: how)
            let (outcome, calls, sent) = try sendCancellingItself(
                hook, config: json, path: "/flaky?fails=3&status=503")
            #expect(calls == 1)
            #expect(outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
            #expect(outcome?.error?.attempts == 1)
            #expect(sent == 1)
            if case .all = how { #expect(hook.counted == 1) }
        }
    }

    @Test func aHookMayCancelAnotherRequest() throws {
        let client = try TestClient(hookConfig)
        let slow = Collector()
        let (_, task) = client.send(try Request("GET", "/slow?ms=5000"), slow)
        let holder = Box<OpaquePointer?>(task)
        let rec = HookRecorder()
        rec.reenter = { _ in nc_task_cancel(holder.value) }
        nc_client_set_error_handler(client.handle, errorHookFn, rec.userdata)
        _ = client.sendAndWait(try Request("GET", "/env/code/fail"))
        #expect(slow.wait())
        #expect(slow.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true)
        nc_task_free(task)
        client.free()
    }
}
