import Testing
import Synchronization
import Glibc
@testable import NetCore
import MockServerSupport

/// The core's client against the real loopback server.
@Suite struct ClientTransportTests {
    let server = MockServer.shared

    func client(_ extra: String = #""envelope":{}"#) throws -> NetClient {
        try NetClient(json: #"{"base_url":"\#(server.baseURL)",\#(extra)}"#)
    }

    func sync(_ c: NetClient, _ method: String, _ path: String) throws -> (Response?, NetError?) {
        try c.sendSync(try Request(method: method, target: path)).get()
    }

    @Test func syncSuccessCarriesDataAndHeaders() throws {
        let c = try client()
        defer { c.shutdown() }
        let (r, e) = try sync(c, "GET", "/env/code/ok")
        #expect(e == nil)
        let response = try #require(r)
        #expect(response.status == 200)
        #expect(response.data?.text == #"{"id":7,"name":"Ada"}"#)
        #expect(response.headers.value("content-type")?.hasPrefix("application/json") == true)
        #expect(response.url == server.url("/env/code/ok"))
    }

    @Test func connectionRefusedIsTransport7() throws {
        let c = try NetClient(json: #"{"base_url":"http://127.0.0.1:1"}"#)
        defer { c.shutdown() }
        let (r, e) = try sync(c, "GET", "/x")
        #expect(r == nil)
        #expect(e?.domain == .transport)
        #expect(e?.code == 7)
        #expect(e?.isRetryable == true)
        #expect(e?.message.contains("Check that the server is running") == true)
    }

    @Test func cancelEndsASlowRequestWithCancelled() throws {
        let c = try client()
        defer { c.shutdown() }
        let calls = Mutex<[NetError?]>([])
        let task = try #require(c.send(try Request(method: "GET", target: "/slow?ms=5000")) { _, e in
            calls.withLock { $0.append(e) }
        })
        task.cancel()
        // cancel() returns after the completion has run.
        let seen = calls.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first??.code == NetError.ClientCode.cancelled.rawValue)
        task.cancel()
        #expect(calls.withLock { $0.count } == 1)
    }

    @Test func shutdownCompletesEverythingOnce() throws {
        let c = try client()
        let count = Mutex(0)
        let shutdowns = Mutex(0)
        for _ in 0..<20 {
            _ = c.send(try Request(method: "GET", target: "/slow?ms=3000")) { _, e in
                count.withLock { $0 += 1 }
                if e?.code == NetError.ClientCode.shutdown.rawValue { shutdowns.withLock { $0 += 1 } }
            }
        }
        #expect(c.shutdown())
        #expect(count.withLock { $0 } == 20)
        #expect(shutdowns.withLock { $0 } == 20)
        #expect(c.send(try Request(method: "GET", target: "/x")) { _, _ in } == nil)
    }

    @Test func queueModeRunsCompletionsOnlyInDispatch() throws {
        let c = try client(#""callbacks":"queue""#)
        defer { c.shutdown() }
        #expect(c.fd >= 0)
        let done = Mutex(0)
        _ = c.send(try Request(method: "GET", target: "/env/code/ok")) { _, _ in done.withLock { $0 += 1 } }
        var spins = 0
        while done.withLock({ $0 }) == 0 && spins < 500 {
            #expect(c.dispatch() == .ok)
            usleep(2_000)
            spins += 1
        }
        #expect(done.withLock { $0 } == 1)
    }
}

/// libcurl gets each request's URL already parsed (CURLOPT_CURLU, held by the
/// prepared request); pooled easy handles go from one URL to the next.
@Suite struct ParsedURLTests {
    let server = MockServer.shared

