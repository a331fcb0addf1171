import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// `NetClient.batch(_:policy:)`: results in order, fail-fast, cancellation of the
/// awaiting task, and batches inside a TaskGroup, against the loopback server.
@Suite struct BatchCoreTests {
    func client() throws -> NetClient {
        try NetClient(json: #"{"base_url":"\#(MockServer.shared.baseURL)","envelope":{}}"#)
    }

    @Test func resultsComeInTheOrderGiven() async throws {
        let c = try client()
        defer { c.shutdown() }
        let requests = try ["/slow?ms=100", "/status/404", "/env/code/ok"].map {
            try Request(method: "GET", target: $0)
        }
        let results = await c.batch(requests)
        #expect(results.count == 3)
        #expect((try? results[0].get())?.status == 200)
        guard case .failure(let e) = results[1] else {
            Issue.record("404 succeeded")
            return
        }
        #expect(e.domain == .http && e.code == 404 && e.response?.status == 404)
        #expect((try? results[2].get())?.status == 200)
        #expect(await c.batch([]).isEmpty)
    }

    @Test func failFastCancelsTheOthers() async throws {
        let c = try client()
        defer { c.shutdown() }
        let requests = try ["/slow?ms=10000", "/status/500", "/slow?ms=10000"].map {
            try Request(method: "GET", target: $0)
        }
        let results = await c.batch(requests, policy: .failFast)
        let codes = results.map { r -> Int64 in
            if case .failure(let e) = r { return e.domain == .client ? -e.code : e.code }
            return 0
        }
        #expect(codes == [-NetError.ClientCode.cancelled.rawValue, 500, -NetError.ClientCode.cancelled.rawValue])
    }

    @Test func cancellingTheTaskCancelsTheMembers() async throws {
        let c = try client()
        defer { c.shutdown() }
        let requests = try (0..<3).map { _ in try Request(method: "GET", target: "/slow?ms=10000") }
        let task = Task { await c.batch(requests) }
        try await Task.sleep(nanoseconds: 100_000_000)
        task.cancel()
        let results = await task.value
        #expect(results.count == 3)
        for r in results {
            guard case .failure(let e) = r else {
                Issue.record("a member succeeded")
                continue
            }
            #expect(e.isCancelled, "\(e)")
        }
    }

    @Test func batchesInATaskGroup() async throws {
        let c = try client()
        defer { c.shutdown() }
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 1...4 {
                let requests = try (0..<n).map { _ in try Request(method: "GET", target: "/echo") }
                group.addTask { await c.batch(requests).filter { (try? $0.get()) != nil }.count }
            }
            return try await group.reduce(0, +)
        }
        #expect(counts == 10)
    }
}
