// idle_timeout_ms is inactivity, measured by the library in milliseconds: a body
// that keeps moving lives however long it takes, a stall ends in about the limit —
// on the transfer thread (nc_client_send) and on a synchronous send's own lane
// (nc_client_send_sync) alike. Scripted routes of the mock server; the tests read
// what the error says (a stall not caught in time ends as the server's close,
// another error), never the clock.
import CNetCore
import Foundation
import Testing

@Suite struct IdleTimeoutTests {
    enum Path: CaseIterable { case loop, lane }

    private func run(_ client: TestClient, _ r: Request, _ path: Path) async -> Outcome? {
        switch path {
        case .lane: return await blocking { client.sync(r) }
        case .loop: return await blocking { client.sendAndWait(r, timeout: 60).outcome }
        }
    }

    @Test(arguments: Path.allCases)
    func aBodyTricklingAByteEvery200msLivesPastTheIdleLimit(_ path: Path) async throws {
        // 50 bytes, one every 200 ms: 10 s in all, never 1 s without a byte.
        let client = try TestClient(config(envelope: nil, #""idle_timeout_ms":1000"#))
        defer { client.free() }
        let r = try Request("GET", "/drip?chunks=50&ms=200&size=1")
        let o = try #require(await run(client, r, path))
        #expect(o.succeeded, "\(o)")
        #expect(o.response?.body.count == 50)
    }

    @Test(arguments: Path.allCases)
    func aStallAfter100BytesEndsAsIdle(_ path: Path) async throws {
        // 100 of 101 bytes, then 6 s of silence and a close: caught as idle, so
        // before the close (which would be TRANSPORT 18, a short body).
        let client = try TestClient(config(envelope: nil, #""idle_timeout_ms":500"#))
        defer { client.free() }
        let r = try Request("GET", "/stall?bytes=100&ms=6000")
        let e = try #require(await run(client, r, path)?.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT && e.code == 28, "\(e)")
        #expect(timeoutField(e) == "idle", "\(e)")
        #expect(
            e.message.contains(
                "no byte sent or received for idle_timeout_ms (500 ms) after 100 of 101 bytes of the body"),
            "\(e.message)")
        #expect(!e.message.contains("did not answer"))
        #expect(e.retryable == 1)
    }

    @Test(arguments: Path.allCases)
    func aServerSilentBeforeTheStatusLineEndsAsIdle(_ path: Path) async throws {
        let client = try TestClient(config(envelope: nil, #""idle_timeout_ms":500"#))
        defer { client.free() }
        let r = try Request("GET", "/slow?ms=8000")
        let e = try #require(await run(client, r, path)?.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT && e.code == 28, "\(e)")
        #expect(timeoutField(e) == "idle", "\(e)")
        #expect(e.message.contains("(500 ms) before the response's first body byte"), "\(e.message)")
    }

    @Test(arguments: Path.allCases)
    func anUploadTheServerStopsReadingEndsAsIdle(_ path: Path) async throws {
        // 32 MiB: more than loopback's socket buffers hold, so the send stops moving.
        let client = try TestClient(config(envelope: nil, #""idle_timeout_ms":500"#))
        defer { client.free() }
        let r = try Request("POST", "/upload/unread?ms=10000")
        let bytes = [UInt8](repeating: 0x61, count: 32 << 20)
        #expect(nc_request_set_body(r.handle, bytes, bytes.count, "application/octet-stream") == NC_OK)
        let e = try #require(await run(client, r, path)?.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT && e.code == 28, "\(e)")
        #expect(timeoutField(e) == "idle", "\(e)")
    }

    @Test(arguments: Path.allCases)
    func aTwentySecondDownloadWithTheDefaultsSucceeds(_ path: Path) async throws {
        // 100 kB in 20 pieces a second apart: the old default (a 15 s total) cut it
        // at 76 kB. The defaults now: no total limit, 15 s idle.
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        let r = try Request("GET", "/drip?chunks=20&ms=1000&size=5000")
        let o = try #require(await run(client, r, path))
        #expect(o.succeeded, "\(o)")
        #expect(o.response?.body.count == 100_000)
    }

    @Test func theIdleLimitRetriesLikeAnyTimeout() async throws {
        // A stall is a transport timeout: retryable, and a retry policy sends again.
        let client = try TestClient(
            config(
                envelope: nil, #""idle_timeout_ms":300"#,
                #""retry":{"max_attempts":2,"initial_ms":10,"jitter":false}"#))
        defer { client.free() }
        let r = try Request("GET", "/stall?bytes=5&ms=3000")
        let e = try #require(await run(client, r, .loop)?.error)
        #expect(timeoutField(e) == "idle", "\(e)")
        #expect(e.attempts == 2, "\(e)")
    }
}

/// An endpoint's own connect and idle timeouts ("connect_timeout_ms",
/// "idle_timeout_ms" of a spec, since 0.4); a request's own still wins.
@Suite struct EndpointTimeoutTests {
    @Test func anEndpointsIdleLimitEndsAStallAndTheRequestsOwnWins() async throws {
        let client = try TestClient(
            config(
                envelope: nil,
                #""endpoints":{"stall":{"path":"/stall?bytes=10&ms=4000","idle_timeout_ms":300}}"#))
        defer { client.free() }
        let e = try #require(await blocking { client.call("stall", "{}") }.error)
        #expect(timeoutField(e) == "idle", "\(e)")
        #expect(e.message.contains("idle_timeout_ms (300 ms)"), "\(e.message)")
        // The request built from the endpoint sets its own: it wins.
        let own = try Request(endpoint: "stall")
        #expect(nc_request_set_idle_timeout_ms(own.handle, 600) == NC_OK)
        let e2 = try #require(await blocking { client.sync(own) }.error)
        #expect(e2.message.contains("idle_timeout_ms (600 ms)"), "\(e2.message)")
    }

    @Test func aBadEndpointTimeoutIsRefusedNamingTheKey() throws {
        let client = try TestClient(config(envelope: nil))
        defer { client.free() }
        #expect(
            nc_client_define_endpoint(client.handle, "x", #"{"path":"/x","idle_timeout_ms":-1}"#)
                == NC_ERR_INVALID_ARGUMENT)
    }
}