    /// The request line's target the server saw (/echo's "raw_path"), as JSON text.
    func target(_ r: Response?) -> String? {
        guard let text = r?.body.text, let key = text.range(of: #""raw_path":"#) else { return nil }
        let rest = text[key.upperBound...].drop { $0 == " " }.dropFirst()
        return String(rest.prefix { $0 != "\"" })
    }

    func send(_ c: NetClient, _ r: Request) async -> (Response?, NetError?) {
        do throws(NetError) { return (try await c.send(r), nil) } catch { return (nil, error) }
    }

    @Test func eachSendReachesItsOwnURLOnReusedHandles() async throws {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let again = try Request(method: "GET", target: "/echo?same=1")
        // One request sent again (its prepared request and parsed URL reused) between
        // new ones, through the loop's handle pool and through a sync lane.
        for i in 0..<6 {
            let (r1, e1) = try c.sendSync(again).get()
            #expect(e1 == nil)
            #expect(target(r1) == "/echo?same=1")
            let (r2, e2) = await send(c, try Request(method: "GET", target: "/echo?i=\(i)"))
            #expect(e2 == nil)
            #expect(target(r2) == "/echo?i=\(i)")
            let (r3, e3) = await send(c, again)
            #expect(e3 == nil)
            #expect(target(r3) == "/echo?same=1")
            let (r4, _) = try c.sendSync(try Request(method: "GET", target: "/echo?j=\(i)")).get()
            #expect(target(r4) == "/echo?j=\(i)")
        }
    }

    @Test func aURLLibcurlRefusesIsTransport3AndTheClientCarriesOn() async throws {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let bad = try Request(method: "GET", target: "http://127.0.0.1:99999/x")
        for _ in 0..<2 {
            let (r, e) = await send(c, bad)
            #expect(r == nil)
            #expect(e?.domain == .transport)
            #expect(e?.code == 3)
            #expect(e?.message == "GET http://127.0.0.1:99999/x failed: URL using bad/illegal format or missing URL. See libcurl error 3.")
            #expect(e?.attempts == 0)   // nothing was sent
            let (rs, es) = try c.sendSync(bad).get()
            #expect(rs == nil && es?.code == 3 && es?.attempts == 0)
            let (ok, e2) = await send(c, try Request(method: "GET", target: "/echo?after=bad"))
            #expect(e2 == nil)
            #expect(target(ok) == "/echo?after=bad")
        }
    }
}

/// Which variable wins (ProxyEnvironment.swift; end to end in Tests/python/test_proxy.py).
@Suite struct ProxyEnvironmentTests {
    func proxies(_ vars: [String: String]) -> ProxyEnvironment { ProxyEnvironment { vars[$0] } }
    func text(_ s: CString) -> String { String(cString: s.pointer) }

    @Test func libcurlsPrecedence() {
        let none = proxies([:])
        #expect(text(none.http) == "" && text(none.https) == "" && text(none.noProxy) == "")
        let all = proxies(["ALL_PROXY": "http://A:1", "all_proxy": "http://a:1", "NO_PROXY": "N", "no_proxy": "n"])
        #expect(text(all.http) == "http://a:1" && text(all.https) == "http://a:1" && text(all.noProxy) == "n")
        let upper = proxies(["ALL_PROXY": "http://A:1", "HTTP_PROXY": "http://H:1", "HTTPS_PROXY": "http://S:1"])
        #expect(text(upper.http) == "http://A:1")     // HTTP_PROXY is never read
        #expect(text(upper.https) == "http://S:1")
        let lower = proxies(["http_proxy": "http://h:1", "https_proxy": "http://s:1", "HTTPS_PROXY": "http://S:1",
                             "all_proxy": "http://a:1"])
        #expect(text(lower.proxy(https: false)) == "http://h:1")
        #expect(text(lower.proxy(https: true)) == "http://s:1")
        let empty = proxies(["http_proxy": "", "all_proxy": "http://a:1", "no_proxy": "", "NO_PROXY": "N"])
        #expect(text(empty.http) == "http://a:1" && text(empty.noProxy) == "N")
    }
}

/// `count` requests in flight at once, each held `ms` by the server; how many succeeded.
func sendBurst(_ c: NetClient, count: Int, ms: Int) async throws -> Int {
    let requests = try (0..<count).map { try Request(method: "GET", target: "/slow?ms=\(ms)&i=\($0)") }
    return await withTaskGroup(of: Bool.self) { group in
        for r in requests {
            group.addTask {
                do throws(NetError) {
                    _ = try await c.send(r)
                    return true
                } catch { return false }
            }
        }
        var ok = 0
        for await good in group where good { ok += 1 }
        return ok
    }
}

/// The loop's pool of idle easy handles (EasyHandlePool, through TransferLoop).
@Suite struct HandlePoolTests {
    let server = MockServer.shared

    /// 200 requests in flight at once, each held 300 ms by the server.
    func burst(_ c: NetClient) async throws -> Int { try await sendBurst(c, count: 200, ms: 300) }

    @Test func idleHandlesAreKeptForTheNextBurstAndFreedWhenIdle() async throws {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)","limits":{"max_connections_per_host":0}}"#)
        defer { c.shutdown() }
        #expect(try await burst(c) == 200)
        let first = c.loop.handlesMade.load(ordering: .relaxed)
        #expect(first == 200)
        #expect(try await burst(c) == 200)
        // The pool keeps handles for the last second's peak: all 200 are reused.
        // A fixed cap of 64 made 136 here, and "idle no more than in use" made 100.
        #expect(c.loop.handlesMade.load(ordering: .relaxed) - first == 0)
        // Idle, the loop passes about once a second and the number kept halves at
        // each pass a second apart: after 5 s it is 100 or 64 (the peak is counted
        // in the window it fell in, so the first pass after the burst keeps 200).
        try await Task.sleep(for: .seconds(5))
        let second = c.loop.handlesMade.load(ordering: .relaxed)
        #expect(try await burst(c) == 200)
        let made = c.loop.handlesMade.load(ordering: .relaxed) - second
        #expect(made >= 100 && made <= 136, "made \(made)")
    }
}

