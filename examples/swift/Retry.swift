import NetCore

#if canImport(Glibc)
import Glibc
#endif

/// Retry: GETs retried after a backoff on 503, a POST sent once, a deadline over
/// all the attempts and waits of one request. /flaky?key=K&fails=F answers 503 to
/// its first F requests with key K.
func retry(_ base: String) async -> Bool {
    let config = #"""
        {"base_url":"\#(base)","envelope":{},
         "retry":{"max_attempts":3,"initial_ms":50,"jitter":false,"statuses":[503]}}
        """#
    guard let client = client(config) else { return false }
    defer { client.shutdown() }
    let key = "swift-retry-\(getpid())"
    var ok = true
    switch await result(client, "GET", "/flaky?key=\(key)-get&fails=2") {
    case .success(let r):
        print("GET /flaky -> \(r.status) after \(r.metrics.attempts) attempt(s)")
        ok = r.metrics.attempts == 3
    case .failure(let e):
        print("GET /flaky -> \(e.message)")
        ok = false
    }
    switch await result(client, "POST", "/flaky?key=\(key)-post&fails=1") {
    case .success: ok = false
    case .failure(let e):
        print("POST /flaky -> \(e.domain.name) \(e.code) after \(e.attempts) attempt(s)")
        ok = ok && e.code == 503 && e.attempts == 1
    }
    do throws(NetError) {
        var r = try Request(method: "GET", target: "/flaky?key=\(key)-deadline&fails=100")
        try r.setDeadline(ms: 300)
        var many = RetryPolicy()   // more attempts than the deadline leaves time for
        many.maxAttempts = 50
        many.initialMs = 100
        many.jitter = false
        many.statuses = [503]
        r.retry = .policy(many)
        _ = try await client.send(r)
        ok = false
    } catch {
        print("GET /flaky with a deadline -> \(error.domain.name) \(error.code)")
        ok = ok && error.domain == .client && error.code == NetError.ClientCode.deadlineExceeded.rawValue
    }
    return ok
}
