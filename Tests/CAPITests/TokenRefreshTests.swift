// Single-flight token refresh: nc_client_set_token_refresher / nc_client_refresh_done
// against the mock server's /auth/check (200 with the right Bearer token, else the
// business code 401001 — or HTTP 401 with http=1).
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Records refresher calls; answers them at once with `answer` (nil: leaves them
/// for the test to answer).
final class RefreshRecorder: @unchecked Sendable {
    let lock = NSLock()
    var calls = 0
    var threads: [pthread_t] = []
    var errors: [Int64] = []
    /// (token, message) to answer with at once; nil: do not answer.
    var answer: (String?, String?)?
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    var count: Int { lock.withLock { calls } }
}

private let refreshFn: nc_refresh_fn = { client, error, ud in
    guard let ud else { return }
    let r = Unmanaged<RefreshRecorder>.fromOpaque(ud).takeUnretainedValue()
    let answer: (String?, String?)? = r.lock.withLock {
        r.calls += 1
        r.threads.append(pthread_self())
        r.errors.append(nc_error_code(error))
        return r.answer
    }
    if let answer { _ = nc_client_refresh_done(client, answer.0, answer.1) }
}

private func refreshConfig(_ extra: String...) -> String {
    var members = extra
    members.append(#""reachability":{"mode":"online"}"#)
    return config(envelope: Envelope.a, members.joined(separator: ","))
}

@Suite(.serialized) struct TokenRefreshTests {
    @Test func thirtyExpiredRequestsRefreshOnceAndAreEachReplayedOnce() throws {
        // Coalescing off: 30 transfers of their own, expiring one after another.
        let client = try TestClient(refreshConfig(#""auth":{"max_refreshes_per_minute":5}"#, #""coalesce":false"#))
        #expect(nc_client_set_token(client.handle, "stale") == NC_OK)
        let rec = RefreshRecorder()
        #expect(nc_client_set_token_refresher(client.handle, refreshFn, rec.userdata) == NC_OK)
        let key = uniqueKey()
        let r = try Request("GET", "/auth/check?valid=fresh&ms=200&key=\(key)")
        let cs = (0..<30).map { _ in Collector() }
        for c in cs { #expect(client.send(r, c, task: false).0 == NC_OK) }
        // The first expiry asks for a refresh; the others join it.
        #expect(waitUntil(timeout: 10) { rec.count == 1 })
        // Requests sent while it runs wait: they are not sent with the stale token
        // (if they were, they would expire and be sent twice: 70 hits below).
        let late = (0..<5).map { _ in Collector() }
        for c in late { client.send(r, c, task: false) }
        #expect(nc_client_refresh_done(client.handle, "fresh", nil) == NC_OK)
        for c in cs + late { #expect(c.wait(timeout: 20)) }
        #expect((cs + late).allSatisfy { $0.calls == 1 && $0.outcome?.succeeded == true })
        #expect(rec.count == 1)
        #expect(rec.errors == [401001])
        // 30 expired + 30 replays + 5 held ones sent once.
        #expect(hits(key) == 65)
        // No refresh running now.
        #expect(nc_client_refresh_done(client.handle, "x", nil) == NC_ERR_INVALID_STATE)
        client.free()
    }

    @Test func aFailedRefreshFailsTheWaitingRequestsAndFiresAuthExpiredOnce() throws {
        let client = try TestClient(refreshConfig(#""coalesce":false"#))
        nc_client_set_token(client.handle, "stale")
        let rec = RefreshRecorder()
        rec.answer = (nil, "the refresh token was revoked")
        nc_client_set_token_refresher(client.handle, refreshFn, rec.userdata)
        let expired = RefreshRecorder()
        nc_client_set_auth_expired_handler(
            client.handle,
            { _, _, ud in
                guard let ud else { return }
                let r = Unmanaged<RefreshRecorder>.fromOpaque(ud).takeUnretainedValue()
                r.lock.withLock { r.calls += 1 }
            }, expired.userdata)
        let r = try Request("GET", "/auth/check?valid=fresh&http=1")
        let cs = (0..<10).map { _ in Collector() }
        for c in cs { client.send(r, c, task: false) }
        for c in cs { #expect(c.wait(timeout: 20)) }
        #expect(rec.count >= 1)
        let failures = cs.compactMap { $0.outcome?.error }
        #expect(failures.count == 10)
        // Those that waited for the refresh carry its message; any that expired after
        // it was answered (it is answered at once here) carry their own 401.
        let refreshFailed = failures.filter {
            $0.domain == NC_DOMAIN_CLIENT && $0.code == Int64(NC_CLIENT_AUTH_REFRESH_FAILED)
        }
        #expect(!refreshFailed.isEmpty)
        #expect(refreshFailed.allSatisfy { $0.message.contains("the refresh token was revoked") })
        #expect(
            failures.allSatisfy {
                ($0.domain == NC_DOMAIN_CLIENT && $0.code == Int64(NC_CLIENT_AUTH_REFRESH_FAILED))
                    || $0.httpStatus == 401
            })
        #expect(expired.count == 1)
        client.free()
    }

    @Test func aRefreshIsAnsweredAtOnceOnTheSyncPathAndInQueueMode() throws {
        for queue in [false, true] {
            let client = try TestClient(queue ? refreshConfig(#""callbacks":"queue""#) : refreshConfig())
            nc_client_set_token(client.handle, "stale")
            let rec = RefreshRecorder()
            rec.answer = ("fresh", nil)
            nc_client_set_token_refresher(client.handle, refreshFn, rec.userdata)
            if queue {
                let c = Collector()
                client.send(try Request("GET", "/auth/check?valid=fresh"), c, task: false)
                var spins = 0
                while c.calls == 0 && spins < 2000 {
                    _ = nc_client_dispatch(client.handle)
                    usleep(2000)
                    spins += 1
                }
                #expect(c.outcome?.succeeded == true)
                // The refresher ran inside dispatch, on this thread.
                #expect(rec.lock.withLock { rec.threads }.allSatisfy { pthread_equal($0, pthread_self()) != 0 })
            } else {
                let out = try client.sync("/auth/check?valid=fresh")
                #expect(out.succeeded)
                #expect(rec.lock.withLock { rec.threads }.allSatisfy { pthread_equal($0, pthread_self()) != 0 })
            }
            #expect(rec.count == 1)
            client.free()
        }
    }

    @Test func skipAuthRequestsAndRateLimitsAnswerWithTheirOwnError() throws {
        let client = try TestClient(refreshConfig(#""auth":{"max_refreshes_per_minute":1}"#))
        nc_client_set_token(client.handle, "stale")
        let rec = RefreshRecorder()
        rec.answer = ("still-wrong", nil)
        nc_client_set_token_refresher(client.handle, refreshFn, rec.userdata)
        // The refresh call itself: never held, never a trigger.
        let own = try Request("GET", "/auth/check?valid=fresh")
        #expect(nc_request_set_flags(own.handle, UInt32(NC_REQUEST_SKIP_AUTH)) == NC_OK)
        let skip = client.sync(own)
        #expect(skip.error?.code == 401001)
        #expect(rec.count == 0)
        // One refresh (answered with a token that is still refused), one replay that
        // fails again: its own error, no second refresh.
        let first = try client.sync("/auth/check?valid=fresh")
        #expect(first.error?.code == 401001)
        #expect(rec.count == 1)
        // The minute's budget (1) is spent: the next expiry is the answer.
        nc_client_set_token(client.handle, "other")
        let second = try client.sync("/auth/check?valid=fresh")
        #expect(second.error?.code == 401001)
        #expect(rec.count == 1)
        client.free()
    }

    @Test func aRequestThatCarriedAnOlderTokenIsReplayedWithoutARefresh() throws {
        let client = try TestClient(refreshConfig())
        nc_client_set_token(client.handle, "old")
        let rec = RefreshRecorder()
        nc_client_set_token_refresher(client.handle, refreshFn, rec.userdata)
        let c = Collector()
        client.send(try Request("GET", "/auth/check?valid=new&ms=400"), c, task: false)
        #expect(waitForServer(MockServer.shared, path: "/auth/check", count: 1))
        // The token changes while it is on the wire with the old one.
        nc_client_set_token(client.handle, "new")
        #expect(c.wait(timeout: 20))
        #expect(c.outcome?.succeeded == true)
        #expect(rec.count == 0)
        client.free()
    }

    /// A refresh that never answers holds its requests no longer than their
    /// deadline: each ends with DEADLINE_EXCEEDED, the one that expired and one
    /// held before it was sent, on the transfer thread and on a sync caller's.
    @Test func waitingForARefreshEndsAtTheDeadline() throws {
        let client = try TestClient(refreshConfig(#""coalesce":false"#, #""deadline_ms":400"#))
        #expect(nc_client_set_token(client.handle, "stale") == NC_OK)
        let rec = RefreshRecorder()   // never answers
        #expect(nc_client_set_token_refresher(client.handle, refreshFn, rec.userdata) == NC_OK)
        let key = uniqueKey()
        let expired = Collector()
        #expect(client.send(try Request("GET", "/auth/check?valid=fresh&key=\(key)"), expired, task: false).0 == NC_OK)
        #expect(waitUntil(timeout: 10) { rec.count == 1 })
        let held = Collector()
        #expect(client.send(try Request("GET", "/auth/check?valid=fresh&key=\(key)"), held, task: false).0 == NC_OK)
        let sync = client.sync(try Request("GET", "/auth/check?valid=fresh&key=\(key)"))
        for c in [expired, held] { #expect(c.wait(timeout: 20)) }
        for o in [expired.outcome, held.outcome, sync] {
            #expect(o?.error?.isClient(NC_CLIENT_DEADLINE_EXCEEDED) == true)
            #expect(o?.error?.json?.contains(#""timeout":"deadline""#) == true)
        }
        #expect(expired.outcome?.error?.attempts == 1)
        #expect(held.outcome?.error?.attempts == 0)
        #expect(expired.calls == 1 && held.calls == 1)
        #expect(hits(key) == 1)   // only the first was sent: the others waited, then ended
        // The refresh is still running; answering it now completes nothing twice.
        #expect(nc_client_refresh_done(client.handle, "fresh", nil) == NC_OK)
        #expect(expired.calls == 1 && held.calls == 1)
        client.free()
    }

    @Test func badArguments() throws {
        let client = try TestClient(refreshConfig())
        #expect(nc_client_set_token_refresher(nil, refreshFn, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_refresh_done(nil, "t", nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_refresh_done(client.handle, "t", nil) == NC_ERR_INVALID_STATE)
        #expect(nc_client_refresh_done(client.handle, nil, "why") == NC_ERR_INVALID_STATE)
        #expect(nc_client_set_token_refresher(client.handle, nil, nil) == NC_OK)   // removes: fine without one
        client.free()
    }
}