/// libcurl's cache of idle connections (TransferLoop.sizeConnectionCache).
@Suite struct ConnectionCacheTests {
    @Test func connectionsOfABurstSurviveSequentialRequestsInBetween() async throws {
        let server = try MockServer()   // its own: the connection count is the test's
        defer { server.stop() }
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)","limits":{"max_connections_per_host":0}}"#)
        defer { c.shutdown() }
        #expect(try await sendBurst(c, count: 16, ms: 200) == 16)
        // One transfer at a time: libcurl's default cache (4 per transfer added) would
        // hold 4 and close the oldest idle connection at each of these completions.
        for i in 0..<20 {
            _ = try await c.send(try Request(method: "GET", target: "/echo?seq=\(i)"))
        }
        #expect(try await sendBurst(c, count: 16, ms: 200) == 16)
        struct Stats: Decodable { let connections: Int }
        let stats = try await c.send(try Request(method: "GET", target: "/_stats")).decode(Stats.self)
        // 16 connections, the /_stats call reusing one; with libcurl's default
        // sizing the second burst reconnected 12 (28 in all).
        #expect(stats.connections == 16)
    }
}

/// EasyHandlePool's sizing, with the clock in the test's hands.
@Suite struct EasyHandlePoolTests {
    func handles(_ n: Int) -> [EasyHandle] { (0..<n).compactMap { _ in EasyHandle() } }

    /// Returns `n` handles, `inUse` counting down as each finishes.
    func finish(_ pool: inout EasyHandlePool, _ hs: [EasyHandle], from inUse: Int) {
        for (i, h) in hs.enumerated() { pool.put(h, inUse: inUse - i - 1) }
    }

    /// A pool at time 0 that saw `peak` handles in use, then got `returned` of them back.
    func pool(peak: Int, returned: Int) -> EasyHandlePool {
        var pool = EasyHandlePool(now: 0)
        for n in 1...peak { pool.noteInUse(n) }
        finish(&pool, handles(returned), from: peak)
        return pool
    }

    @Test func keepsEveryHandleOfASteadyLoadWhateverTheOrderOfCompletions() {
        // 200 of 256 finish in one pass: all are kept (the old rule freed 72 of them).
        var pool = pool(peak: 256, returned: 200)
        #expect(pool.count == 200)
        pool.tick(inUse: 56, now: 1_000)
        #expect(pool.count == 200)
    }

    @Test func neverHoldsMoreThanThePeak() {
        var pool = pool(peak: 100, returned: 100)
        #expect(pool.count == 100)
        pool.put(EasyHandle()!, inUse: 0)   // a 101st handle has no place
        #expect(pool.count == 100)
    }

    @Test func shrinksByHalfEachIdleSecondDownToTheFloor() {
        var pool = pool(peak: 1_000, returned: 1_000)
        #expect(pool.count == 1_000)
        pool.tick(inUse: 0, now: 999)        // not a second yet
        #expect(pool.count == 1_000)
        pool.tick(inUse: 0, now: 1_000)      // this window's peak was 1,000
        #expect(pool.count == 1_000)
        pool.tick(inUse: 0, now: 2_000)
        #expect(pool.count == 500)
        pool.tick(inUse: 0, now: 3_000)
        #expect(pool.count == 250)
        for s in 4...10 { pool.tick(inUse: 0, now: Int64(s) * 1_000) }
        #expect(pool.count == EasyHandlePool.floor)
    }

    @Test func handlesInUseCountAgainstWhatIsKept() {
        var pool = pool(peak: 300, returned: 200)   // 100 still in use
        pool.tick(inUse: 100, now: 1_000)
        pool.tick(inUse: 100, now: 2_000)        // keep 150: 100 in use + 50 idle
        #expect(pool.count == 50)
    }
}

/// A response's body and header lines share one block (ncsink_take): each part
/// stays intact and outlives the response object.
@Suite struct ResponseBlockTests {
    let server = MockServer.shared

    @Test(arguments: ["/chunked?chunks=7", "/env/code/ok", "/large?bytes=300000", "/nocontent"])
    func bodyAndHeadersSurviveTheResponseAndEachOther(path: String) throws {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let reference = try #require(try c.sendSync(try Request(method: "GET", target: path)).get().0)
        let expectedBody = reference.body.array
        var response: Response? = try #require(try c.sendSync(try Request(method: "GET", target: path)).get().0)
        let headers = try #require(response?.headers)
        let body = try #require(response?.body)
        response = nil
        // Indexing the headers rewrites their bytes in place; the body next to them
        // must not change, and both outlive the response.
        #expect(headers.count >= 2)
        #expect(headers.value("date") != nil)
        if path.hasPrefix("/chunked") {
            #expect(headers.value("transfer-encoding") == "chunked")
        } else if !path.hasPrefix("/nocontent") {
            #expect(headers.value("content-length") == String(expectedBody.count))
        }
        #expect(body.array == expectedBody)
        #expect(body.pointer[body.count] == 0)
        #expect(headers.all.count == headers.count)
    }
}
