import Foundation
import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// In-flight coalescing from Swift: `try await send` callers of identical GETs
/// share one transfer; `RequestFlags.noCoalesce` and `Configuration.coalesce`
/// turn it off; a cancelled task leaves the others their result.
@Suite struct CoalescingAsyncTests {
    func client(_ server: MockServer, coalesce: Bool = true) throws -> NetClient {
        try NetClient(
            configuration: Configuration(baseURL: server.baseURL, coalesce: coalesce, envelope: EnvelopeSchema())
                .validated())
    }

    /// How many requests for `path` the server saw (its /_stats counters).
    func hits(_ server: MockServer, _ path: String) throws -> Int {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let (r, _) = try c.sendSync(try Request(method: "GET", target: "/_stats")).get()
        let text = try #require(r?.body.text)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let paths = try #require(object?["paths"] as? [String: Any])
        return paths[path] as? Int ?? 0
    }

    /// Sends `request` from `count` tasks at once; the responses, or the errors.
    func sendAll(_ c: NetClient, _ request: Request, count: Int) async -> [Result<Response, NetError>] {
        await withTaskGroup(of: Result<Response, NetError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do throws(NetError) { return .success(try await c.send(request)) } catch { return .failure(error) }
                }
            }
            var all: [Result<Response, NetError>] = []
            for await r in group { all.append(r) }
            return all
        }
    }

    @Test func twentyConcurrentSendsShareOneTransferAndOneResponse() async throws {
        let server = try MockServer()
        defer { server.stop() }
        let c = try client(server)
        defer { c.shutdown() }
        let results = await sendAll(c, try Request(method: "GET", target: "/slow?ms=500"), count: 20)
        let responses = results.compactMap { try? $0.get() }
        #expect(responses.count == 20)
        #expect(responses.allSatisfy { $0 === responses[0] })
        #expect(try hits(server, "/slow") == 1)
    }

    @Test func theFlagAndTheConfigurationSendEveryRequest() async throws {
        let server = try MockServer()
        defer { server.stop() }
        let c = try client(server)
        defer { c.shutdown() }
        var flagged = try Request(method: "GET", target: "/slow?ms=50")
        flagged.flags = [.noCoalesce]
        let results = await sendAll(c, flagged, count: 20)
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(try hits(server, "/slow") == 20)

        let off = try client(server, coalesce: false)
        defer { off.shutdown() }
        let more = await sendAll(off, try Request(method: "GET", target: "/slow?ms=50"), count: 20)
        #expect(more.allSatisfy { (try? $0.get()) != nil })
        #expect(try hits(server, "/slow") == 40)
    }

    @Test func aCancelledTaskThrowsCancelledAndTheOthersGetTheResponse() async throws {
        let server = try MockServer()
        defer { server.stop() }
        let c = try client(server)
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/slow?ms=800")
        let first = Task { () async -> Result<Response, NetError> in
            do throws(NetError) { return .success(try await c.send(request)) } catch { return .failure(error) }
        }
        let others = (0..<4).map { _ in
            Task { () async -> Result<Response, NetError> in
                do throws(NetError) { return .success(try await c.send(request)) } catch { return .failure(error) }
            }
        }
        // Cancel the first task once all five wait on the shared transfer.
        for _ in 0..<1000 where c.coalescing.callerCount < 5 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(c.coalescing.callerCount == 5)
        first.cancel()
        guard case .failure(let e) = await first.value else {
            Issue.record("the cancelled task succeeded")
            return
        }
        #expect(e.isCancelled)
        for t in others { #expect((try? await t.value.get())?.status == 200) }
        #expect(try hits(server, "/slow") == 1)
    }
}
