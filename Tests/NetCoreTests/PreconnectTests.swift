import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// `NetClient.preconnect(_:completion:)` (NetClient+Preconnect.swift): the connection
/// it makes is the one the first request uses; refusals throw with nothing sent.
@Suite struct PreconnectTests {
    struct Stats: Decodable { let connections: Int; let total: Int }

    @Test func theFirstRequestUsesThePreconnectedConnection() async throws {
        let server = try MockServer()   // its own: the connection count is the test's
        defer { server.stop() }
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let error: NetError? = await withCheckedContinuation { k in
            do throws(NetError) { try c.preconnect("/echo?warm=1") { k.resume(returning: $0) } } catch {
                k.resume(returning: error)
            }
        }
        #expect(error == nil)
        _ = try await c.send(try Request(method: "GET", target: "/echo?first=1"))
        let stats = try await c.send(try Request(method: "GET", target: "/_stats")).decode(Stats.self)
        #expect(stats.connections == 1)   // the preconnect's, used by both requests
        #expect(stats.total == 2)   // the HEAD and the GET (/_stats is not counted)
    }

    @Test func anHTTPErrorStillConnectsAndADeadHostFails() async throws {
        let server = try MockServer()
        defer { server.stop() }
        let c = try NetClient(json: "{}")
        defer { c.shutdown() }
        let missing: NetError? = await withCheckedContinuation { k in
            do throws(NetError) {
                try c.preconnect(server.baseURL + "/no/such/route") { k.resume(returning: $0) }
            } catch { k.resume(returning: error) }
        }
        #expect(missing == nil)   // a 404: the server answered
        server.stop()
        let dead: NetError? = await withCheckedContinuation { k in
            do throws(NetError) { try c.preconnect(server.baseURL + "/") { k.resume(returning: $0) } } catch {
                k.resume(returning: error)
            }
        }
        #expect(dead?.domain == .transport)
        #expect(dead?.code == 7)
    }

    @Test func refusalsThrowAndSendNothing() throws {
        let bare = try NetClient(json: "{}")
        defer { bare.shutdown() }
        for target in ["/relative", "ftp://127.0.0.1/x", "http://127.0.0.1:99999/", ""] {
            do throws(NetError) {
                try bare.preconnect(target) { _ in Issue.record("completion of a refused preconnect") }
                Issue.record("\(target) accepted")
            } catch {
                #expect(error.domain == .client)
                #expect(error.code == NetError.ClientCode.invalidRequest.rawValue)
            }
        }
    }
}
