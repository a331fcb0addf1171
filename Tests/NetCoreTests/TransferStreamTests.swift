import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

#if canImport(Glibc)
import Glibc
#endif

/// The Swift forms of progress and streamed bodies (docs/transfers.md) against the
/// loopback server: `NetClient.bytes(for:)` (an AsyncSequence of chunks) and
/// `Request.setProgress`.
@Suite struct TransferStreamTests {
    let server = MockServer.shared

    func client() throws -> NetClient {
        try NetClient(configuration: Configuration(baseURL: server.baseURL, envelope: nil).validated())
    }

    func content(_ n: Int) -> [UInt8] { (0..<n).map { UInt8($0 % 251) } }

    @Test func bytesYieldsTheWholeBodyInOrder() async throws {
        let c = try client()
        defer { c.shutdown() }
        let n = 2_000_000
        var got: [UInt8] = []
        var chunks = 0
        for try await chunk in c.bytes(for: try Request(method: "GET", target: "/dl/file?key=sw&bytes=\(n)")) {
            got += chunk
            chunks += 1
        }
        #expect(got == content(n))
        #expect(chunks > 1)
    }

    @Test func bytesThrowsTheHTTPError() async throws {
        let c = try client()
        defer { c.shutdown() }
        do {
            for try await _ in c.bytes(for: try Request(method: "GET", target: "/status/404?body=text")) {}
            Issue.record("expected an error")
        } catch let e as NetError {
            #expect(e.domain == .http)
            #expect(e.code == 404)
        }
    }

    @Test func stoppingEarlyCancelsTheTransferAndTheClientGoesOn() async throws {
        let c = try client()
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/dl/file?key=swc&bytes=50000000&stall_after=100000")
        var seen = 0
        for try await chunk in c.bytes(for: request) {
            seen += chunk.count
            break
        }
        #expect(seen > 0)
        let r = try await c.send(Request(method: "GET", target: "/dl/file?key=swd&bytes=10"))
        #expect(r.status == 200)
    }

    @Test func aSlowConsumerPausesTheTransferAndGetsEveryByte() async throws {
        let c = try client()
        defer { c.shutdown() }
        let n = 40_000_000
        let log = ProgressValues()
        var request = try Request(method: "GET", target: "/dl/file?key=swslow&bytes=\(n)")
        request.setProgress { log.add($0) }
        var got: [UInt8] = []
        got.reserveCapacity(n)
        var ahead = 0
        for try await chunk in c.bytes(for: request, bufferBytes: 65536) {
            got += chunk
            // How far the transfer ran ahead of this consumer: the buffer, a chunk,
            // and what the kernel's socket buffers hold — never the whole body.
            ahead = max(ahead, Int(log.values.last?.downloaded ?? 0) - got.count)
            usleep(1000)   // a consumer slower than loopback
        }
        #expect(got == content(n))
        #expect(ahead < 16_000_000, "the transfer was paused, not buffered: \(ahead) bytes ahead")
    }

    @Test func anotherRequestCompletesWhileAStreamIsPaused() async throws {
        let c = try client()
        defer { c.shutdown() }
        let n = 20_000_000
        var iterator = c.bytes(
            for: try Request(method: "GET", target: "/dl/file?key=swp2&bytes=\(n)"), bufferBytes: 32768
        )
        .makeAsyncIterator()
        var got = try await iterator.next() ?? []
        let other = try await c.send(Request(method: "GET", target: "/dl/file?key=swo&bytes=1000"))
        #expect(Array(other.body.bytes) == content(1000))
        while let chunk = try await iterator.next() { got += chunk }
        #expect(got == content(n))
    }

    @Test func streamedHandsTheHeadOverBeforeAnyBodyByte() async throws {
        let c = try client()
        defer { c.shutdown() }
        // Headers, then nothing: the head is there all the same.
        let (head, body) = try await c.streamed(
            try Request(method: "GET", target: "/dl/file?key=swh&bytes=1000&stall_after=0"))
        #expect(head.status == 200)
        #expect(head.headers.value("etag") == "\"swh-1000-v1\"")
        #expect(head.body.bytes.isEmpty)
        _ = body   // dropped: the transfer is cancelled
        let (h2, b2) = try await c.streamed(try Request(method: "GET", target: "/dl/file?key=swh2&bytes=300000"))
        var got: [UInt8] = []
        for try await chunk in b2 { got += chunk }
        #expect(h2.status == 200 && got == content(300_000))
        do {
            _ = try await c.streamed(try Request(method: "GET", target: "/status/404?body=text"))
            Issue.record("expected an error")
        } catch let e as NetError {
            #expect(e.domain == .http && e.code == 404)
        }
    }

    @Test func progressClosureSeesTheWholeBodyMonotonically() async throws {
        let c = try client()
        defer { c.shutdown() }
        let n = 3_000_000
        let log = ProgressValues()
        var request = try Request(method: "GET", target: "/dl/file?key=swp&bytes=\(n)")
        request.setProgress { log.add($0) }
        let r = try await c.send(request)
        #expect(r.status == 200)
        let values = log.values
        #expect(!values.isEmpty)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.downloaded <= $1.downloaded })
        #expect(
            values.last == TransferProgress(downloaded: Int64(n), downloadTotal: Int64(n), uploaded: 0, uploadTotal: 0))
    }
}

final class ProgressValues: @unchecked Sendable {
    private let lock = Lock()
    private var stored: [TransferProgress] = []
    func add(_ p: TransferProgress) { lock.withLock { stored.append(p) } }
    var values: [TransferProgress] { lock.withLock { stored } }
}
