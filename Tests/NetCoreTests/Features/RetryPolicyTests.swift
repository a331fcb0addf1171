import CCurlShim
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The retry decision on its own: pure, no server (RetryPolicy.swift, Backoff.swift,
/// RetryAfter.swift, RetryPolicy+JSON.swift).
@Suite struct RetryPolicyTests {
    func http(_ status: Int64) -> NetError { NetError(domain: .http, code: status, message: "HTTP \(status)") }
    /// A transport error as TransportErrors makes one: retryable as its code is.
    func transport(_ code: CURLcode) -> NetError {
        var e = NetError(domain: .transport, code: Int64(code.rawValue), message: "transport")
        e.isRetryable = TransportErrors.retryable.contains(code.rawValue)
        return e
    }
    func attempt(
        _ n: Int32, _ error: NetError, method: String = "GET", optedIn: Bool = false,
        retryAfter: String? = nil, now: Int64 = 1_700_000_000, random: Double = 1
    ) -> RetryPolicy.Attempt {
        RetryPolicy.Attempt(
            number: n, method: method, optedIn: optedIn, error: error, retryAfter: retryAfter,
            nowSeconds: now, random: random)
    }
    /// No jitter: waits are exact.
    var plain: RetryPolicy {
        var p = RetryPolicy()
        p.jitter = false
        return p
    }

    @Test func theDefaultsAreTheDocumentedOnes() {
        let p = RetryPolicy()
        #expect(p.maxAttempts == 3)
        #expect(p.backoff == .exponential)
        #expect(p.initialMs == 200 && p.multiplier == 2.0 && p.maxDelayMs == 5000)
        #expect(p.jitter && p.respectRetryAfter)
        #expect(p.statuses == [408, 429, 500, 502, 503, 504])
        #expect(p.methods == ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"])
        #expect(RetryPolicy.defaultStatuses.allSatisfy { !$0.reason.isEmpty })
        #expect(RetryPolicy.retriedTransportErrors.allSatisfy { !$0.reason.isEmpty })
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504] as [Int64])
    func retriedStatuses(_ status: Int64) {
        #expect(plain.decide(attempt(1, http(status))) == .retry(afterMs: 200, reason: "HTTP \(status)"))
    }

    @Test(arguments: [400, 401, 403, 404, 409, 422, 501, 505] as [Int64])
    func otherStatusesStop(_ status: Int64) {
        guard case .stop(let why) = plain.decide(attempt(1, http(status))) else {
            Issue.record("HTTP \(status) was retried")
            return
        }
        #expect(why.contains("NCHTTPErrorDomain \(status) is not retried"))
    }

    @Test(arguments: [
        CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING,
        CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_SEND_FAIL_REWIND, CURLE_SSL_CONNECT_ERROR
    ])
    func retriedTransportErrors(_ code: CURLcode) {
        guard case .retry(200, let why) = plain.decide(attempt(1, transport(code))) else {
            Issue.record("transport \(code.rawValue) was not retried")
            return
        }
        #expect(why.hasPrefix("transport \(code.rawValue): "))
    }

    @Test func aListedCodeTheErrorCallsNotRetryableStops() {
        // A proxy refusing the tunnel (56), HTTP/2 assumed against HTTP/1 (52): the
        // error's context says the same request gets the same answer.
        var e = transport(CURLE_RECV_ERROR)
        e.isRetryable = false
        guard case .stop = plain.decide(attempt(1, e)) else {
            Issue.record("a transport error called not retryable was retried")
            return
        }
    }

    @Test(arguments: [
        CURLE_PEER_FAILED_VERIFICATION, CURLE_URL_MALFORMAT, CURLE_TOO_MANY_REDIRECTS, CURLE_WRITE_ERROR,
        CURLE_UNSUPPORTED_PROTOCOL
    ])
    func otherTransportErrorsStop(_ code: CURLcode) {
        if case .retry = plain.decide(attempt(1, transport(code))) { Issue.record("\(code.rawValue) retried") }
    }

    @Test func apiParseAndClientErrorsAreNeverRetriedByThePolicy() {
        var api = NetError(domain: .api, code: 5001, message: "busy")
        api.httpStatus = 503   // an envelope on a 503 is still the server's answer
        for e in [api, NetError(domain: .parse, code: 1, message: "x"), NetError.cancelled, NetError.shutdown] {
            if case .retry = plain.decide(attempt(1, e)) { Issue.record("\(e.domain) retried") }
        }
    }

    @Test func onlyIdempotentMethodsUnlessOptedIn() {
        for m in ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"] {
            #expect(plain.decide(attempt(1, http(503), method: m)) == .retry(afterMs: 200, reason: "HTTP 503"))
        }
        for m in ["POST", "PATCH", "PROPFIND"] {
            guard case .stop(let why) = plain.decide(attempt(1, http(503), method: m)) else {
                Issue.record("\(m) retried")
                continue
            }
            #expect(why.contains("\(m) is not retried"))
            #expect(
                plain.decide(attempt(1, http(503), method: m, optedIn: true))
                    == .retry(afterMs: 200, reason: "HTTP 503"))
        }
        var p = plain
        p.methods = ["POST"]
        #expect(p.decide(attempt(1, http(503), method: "POST")) == .retry(afterMs: 200, reason: "HTTP 503"))
        if case .retry = p.decide(attempt(1, http(503), method: "GET")) { Issue.record("GET retried") }
    }

    @Test func maxAttemptsCountsTheFirst() {
        #expect(plain.decide(attempt(2, http(503))) == .retry(afterMs: 400, reason: "HTTP 503"))
        #expect(plain.decide(attempt(3, http(503))) == .stop(reason: "max_attempts (3) reached"))
        var one = plain
        one.maxAttempts = 1
        #expect(one.decide(attempt(1, http(503))) == .stop(reason: "max_attempts (1) reached"))
    }

    @Test func backoffs() {
        var p = plain
        p.initialMs = 100
        p.multiplier = 3
        p.maxDelayMs = 1000
        #expect((1...5).map { p.delayMs(beforeRetry: $0, random: 0.5) } == [100, 300, 900, 1000, 1000])
        p.backoff = .constant
        #expect((1...3).map { p.delayMs(beforeRetry: $0, random: 0.5) } == [100, 100, 100])
        p.backoff = .immediate
        #expect(p.delayMs(beforeRetry: 4, random: 0.5) == 0)
        p.backoff = .exponential
        p.maxDelayMs = 86_400_000
        #expect(p.delayMs(beforeRetry: 100, random: 0) == 86_400_000)   // pow overflows: capped, not a trap
        p.initialMs = 2000
        p.maxDelayMs = 500
        p.backoff = .constant
        #expect(p.delayMs(beforeRetry: 1, random: 0) == 500)   // the cap holds for constant too
    }

    @Test func fullJitterDrawsFromZeroToTheWait() {
        var p = RetryPolicy()   // jitter on
        p.initialMs = 1000
        #expect(p.delayMs(beforeRetry: 1, random: 0) == 0)
        #expect(p.delayMs(beforeRetry: 1, random: 0.25) == 250)
        #expect(p.delayMs(beforeRetry: 2, random: 0.5) == 1000)
        #expect(p.delayMs(beforeRetry: 1, random: 0.999) == 999)
    }

    @Test func retryAfterSecondsAndDatesCappedByMaxDelay() {
        let now: Int64 = 784_111_777   // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.delayMs("Sunday, 06-Nov-1994 08:49:39 GMT", nowSeconds: now) == 2000)
        #expect(RetryAfter.delayMs("Sun Nov  6 08:49:41 1994", nowSeconds: now) == 4000)
        #expect(RetryAfter.delayMs("06 Nov 1994", nowSeconds: now) == nil)
        #expect(RetryAfter.delayMs("2", nowSeconds: now) == 2000)
        #expect(RetryAfter.delayMs(" 0 ", nowSeconds: now) == 0)
        #expect(RetryAfter.delayMs("Sun, 06 Nov 1994 08:49:40 GMT", nowSeconds: now) == 3000)
        #expect(RetryAfter.delayMs("Sun, 06 Nov 1994 08:49:00 GMT", nowSeconds: now) == 0)   // past: now
        #expect(RetryAfter.delayMs("99999999999999999999", nowSeconds: now) == Int64.max)
        #expect(RetryAfter.delayMs("soon", nowSeconds: now) == nil)
        #expect(RetryAfter.delayMs("-5", nowSeconds: now) == nil)

        let p = plain
        #expect(
            p.decide(attempt(1, http(503), retryAfter: "2", now: now))
                == .retry(afterMs: 2000, reason: "HTTP 503, Retry-After: 2"))
        #expect(
            p.decide(attempt(1, http(429), retryAfter: "3600", now: now))
                == .retry(afterMs: 5000, reason: "HTTP 429, Retry-After: 3600"))
        #expect(
            p.decide(attempt(1, http(503), retryAfter: "Sun, 06 Nov 1994 08:49:38 GMT", now: now))
                == .retry(afterMs: 1000, reason: "HTTP 503, Retry-After: Sun, 06 Nov 1994 08:49:38 GMT"))
        // Unreadable: the backoff.
        #expect(
            p.decide(attempt(1, http(503), retryAfter: "soon", now: now)) == .retry(afterMs: 200, reason: "HTTP 503"))
        var ignoring = p
        ignoring.respectRetryAfter = false
        #expect(
            ignoring.decide(attempt(1, http(503), retryAfter: "2", now: now))
                == .retry(afterMs: 200, reason: "HTTP 503"))
    }

    @Test func patchesMergeKeysGivenOverTheBase() throws {
        var client = RetryPolicy()
        client.maxAttempts = 5
        client.initialMs = 50
        var patch = RetryPolicy.Patch()
        patch.initialMs = 10
        patch.statuses = [503]
        let merged = client.merged(patch)
        #expect(merged.maxAttempts == 5 && merged.initialMs == 10 && merged.statuses == [503])
        #expect(merged.methods == client.methods)
        // Request over endpoint over client; false wins; nil keeps.
        var endpoint = RetryPolicy.Patch()
        endpoint.maxAttempts = 2
        let both = RetryOverride.merge(endpoint).then(.merge(patch))
        #expect(both.applied(to: client)?.maxAttempts == 2)
        #expect(both.applied(to: client)?.initialMs == 10)
        #expect(RetryOverride.merge(endpoint).then(.disabled).applied(to: client) == nil)
        #expect(RetryOverride.disabled.then(.merge(patch)).applied(to: client)?.maxAttempts == 5)
        #expect(RetryOverride.merge(endpoint).then(nil) == .merge(endpoint))
        // Over no client policy: over the defaults.
        #expect(RetryOverride.merge(patch).applied(to: nil) == RetryPolicy().merged(patch))
        #expect(RetryOverride.policy(client).applied(to: RetryPolicy()) == client)
    }

    func parse(_ json: String) throws(NetError) -> RetryOverride? {
        let bytes = Array(json.utf8)
        let result: Result<RetryOverride?, NetError> = bytes.withUnsafeBytes { b in
            do throws(NetError) { return .success(try RetryOverride.parse(json: b)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    @Test func theJSONFormIsCheckedNamingTheKey() throws {
        #expect(try parse("false") == .disabled)
        #expect(try parse("null") == nil)
        let all = try parse(
            #"{"max_attempts":4,"backoff":"constant","initial_ms":0,"multiplier":1.5,"max_delay_ms":9,"jitter":false,"statuses":[500],"methods":["get","post"],"respect_retry_after":false}"#
        )
        guard case .merge(let p)? = all else {
            Issue.record("not a patch")
            return
        }
        let policy = RetryPolicy().merged(p)
        #expect(policy.maxAttempts == 4 && policy.backoff == .constant && policy.initialMs == 0)
        #expect(policy.multiplier == 1.5 && policy.maxDelayMs == 9 && !policy.jitter && !policy.respectRetryAfter)
        #expect(policy.statuses == [500] && policy.methods == ["GET", "POST"])
        for (json, message) in [
            (#"{"max_attempts":101}"#, "Retry key 'max_attempts' must be an integer between 1 and 100, got 101."),
            (#"{"multiplier":0.5}"#, "Retry key 'multiplier' must be a number between 1 and 100, got 0.5."),
            (#"{"backoff":1}"#, "Retry key 'backoff' must be one of"),
            (#"{"jitter":"yes"}"#, "Retry key 'jitter' must be true or false, got string."),
            (#"{"methods":["GET X"]}"#, "Retry key 'methods' must list HTTP methods"),
            (#"{"statuses":[99]}"#, "Retry key 'statuses' must list HTTP statuses"),
            (#"{"tries":3}"#, "Retry key 'tries' is unknown. Known: max_attempts,"),
            ("true", "The retry policy must be an object or false, got boolean."),
            ("{", "The retry policy is not valid JSON")
        ] {
            #expect(throws: NetError.self) { try parse(json) }
            do throws(NetError) {
                _ = try parse(json)
            } catch {
                #expect(error.code == NetError.ClientCode.invalidRequest.rawValue)
                #expect(error.message.contains(message), "\(json): \(error.message)")
            }
        }
    }

    @Test func validateChecksASwiftPolicy() {
        var config = Configuration()
        var p = RetryPolicy()
        p.maxAttempts = 0
        config.retry = p
        #expect(throws: NetError.self) { try config.validate() }
        p.maxAttempts = 2
        p.multiplier = .infinity
        config.retry = p
        #expect(throws: NetError.self) { try config.validate() }
        config.retry = RetryPolicy()
        #expect(throws: Never.self) { try config.validate() }
    }
}
