import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// `NetClient.refresher` (an async closure) against the loopback server's
/// /auth/check: one refresh for concurrent expired sends, each sent again with the
/// new token; a throwing refresher fails them with AUTH_REFRESH_FAILED.
/// Sends `request` and returns the CLIENT error it must fail with (`code`); nil,
/// with an issue recorded, when it succeeds or fails otherwise.
private func clientError(_ c: NetClient, _ request: Request, _ code: NetError.ClientCode) async -> NetError? {
    do throws(NetError) {
        _ = try await c.send(request)
        Issue.record("expected CLIENT \(code)")
        return nil
    } catch {
        #expect(error.domain == .client && error.code == code.rawValue, "\(error)")
        return error.domain == .client && error.code == code.rawValue ? error : nil
    }
}

@Suite struct TokenRefreshSwiftTests {
    let server = MockServer.shared

    func client() throws -> NetClient {
        try NetClient(
            json: #"{"base_url":"\#(server.baseURL)","envelope":{"auth_expired_codes":[401001]},"#
                + #""coalesce":false,"reachability":{"mode":"online"},"auth":{"token":"stale"}}"#)
    }

    @Test func anAsyncRefresherAnswersOnceForConcurrentSends() async throws {
        let c = try client()
        defer { c.shutdown() }
        let calls = Atomic<Int>(0)
        c.refresher = { error in
            calls.add(1, ordering: .relaxed)
            #expect(error.code == 401001)
            try await Task.sleep(for: .milliseconds(20))
            return "fresh"
        }
        #expect(c.refresher != nil)
        let request = try Request(method: "GET", target: "/auth/check?valid=fresh&ms=50")
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<8 { group.addTask { try await c.send(request).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: Int32(200), count: 8))
        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(c.token == "fresh")
    }

    @Test func aThrowingRefresherFailsTheWaitingSends() async throws {
        struct Revoked: Error, CustomStringConvertible { var description: String { "revoked" } }
        let c = try client()
        defer { c.shutdown() }
        c.refresher = { _ in throw Revoked() }
        let e = await clientError(c, try Request(method: "GET", target: "/auth/check?valid=fresh"), .authRefreshFailed)
        #expect(e?.message.contains("revoked") == true)
        // Answering when nothing runs is refused.
        #expect(throws: NetClient.RefreshDoneRefusal.self) { try c.refreshDone(token: "x") }
        c.refresher = nil
        #expect(c.refresher == nil)
    }

    /// A request that ends while it waits for a refresh (its deadline, a cancel)
    /// leaves nothing behind in the refresher, also once the refresh is answered.
    @Test func aRequestThatEndsWhileWaitingIsForgotten() async throws {
        let c = try client()
        defer { c.shutdown() }
        let started = Atomic<Int>(0)
        c.setTokenRefresher { _ in started.add(1, ordering: .relaxed) }   // answered below
        var timed = try Request(method: "GET", target: "/auth/check?valid=fresh")
        try timed.setDeadline(ms: 300)
        #expect(await clientError(c, timed, .deadlineExceeded)?.timeout == .deadline)
        #expect(started.load(ordering: .relaxed) == 1)
        // A second one waits for the same refresh and is cancelled.
        let waiting = Task { () async throws(NetError) -> Response in
            try await c.send(try Request(method: "GET", target: "/auth/check?valid=fresh"))
        }
        #expect(await waitUntilAsync { c.tokenRefresher.remembered == 1 })
        waiting.cancel()
        if case .failure(let e) = await waiting.result {
            #expect((e as? NetError)?.isCancelled == true, "\(e)")
        } else {
            Issue.record("not cancelled")
        }
        #expect(await waitUntilAsync { c.tokenRefresher.remembered == 0 })
        try c.refreshDone(token: "fresh")
        #expect(c.tokenRefresher.remembered == 0)
        #expect(started.load(ordering: .relaxed) == 1)
    }

    /// A token the library refuses (empty) fails the refresh: the waiting send
    /// ends with AUTH_REFRESH_FAILED instead of waiting for an answer that never comes.
    @Test func aRefresherReturningARefusedTokenFailsTheWaitingSends() async throws {
        let c = try client()
        defer { c.shutdown() }
        c.refresher = { _ in "" }
        let e = await clientError(c, try Request(method: "GET", target: "/auth/check?valid=fresh"), .authRefreshFailed)
        #expect(e?.message.contains("the refresher returned") == true)
        #expect(c.token == "stale")
    }
}
