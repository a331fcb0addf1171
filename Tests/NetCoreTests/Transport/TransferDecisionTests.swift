import CCurlShim
import Testing

@testable import NetCore
@testable import NetCoreBase

/// `Transfer.next(after:)` on made-up hop outcomes: classification, redirects,
/// failures and the policy seam, with no server, no libcurl transfer, no client
/// and no thread (the transfer's context is a `RecordingContext`).
@Suite struct TransferDecisionTests {
    static let envelope = #""envelope":{"code":"code","ok_codes":[0],"message":"msg","data":"data"}"#

    /// A transfer of `method target`, its first attempt begun, run by a context of
    /// its own: no client, no loop thread.
    func transfer(
        _ method: String = "GET", _ target: String = "/users/7", config: String = envelope,
        policy: (any TransferPolicy)? = nil, context: RecordingContext = RecordingContext()
    ) throws -> Transfer {
        let settings = ClientSettings(
            config: try Configuration.parse(json: #"{"base_url":"http://h.test/api",\#(config)}"#).get())
        let prepared = try PreparedRequest.make(try Request(method: method, target: target), settings).get()
        let t = Transfer(
            prepared: prepared, presetError: nil, context: context, policy: policy ?? settings.policy
        ) { _, _, _ in }
        _ = t.beginAttempt(now: 0)
        return t
    }

    /// A received response: body and raw header lines as the sink hands them over.
    func outcome(_ status: Int, _ body: String = "", headers: [String] = []) -> HopOutcome {
        let text = headers.map { $0 + "\r\n" }.joined()
        let buffer = NetBytes(text)
        let store =
            text.isEmpty
            ? HeaderStore()
            : HeaderStore(
                lines: UnsafeMutableRawPointer(buffer.base!).assumingMemoryBound(to: CChar.self),
                count: buffer.count, owner: buffer)
        return HopOutcome(code: CURLE_OK, status: status, received: (NetBytes(body), store))
    }

    @Test func anEnvelopeSuccessCompletesWithItsData() throws {
        let t = try transfer()
        guard case .complete(let r, let e) = t.next(after: outcome(200, #"{"code":0,"msg":"ok","data":{"id":7}}"#))
        else {
            Issue.record("expected .complete"); return
        }
        #expect(e == nil)
        #expect(r?.data?.text == #"{"id":7}"#)
    }

    @Test func aBusinessErrorCompletesAsAPIError() throws {
        let t = try transfer()
        guard case .complete(_, let e) = t.next(after: outcome(500, #"{"code":5001,"msg":"down"}"#)) else {
            Issue.record("expected .complete"); return
        }
        #expect(e?.domain == .api)
        #expect(e?.code == 5001)
        #expect(e?.httpStatus == 500)
    }

    @Test func aRedirectPreparesTheNextHop() throws {
        let t = try transfer("POST")
        let action = t.next(after: outcome(303, headers: ["Location: /other?x=1"]))
        guard case .redirect = action else { Issue.record("expected .redirect, got \(action)"); return }
        #expect(t.redirects == 1)
        #expect(t.prepared?.method == "GET")   // 303 turns a POST into a GET
        #expect(t.prepared.map { String(cString: $0.url.pointer) } == "http://h.test/other?x=1")
        #expect(t.original?.method == "POST")   // a new attempt starts from the original
        _ = t.beginAttempt(now: 0)
        #expect(t.prepared === t.original && t.redirects == 0 && t.attempt == 2)
    }

    @Test func redirectsStopAtTheLimitWith47() throws {
        let t = try transfer(config: #""limits":{"max_redirects":2}"#)
        for _ in 0..<2 {
            guard case .redirect = t.next(after: outcome(302, headers: ["Location: /again"])) else {
                Issue.record("expected .redirect"); return
            }
        }
        guard case .complete(nil, let e) = t.next(after: outcome(302, headers: ["Location: /again"])) else {
            Issue.record("expected .complete"); return
        }
        #expect(e?.domain == .transport)
        #expect(e?.code == Int64(CURLE_TOO_MANY_REDIRECTS.rawValue))
        #expect(e?.attempts == 1)
    }

    @Test func aRedirectToAnotherSchemeIsRefused() throws {
        let t = try transfer()
        guard case .complete(nil, let e) = t.next(after: outcome(301, headers: ["Location: ftp://h.test/f"])) else {
            Issue.record("expected .complete"); return
        }
        #expect(e?.code == Int64(CURLE_UNSUPPORTED_PROTOCOL.rawValue))
    }

    @Test func transportFailuresKeepLibcurlsCode() throws {
        let t = try transfer()
        guard case .complete(nil, let e) = t.next(after: HopOutcome(code: CURLE_COULDNT_CONNECT)) else {
            Issue.record("expected .complete"); return
        }
        #expect(e?.domain == .transport)
        #expect(e?.code == 7)
        #expect(e?.attempts == 1)
        #expect(e?.isRetryable == true)
    }

    @Test func aURLLibcurlRefusesMadeNoAttempt() throws {
        let t = try transfer()
        guard case .complete(nil, let e) = t.next(after: HopOutcome(code: CURLE_URL_MALFORMAT)) else {
            Issue.record("expected .complete"); return
        }
        #expect(e?.attempts == 0)
    }

    /// libcurl 7.88 answers an over-long header line and a failed allocation alike
    /// (27 inside the headers): the note of ncalloc.c tells them apart.
    @Test func libcurlOutOfMemoryIsInternalNotAHeaderLimit() throws {
        let t = try transfer()
        var o = HopOutcome(code: CURLE_OUT_OF_MEMORY)
        o.headerBlockEnded = false
        guard case .complete(nil, let tooLong) = t.next(after: o) else { Issue.record("expected .complete"); return }
        #expect(tooLong?.domain == .client)
        #expect(tooLong?.code == Int64(NetError.ClientCode.headersTooLarge.rawValue))
        o = HopOutcome(code: CURLE_OUT_OF_MEMORY)   // (consumed by next(after:))
        o.headerBlockEnded = false
        o.allocationFailed = true
        let t2 = try transfer()
        guard case .complete(nil, let oom) = t2.next(after: o) else { Issue.record("expected .complete"); return }
        #expect(oom?.domain == .client)
        #expect(oom?.code == Int64(NetError.ClientCode.internalError.rawValue))
        #expect(oom?.message.hasPrefix("Out of memory in libcurl") == true)
        // A URL libcurl could not store for want of memory was not sent.
        let t3 = try transfer()
        var u = HopOutcome(code: CURLE_URL_MALFORMAT)
        u.allocationFailed = true
        guard case .complete(nil, let url) = t3.next(after: u) else { Issue.record("expected .complete"); return }
        #expect(url?.code == Int64(NetError.ClientCode.internalError.rawValue))
        #expect(url?.attempts == 0)
    }

    /// libcurl 7.88 over HTTP/2 refuses a header block itself before the sink sees a
    /// line of it (nghttp2: more than 8 CONTINUATION frames, -905; libcurl: a block
    /// over its 128 KiB buffer, a failed callback, -902), as TRANSPORT 56: the header
    /// limits' error, not a broken connection worth retrying (Tests/fault/h2.sh).
    @Test func anHTTP2HeaderBlockLibcurlRefusesIsTooLarge() throws {
        let details = [
            "h2_process_pending_input: nghttp2_session_mem_recv() returned -905:Too many CONTINUATION frames following a HEADER frame",
            "h2_process_pending_input: nghttp2_session_mem_recv() returned -902:The user callback function failed"
        ]
        for detail in details {
            let t = try transfer()
            var o = HopOutcome(code: CURLE_RECV_ERROR)
            o.detail = detail
            o.headerBlockEnded = false
            guard case .complete(nil, let e) = t.next(after: o) else { Issue.record("expected .complete"); return }
            #expect(e?.domain == .client)
            #expect(e?.code == Int64(NetError.ClientCode.headersTooLarge.rawValue))
            #expect(e?.isRetryable == false)
            #expect(e?.attempts == 1)
            #expect(e?.message.contains(detail.hasSuffix("frame") ? "CONTINUATION" : "128 KiB") == true)
        }
        // After the header block (the body's callback failed), or another detail: a
        // broken connection, as before.
        for (detail, ended) in [(details[1], true), ("Connection reset by peer", false)] {
            let t = try transfer()
            var o = HopOutcome(code: CURLE_RECV_ERROR)
            o.detail = detail
            o.headerBlockEnded = ended
            guard case .complete(nil, let e) = t.next(after: o) else { Issue.record("expected .complete"); return }
            #expect(e?.domain == .transport)
            #expect(e?.code == 56)
            #expect(e?.isRetryable == true)
        }
    }

    /// A connection that broke with a POST sent (18, 52, 55, 56): the server may have
    /// acted on it, so the advice is not "retry the request" as for a GET (the HTTP/2
    /// fault suite resets connections after the server acted on 100 POSTs).
    @Test func aBrokenConnectionAfterAPostDoesNotSayRetry() throws {
        for code in [CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR] {
            let t = try transfer("POST")
            guard case .complete(nil, let post) = t.next(after: HopOutcome(code: code)) else {
                Issue.record("expected .complete"); return
            }
            #expect(post?.isRetryable == true)
            #expect(post?.message.contains("may have acted on it") == true, "\(code): \(post?.message ?? "")")
            #expect(post?.message.contains("retry the request") == false)
            let t2 = try transfer("GET")
            guard case .complete(nil, let get) = t2.next(after: HopOutcome(code: code)) else {
                Issue.record("expected .complete"); return
            }
            #expect(get?.message.hasSuffix("The connection broke; retry the request.") == true)
        }
    }

    /// CURLE_HTTP2 and CURLE_HTTP2_STREAM from a server that speaks HTTP/2 (a GOAWAY,
    /// a RST_STREAM): the advice names what the server did, not "2-prior-knowledge".
    @Test func http2FailuresWithoutPriorKnowledgeSayWhatTheServerDid() throws {
        for (code, word) in [(CURLE_HTTP2, "GOAWAY"), (CURLE_HTTP2_STREAM, "RST_STREAM")] {
            let t = try transfer()
            guard case .complete(nil, let e) = t.next(after: HopOutcome(code: code)) else {
                Issue.record("expected .complete"); return
            }
            #expect(e?.isRetryable == true)
            #expect(e?.message.contains(word) == true)
            #expect(e?.message.contains("2-prior-knowledge") == false)
        }
        // With "2-prior-knowledge", 16 is still the protocol mismatch (TransportErrors+Context).
        let t = try transfer(config: TransferDecisionTests.envelope + #","http_version":"2-prior-knowledge""#)
        guard case .complete(nil, let e) = t.next(after: HopOutcome(code: CURLE_HTTP2)) else {
            Issue.record("expected .complete"); return
        }
        #expect(e?.isRetryable == false)
        #expect(e?.message.contains("protocol mismatch") == true)
    }

    @Test func aHeaderBlockThatDidNotEndIsNeverASuccess() throws {
        let t = try transfer("POST")
        var o = outcome(200, headers: ["Content-Type: application/json"])
        o.headerBlockEnded = false
        guard case .complete(nil, let e) = t.next(after: o) else { Issue.record("expected .complete"); return }
        #expect(e?.domain == .transport)
        #expect(e?.code == Int64(CURLE_PARTIAL_FILE.rawValue))
        #expect(e?.attempts == 1)
        #expect(e?.message.contains("closed inside the response headers") == true)
    }

    @Test func theSinkSaysWhyItAborted() throws {
        let t = try transfer()
        var o = HopOutcome(code: CURLE_WRITE_ERROR)
        o.sinkAbort = Int32(NCSINK_HEADERS_TOO_LARGE)
        guard case .complete(nil, let e) = t.next(after: o) else { Issue.record("expected .complete"); return }
        #expect(e?.domain == .client)
        #expect(e?.code == NetError.ClientCode.headersTooLarge.rawValue)
    }

    /// A policy that answers with a fixed action and records what it was asked.
    final class FixedPolicy: TransferPolicy, @unchecked Sendable {
        let action: TransferAction
        var asked: [(Int32, Int32?, Int64?)] = []
        init(_ action: TransferAction) { self.action = action }
        func next(after transfer: Transfer, response: Response?, error: NetError?) -> TransferAction {
            asked.append((transfer.attempt, response?.status, error?.code))
            return action
        }
    }

    @Test func thePolicyDecidesAfterAnAttemptButNotAfterAHop() throws {
        let policy = FixedPolicy(.relaunchAfter(ms: 250, reason: "503"))
        let t = try transfer(policy: policy)
        guard case .redirect = t.next(after: outcome(307, headers: ["Location: /b"])) else {
            Issue.record("expected .redirect"); return
        }
        #expect(policy.asked.isEmpty)
        guard case .relaunchAfter(250, "503") = t.next(after: outcome(503, "busy")) else {
            Issue.record("expected .relaunchAfter"); return
        }
        #expect(policy.asked.count == 1)
        #expect(policy.asked.first?.1 == 503)
    }

    final class FailuresOnlyPolicy: TransferPolicy, @unchecked Sendable {
        var asked = 0
        var decidesOnSuccess: Bool { false }
        func next(after transfer: Transfer, response: Response?, error: NetError?) -> TransferAction {
            asked += 1
            return .relaunchAfter(ms: 1, reason: "failed")
        }
    }

    @Test func aPolicyOfFailuresIsNotAskedAboutASuccess() throws {
        let policy = FailuresOnlyPolicy()
        let t = try transfer(policy: policy)
        guard case .complete(_, nil) = t.next(after: outcome(200, #"{"code":0,"data":1}"#)) else {
            Issue.record("expected the success"); return
        }
        #expect(policy.asked == 0)
        guard case .relaunchAfter(1, "failed") = t.next(after: outcome(503, "busy")) else {
            Issue.record("expected .relaunchAfter"); return
        }
        #expect(policy.asked == 1)
    }

    @Test func aPolicyCannotAnswerRedirect() throws {
        let t = try transfer(policy: FixedPolicy(.redirect))
        guard case .complete(_, let e) = t.next(after: outcome(200, #"{"code":0,"data":1}"#)) else {
            Issue.record("expected .complete"); return
        }
        #expect(e == nil)
    }

    @Test func errorsOfLaterAttemptsCountEveryAttempt() throws {
        let t = try transfer()
        _ = t.beginAttempt(now: 0)
        _ = t.beginAttempt(now: 0)   // the third attempt
        guard case .complete(nil, let e) = t.next(after: HopOutcome(code: CURLE_RECV_ERROR)) else {
            Issue.record("expected .complete"); return
        }
        #expect(e?.attempts == 3)
        guard case .complete(_, let h) = t.next(after: outcome(404, "nope")) else {
            Issue.record("expected .complete"); return
        }
        #expect(h?.domain == .http)
        #expect(h?.attempts == 3)
    }

    @Test func theTotalTimeoutIsSharedByTheHopsOfAnAttempt() throws {
        let t = try transfer(config: #""timeout_ms":2000"#)
        let p = try #require(t.prepared)
        _ = t.beginAttempt(now: 1_000_000_000)
        #expect(t.remainingTimeoutMs(p, now: 1_000_000_000) == 2000)
        #expect(t.remainingTimeoutMs(p, now: 2_500_000_000) == 500)
        #expect(t.remainingTimeoutMs(p, now: 3_000_000_000) == 0)
        #expect(t.remainingTimeoutMs(p, now: 9_000_000_000) == 0)
        let none = try transfer(config: #""timeout_ms":0"#)
        #expect(none.remainingTimeoutMs(try #require(none.prepared), now: .max) == nil)
    }

    /// A failed connection through a proxy is the proxy's: the advice reads the
    /// proxies from the transfer's context (the client's environment).
    @Test func theAdviceNamesTheProxyOfTheContext() throws {
        let proxied = try transfer(context: RecordingContext(proxies: ["http_proxy": "http://proxy.test:3128"]))
        var o = HopOutcome(code: CURLE_COULDNT_CONNECT)
        o.detail = "Failed to connect to proxy.test port 3128 after 0 ms: Connection refused"
        guard case .complete(nil, let e) = proxied.next(after: o) else {
            Issue.record("expected .complete"); return
        }
        #expect(
            e?.message.contains("The connection to the proxy proxy.test:3128 failed") == true, "\(e?.message ?? "")")
        let direct = try transfer()
        var od = HopOutcome(code: CURLE_COULDNT_CONNECT)
        od.detail = "Failed to connect to proxy.test port 3128 after 0 ms: Connection refused"
        guard case .complete(nil, let d) = direct.next(after: od) else {
            Issue.record("expected .complete"); return
        }
        #expect(d?.message.contains("The connection to the proxy") == false, "\(d?.message ?? "")")
    }

    /// A task handle's calls reach the loop through the context, and nothing else
    /// does: a decision asks nothing of the loop.
    @Test func whatATransferAsksOfItsLoopGoesToItsContext() throws {
        let context = RecordingContext()
        let t = try transfer(context: context)
        _ = t.next(after: outcome(200, #"{"code":0,"data":1}"#))
        #expect(context.calls.isEmpty)
        t.cancel()
        #expect(t.resumeBody() == false)
        #expect(context.calls == ["cancel", "resumeBody"])
    }

    final class ScopeProbe: AttemptPreparer, @unchecked Sendable {
        let owner: AnyObject
        var insideCallback: [Bool] = []
        init(_ owner: AnyObject) { self.owner = owner }
        func prepare(_ original: PreparedRequest, attempt: Int32) -> Result<PreparedRequest, NetError> {
            insideCallback.append(CallbackScope.isInside(owner))
            return .success(original)
        }
    }

    /// A preparer is the user's code: off the driving thread (a synchronous send's
    /// own thread) it runs marked as a callback of the context, so the library
    /// refuses what would deadlock there; on the loop thread it is marked already.
    @Test func aPreparerOffTheDrivingThreadRunsAsACallback() throws {
        for onLoop in [false, true] {
            let context = RecordingContext(onLoopThread: onLoop)
            let probe = ScopeProbe(context)
            let settings = ClientSettings(
                config: try Configuration.parse(json: #"{"base_url":"http://h.test/api"}"#).get())
            let t = Transfer(
                prepared: try PreparedRequest.make(try Request(method: "GET", target: "/a"), settings).get(),
                presetError: nil, context: context, preparer: probe
            ) { _, _, _ in }
            #expect(t.beginAttempt(now: 0) == nil)
            #expect(probe.insideCallback == [!onLoop])
        }
    }
}
