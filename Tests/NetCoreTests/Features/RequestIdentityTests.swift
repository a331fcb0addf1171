import Foundation
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

#if canImport(Glibc)
import Glibc
#endif

/// Hooks that know the request (NetError.request, Request.label) and reachability
/// an app can watch (reachabilityHandler, reachabilityUpdates, retry when reachable),
/// through the Swift API against the loopback mock server.
@Suite struct RequestIdentityTests {
    /// Everything a handler saw, under one lock.
    final class Seen: @unchecked Sendable {
        let lock = Mutex<[NetError]>([])
        var all: [NetError] { lock.withLock { $0 } }
        func add(_ e: NetError) { lock.withLock { $0.append(e) } }
    }

    @Test func theErrorHandlerKnowsWhichCallFailed() async throws {
        let (port, fd) = refusingPort()
        defer { close(fd) }
        let c = try NetClient(
            json:
                #"{"base_url":"http://127.0.0.1:\#(port)/api","endpoints":{"user.get":{"method":"GET","path":"/users/{id}"}}}"#
        )
        defer { c.shutdown() }
        let seen = Seen()
        c.errorHandler = { _, e in seen.add(e) }
        var events: [RequestEvent] = []
        let eventLock = Mutex<[RequestEvent]>([])
        c.eventHandler = { e in eventLock.withLock { $0.append(e) } }
        var r = try Request(endpoint: "user.get", params: ["id": 7, "token": "SECRET"])
        try r.setLabel("profile.load")
        do {
            _ = try await c.send(r)
            Issue.record("a refused connection succeeded")
        } catch {
            #expect(error.domain == .transport && error.code == 7, "\(error)")
            let id = try #require(error.request)
            #expect(id.method == "GET")
            #expect(id.url == "http://127.0.0.1:\(port)/api/users/7?token=REDACTED")
            #expect(id.endpoint == "user.get")
            #expect(id.label == "profile.load")
            #expect(id.taskID > 0)
            #expect(seen.all.count == 1)
            #expect(seen.all.first?.request == id)   // the handler saw the same request
            #expect(error.json.contains(#""label":"profile.load""#))
            // The message names the request as events do: no secret query value.
            #expect(error.message.contains("GET http://127.0.0.1:\(port)/api/users/7?token=REDACTED failed"))
            #expect(!error.message.contains("SECRET") && !error.json.contains("SECRET"))
        }
        events = eventLock.withLock { $0 }
        #expect(!events.isEmpty && events.allSatisfy { $0.endpoint == "user.get" && $0.label == "profile.load" })
        #expect(events.first?.json.contains(#""endpoint":"user.get","label":"profile.load""#) == true)
    }

    @Test func labelsAreCheckedLikeGroupNames() throws {
        var r = try Request(method: "GET", target: "/echo")
        try r.setLabel("checkout")
        for bad in ["", "a\nb", "tab\there", "del\u{7f}"] {
            #expect(throws: NetError.self) { try r.setLabel(bad) }
        }
        #expect(r.label == "checkout")   // a refused label changes nothing
        try r.setLabel(nil)
        #expect(r.label == nil)
        #expect(throws: NetError.self) { try Request.get("/echo").label("").build() }
        #expect(try Request.get("/echo").label("home").build().label == "home")
    }

    struct Missing: Decodable { let notThere: Int }

    /// A decode failure reaches the error handler carrying the request it decoded.
    @Test func aDecodeFailureCarriesTheRequest() async throws {
        let c = try NetClient(json: #"{"base_url":"\#(MockServer.shared.baseURL)"}"#)
        defer { c.shutdown() }
        let seen = Seen()
        c.errorHandler = { _, e in seen.add(e) }
        do {
            _ = try await c.decode(Missing.self, from: Request.get("/users/7").label("user screen"))
            Issue.record("decoded a missing key")
        } catch {
            #expect(error.domain == .parse && error.code == NetError.ParseCode.decodingFailed.rawValue)
            #expect(error.request?.label == "user screen")
            #expect(error.request?.method == "GET")
            #expect(error.request?.url == MockServer.shared.url("/users/7"))
            #expect((error.request?.taskID ?? 0) > 0)
            #expect(seen.all.first?.request == error.request)
        }
    }

    /// Forced changes reach the handler and the AsyncSequence, once each, in order.
    @Test func reachabilityChangesAreReported() async throws {
        let c = try NetClient(json: #"{"base_url":"\#(MockServer.shared.baseURL)","reachability":{"mode":"online"}}"#)
        defer { c.shutdown() }
        let states = Mutex<[Bool]>([])
        c.reachabilityHandler = { s in states.withLock { $0.append(s) } }
        var updates = c.reachabilityUpdates.makeAsyncIterator()
        #expect(await updates.next() == true)   // the state now
        c.reachability = .offline
        c.reachability = .offline   // no change: not reported
        c.reachability = .online
        #expect(await updates.next() == false)
        #expect(await updates.next() == true)
        #expect(states.withLock { $0 } == [false, true])
        c.reachabilityHandler = nil
        c.reachability = .offline
        #expect(await updates.next() == false)
        #expect(states.withLock { $0 } == [false, true])
    }

    /// Retry when reachable: a request waiting out a ten-minute delay is sent when
    /// the network returns, and its events say so.
    @Test func aBackoffIsCutShortWhenTheNetworkReturns() async throws {
        let c = try NetClient(
            json:
                #"{"base_url":"\#(MockServer.shared.baseURL)","retry":{"max_attempts":2,"backoff":"constant","initial_ms":600000,"max_delay_ms":600000,"jitter":false}}"#
        )
        defer { c.shutdown() }
        let events = Mutex<[RequestEvent]>([])
        c.eventHandler = { e in events.withLock { $0.append(e) } }
        let key = "swift-reach-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let status = Atomic<Int32>(0)
        let transfer = try #require(
            c.send(try Request(method: "GET", target: "/flaky?key=\(key)&fails=1")) { r, _ in
                status.store(r?.status ?? -1, ordering: .relaxed)
            })
        #expect(await waitUntilAsync { c.requestsBackingOff == 1 })
        c.reachability = .offline
        c.reachability = .online
        // Seconds of slack against a ten-minute delay: not a timing check.
        #expect(await waitUntilAsync { status.load(ordering: .relaxed) != 0 })
        if status.load(ordering: .relaxed) == 0 { transfer.cancel() }
        #expect(status.load(ordering: .relaxed) == 200)
        let mine = events.withLock { $0 }
        #expect(mine.map(\.kind) == [.requestStart, .attemptEnd, .retry, .retry, .attemptEnd, .requestEnd])
        #expect(mine.count == 6)
        if mine.count == 6 {
            #expect(mine[2].delayMs == 600000)
            #expect(mine[3].delayMs == 0 && mine[3].reason?.hasPrefix("network returned") == true)
        }
        #expect(c.requestsBackingOff == 0)
    }
}
