import Foundation
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// Stubs from Swift (issue 34 item 7): routes as Swift values and as JSON, each
/// field, sequences and `times`, only vs fallback, the envelope, retry and cache
/// through a stub, `"stubbed"` events, synchronous sends, and a recording made
/// against a private server, which is then stopped, replayed byte for byte.
@Suite struct StubsSwiftTests {
    static let base = "http://api.test/v1"

    func failure(_ c: NetClient, _ target: String) async -> NetError? {
        do throws(NetError) {
            _ = try await c.send(try Request(method: "GET", target: target))
            return nil
        } catch {
            return error
        }
    }

    func client(_ routes: [Stub], _ extra: (inout Configuration) -> Void = { _ in }) throws -> NetClient {
        var config = Configuration()
        config.baseURL = StubsSwiftTests.base
        config.envelope = EnvelopeSchema()
        config.stubs = Configuration.Stubs(routes: routes)
        extra(&config)
        return try NetClient(configuration: config)
    }

    @Test func fieldsEventsAndTheNoStubError() async throws {
        let c = try client([
            Stub("GET", "/v1/users/{id}", .json(200, #"{"code":0,"msg":"ok","data":{"name":"Ada"}}"#)),
            Stub(nil, "/v1/files/*", .status(200, headers: [("X-Kind", "file")], body: "bytes"))
        ])
        defer { c.shutdown() }
        let seen = Mutex<[RequestEvent]>([])
        c.eventHandler = { e in seen.withLock { $0.append(e) } }
        let r = try await c.send(try Request(method: "GET", target: "/users/3"))
        #expect(r.status == 200 && r.data?.text == #"{"name":"Ada"}"#)
        var raw = try Request(method: "PUT", target: "/files/a/b")
        raw.envelope = false
        let file = try await c.send(raw)
        #expect(file.body.text == "bytes" && file.headers.value("X-Kind") == "file")
        #expect(seen.withLock { $0.filter { $0.kind == .requestEnd }.allSatisfy(\.stubbed) })
        #expect(seen.withLock { $0.contains { $0.kind == .requestEnd && $0.json.contains(#""stubbed":true"#) } })

        let e = await failure(c, "/nothing")
        #expect(e?.domain == .client && e?.code == NetError.ClientCode.noStub.rawValue && e?.attempts == 0)
        #expect(
            e?.message
                == #"No stub answers GET http://api.test/v1/nothing ("stubs" mode "only": nothing was sent). Add a route for it (nc_client_add_stub) or set "mode": "fallback" to send unmatched requests to the network."#
        )
        #expect(c.stubHits(path: "/v1/users/{id}") == 1)
    }

    @Test func sequencesTimesRetryAndCache() async throws {
        let ok = #"{"code":0,"msg":"ok","data":"third"}"#
        let c = try client(
            [
                Stub(method: "GET", path: "/v1/flaky", answers: [.status(503), .transport(7), .json(200, ok)]),
                Stub("GET", "/v1/once", .json(200, #"{"code":0,"msg":"ok","data":1}"#), times: 1),
                Stub(
                    "GET", "/v1/cached",
                    .status(
                        200, headers: [("Cache-Control", "max-age=60"), ("Content-Type", "application/json")],
                        body: #"{"code":0,"msg":"ok","data":"kept"}"#), times: 1)
            ],
            { config in
                var retry = RetryPolicy()
                retry.backoff = .immediate
                config.retry = retry
                config.cache = Configuration.Cache()
            })
        defer { c.shutdown() }
        #expect(try await c.send(try Request(method: "GET", target: "/flaky")).data?.text == #""third""#)
        #expect(try await c.send(try Request(method: "GET", target: "/once")).data?.text == "1")
        #expect(await failure(c, "/once")?.code == NetError.ClientCode.noStub.rawValue)
        var cached = try Request(method: "GET", target: "/cached")
        cached.cachePolicy = .cacheElseNetwork
        let first = try await c.send(cached)
        let second = try await c.send(cached)
        #expect(!first.fromCache && second.fromCache && second.data?.text == #""kept""#)
        // A synchronous send is answered from the stubs too.
        let (sync, error) = try c.sendSync(try Request(method: "GET", target: "/flaky")).get()
        #expect(error == nil && sync?.data?.text == #""third""#)
    }

    @Test func addStubFromJSONAndItsRefusals() async throws {
        let c = try client([])
        defer { c.shutdown() }
        try c.addStub(
            json: #"{"method":"POST","path":"/v1/orders","status":201,"body":{"code":0,"msg":"ok","data":5}}"#)
        #expect(try await c.send(try Request(method: "POST", target: "/orders")).data?.text == "5")
        #expect(throws: NetError.self) { try c.addStub(json: #"{"path":"/v1/x","times":0}"#) }
        do throws(NetError) {
            try c.addStub(json: #"{"path":"/v1/x","error":{"client":1}}"#)
            Issue.record("accepted")
        } catch {
            #expect(error.message == "stub: unknown member 'error.client'. Known: transport (a libcurl code, 1-99).")
        }
        let plain = try NetClient(json: "{}")
        defer { plain.shutdown() }
        #expect(!plain.hasStubs)
        #expect(throws: NetError.self) { try plain.addStub(Stub("GET", "/x", .status(200))) }
    }

    @Test func fallbackGoesToTheServer() async throws {
        let server = try MockServer()
        var config = Configuration()
        config.baseURL = server.baseURL
        config.envelope = EnvelopeSchema()
        config.stubs = Configuration.Stubs(
            routes: [Stub("GET", "/users/9", .json(200, #"{"code":0,"msg":"ok","data":"stub"}"#))], mode: .fallback)
        let c = try NetClient(configuration: config)
        defer { c.shutdown() }
        #expect(try await c.send(try Request(method: "GET", target: "/users/9")).data?.text == #""stub""#)
        #expect(
            try await c.send(try Request(method: "GET", target: "/users/7")).data?.text == #"{"id":7,"name":"Ada"}"#)
    }

    @Test func recordThenReplayWithTheServerStopped() async throws {
        let dir = NSTemporaryDirectory() + "nc-stubs-swift-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try MockServer()
        let port = server.port
        var config = Configuration()
        config.baseURL = server.baseURL
        config.headers.set("Authorization", "Bearer TOPSECRET-1")
        config.stubs = Configuration.Stubs(record: dir)
        let recorder = try NetClient(configuration: config)
        let user = try await recorder.send(try Request(method: "GET", target: "/users/7?token=S3CRET-2"))
        let text = try recorder.sendSync(try Request(method: "GET", target: "/text")).get().0
        recorder.shutdown()
        server.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(files.count == 2)
        for f in files {
            let content = try String(contentsOfFile: dir + "/" + f, encoding: .utf8)
            #expect(!content.contains("TOPSECRET") && !content.contains("S3CRET"), "\(f)")
        }
        let replay = try NetClient(
            json: #"{"base_url":"http://127.0.0.1:\#(port)","stubs":{"dir":"\#(dir)"}}"#)
        defer { replay.shutdown() }
        let again = try await replay.send(try Request(method: "GET", target: "/users/7?token=whatever"))
        #expect(again.body.array == user.body.array && again.status == user.status)
        let (textAgain, _) = try replay.sendSync(try Request(method: "GET", target: "/text")).get()
        #expect(textAgain?.body.array == text?.body.array)
    }
}
