import Glibc
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// libcurl's cache of idle connections (CurlTransport.sizeConnectionCache).
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
