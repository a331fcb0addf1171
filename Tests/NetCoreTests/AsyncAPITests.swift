import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

#if canImport(Glibc)
import Glibc
#endif

/// `try await client.send(_:)` against the real loopback server: one test per
/// error domain, Swift task cancellation (before and during the transfer), shutdown.
@Suite struct AsyncAPITests {
    let server = MockServer.shared

    func client(_ envelope: EnvelopeSchema? = EnvelopeSchema(), baseURL: String? = nil) throws -> NetClient {
        try NetClient(configuration: Configuration(baseURL: baseURL ?? server.baseURL, envelope: envelope).validated())
    }

    /// The outcome of one async send, without a do/catch at every call site.
    func outcome(_ c: NetClient, _ method: String = "GET", target: String) async throws -> Result<Response, NetError> {
        let request = try Request(method: method, target: target)
        do throws(NetError) {
            return .success(try await c.send(request))
        } catch {
            return .failure(error)
        }
    }

    func failure(_ c: NetClient, _ target: String) async throws -> NetError {
        switch try await outcome(c, target: target) {
        case .success(let r):
            Issue.record("expected an error, got status \(r.status) with \(r.body.text)")
            return NetError.internalError("unexpected success")
        case .failure(let e):
            return e
        }
    }

    // MARK: results per domain

    @Test func successReturnsTheResponse() async throws {
        let c = try client()
        defer { c.shutdown() }
        let r = try await c.send(Request(method: "GET", target: "/env/code/ok"))
        #expect(r.status == 200)
        #expect(r.data?.text == #"{"id":7,"name":"Ada"}"#)
        #expect(r.headers.value("Content-Type")?.hasPrefix("application/json") == true)
    }

    @Test func outputPathStreamsTheBodyToAFileAndSyncDoesToo() async throws {
        let c = try client()
        defer { c.shutdown() }
        let path = "/tmp/nc-swift-out-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).bin"
        defer { unlink(path) }
        var request = try Request(method: "GET", target: "/large?bytes=200000")
        try request.setOutputPath(path)
        let r = try await c.send(request)
        #expect(r.status == 200)
        #expect(r.body.count == 0)
        var st = stat()
        #expect(stat(path, &st) == 0)
        #expect(st.st_size == 200_000)
        // The same request again, synchronously: the file is written anew.
        try request.setOutputPath(path)
        guard case .success(let (response, error)) = c.sendSync(request) else {
            Issue.record("sync send refused")
            return
        }
        #expect(error == nil)
        #expect(response?.body.count == 0)
        #expect(stat(path, &st) == 0)
        #expect(st.st_size == 200_000)
    }

    @Test func apiErrorCarriesCodeMessageDataAndTheResponse() async throws {
        let c = try client()
        defer { c.shutdown() }
        let e = try await failure(c, "/env/code/fail")
        #expect(e.domain == .api)
        #expect(e.code == 1001)
        #expect(e.message == "wrong password")
        #expect(e.data?.text == #"{"field":"password"}"#)
        #expect(e.httpStatus == 200)
        #expect(e.matches(.api, code: 1001))
        let response = try #require(e.response)
        #expect(response.status == 200)
        #expect(response.body.text.contains("wrong password"))
    }

    @Test func apiErrorCarriesTheTraceID() async throws {
        let c = try client(EnvelopeSchema(successField: "success"))
        defer { c.shutdown() }
        let e = try await failure(c, "/env/success/fail")
        #expect(e.domain == .api)
        #expect(e.code == 4003)
        #expect(e.message == "forbidden")
        #expect(e.traceID == "trace-fail-1")
        let ok = try await c.send(Request(method: "GET", target: "/env/success/ok"))
        #expect(ok.data?.text == #"{"id":42}"#)
    }

    @Test func httpErrorCarriesStatusAndResponse() async throws {
        let c = try client()
        defer { c.shutdown() }
        let e = try await failure(c, "/status/404")
        #expect(e.domain == .http)
        #expect(e.code == 404)
        #expect(e.httpStatus == 404)
        #expect(e.response?.status == 404)
        #expect(e.response?.body.text == #"{"error":"status 404"}"#)
        #expect(e.body?.text == #"{"error":"status 404"}"#)
    }

    @Test func connectionRefusedIsTransport7WithoutResponse() async throws {
        let c = try client(baseURL: "http://127.0.0.1:1")
        defer { c.shutdown() }
        let e = try await failure(c, "/x")
        #expect(e.domain == .transport)
        #expect(e.code == 7)
        #expect(e.isRetryable)
        #expect(e.response == nil)
    }

    @Test func textBodyIsAParseError() async throws {
        let c = try client()
        defer { c.shutdown() }
        let e = try await failure(c, "/text")
        #expect(e.domain == .parse)
        #expect(e.code == NetError.ParseCode.invalidJSON.rawValue)
        #expect(e.response?.body.text == "hello, world")
    }

    @Test func invalidRequestIsAClientError() async throws {
        let c = try NetClient(configuration: Configuration(baseURL: nil, envelope: EnvelopeSchema()))
        defer { c.shutdown() }
        let e = try await failure(c, "/relative/without/base")
        #expect(e.domain == .client)
        #expect(e.code == NetError.ClientCode.invalidRequest.rawValue)
    }

    // MARK: cancellation

    @Test func cancellingTheTaskCancelsASlowTransfer() async throws {
        let c = try client()
        defer { c.shutdown() }
        // The server holds the answer 60 s (the client's idle limit ends it at 15 s):
        // with 5 s, a run under ThreadSanitizer on a saturated machine saw the answer
        // arrive before this task got to cancel.
        let request = try Request(method: "GET", target: "/slow?ms=60000")
        let task = Task { try await c.send(request) }
        try await Task.sleep(for: .milliseconds(200))   // the transfer is running by now
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result, let e = error as? NetError else {
            Issue.record("expected NetError.cancelled, got \(result)")
            return
        }
        #expect(e.isCancelled)
        #expect(e.domain == .client)
        #expect(e.code == NetError.ClientCode.cancelled.rawValue)
    }

    @Test func aTaskCancelledBeforeSendingSendsNothing() async throws {
        let c = try client()
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/slow?ms=5000")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await c.send(request)
        }
        let result = await task.result
        guard case .failure(let error) = result, let e = error as? NetError else {
            Issue.record("expected NetError.cancelled, got \(result)")
            return
        }
        #expect(e.isCancelled)
        #expect(e.attempts == 0)
    }

    @Test func aTaskCancelledRightAfterCreationEndsCancelled() async throws {
        let c = try client()
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/slow?ms=5000")
        let task = Task { try await c.send(request) }
        task.cancel()
        let result = await task.result
        guard case .failure(NetError.cancelled) = result else {
            Issue.record("expected NetError.cancelled, got \(result)")
            return
        }
    }

    /// Cancels at many points around `send`, including before the transfer exists:
    /// every task ends exactly once, cancelled. The server holds the answer 30 s
    /// (it lets go at once when the suite stops it): with 3 s, a machine loaded
    /// enough to delay a cancelling task that long saw the answer arrive first.
    @Test func cancelRacingTheStartAlwaysEndsCancelled() async throws {
        let c = try client()
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/slow?ms=30000")
        let cancelled = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<40 {
                let task = Task { try await c.send(request) }
                group.addTask {
                    for _ in 0..<(i % 8) { await Task.yield() }
                    task.cancel()
                    if case .failure(NetError.cancelled) = await task.result { return true }
                    return false
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(cancelled == 40)
    }

    /// `Task.cancel()` called on the client's transfer thread (inside another
    /// request's completion) must neither deadlock nor complete inline.
    @Test func cancellingFromACompletionCallback() async throws {
        let c = try client()
        defer { c.shutdown() }
        let slow = try Request(method: "GET", target: "/slow?ms=60000")   // 60 s: as above
        let task = Task { try await c.send(slow) }
        try await Task.sleep(for: .milliseconds(100))
        _ = c.send(try Request(method: "GET", target: "/env/code/ok")) { _, _ in task.cancel() }
        let result = await task.result
        guard case .failure(NetError.cancelled) = result else {
            Issue.record("expected NetError.cancelled, got \(result)")
            return
        }
    }

    @Test func cancellingAfterCompletionKeepsTheResult() async throws {
        let c = try client()
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/env/code/ok")
        let task = Task { try await c.send(request) }
        let response = try await task.value
        task.cancel()
        #expect(response.status == 200)
    }

    // MARK: shutdown and concurrency

    @Test func sendingOnAShutDownClientThrowsShutdown() async throws {
        let c = try client()
        c.shutdown()
        let e = try await failure(c, "/env/code/ok")
        #expect(e.isShutdown)
        #expect(e.code == NetError.ClientCode.shutdown.rawValue)
    }

    @Test func shutdownEndsARunningSendWithShutdown() async throws {
        let c = try client()
        let request = try Request(method: "GET", target: "/slow?ms=5000")
        let task = Task { try await c.send(request) }
        try await Task.sleep(for: .milliseconds(100))
        c.shutdown()
        guard case .failure(NetError.shutdown) = await task.result else {
            Issue.record("expected NetError.shutdown")
            return
        }
    }

    @Test func manyConcurrentSendsAllComplete() async throws {
        let c = try client()
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/env/code/ok")
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<50 { group.addTask { try await c.send(request).status } }
            return try await group.reduce(into: [Int32]()) { $0.append($1) }
        }
        #expect(statuses.count == 50)
        #expect(statuses.allSatisfy { $0 == 200 })
    }

    @Test func decodeSendsAndDecodes() async throws {
        struct User: Decodable, Equatable { let id: Int; let name: String }
        let c = try client()
        defer { c.shutdown() }
        let user = try await c.decode(User.self, from: Request(method: "GET", target: "/env/code/ok"))
        #expect(user == User(id: 7, name: "Ada"))
    }

    // MARK: matching helpers

    @Test func patternsMatchDomainAndCode() throws {
        let cancelled: any Error = NetError.cancelled
        #expect(NetError.cancelled ~= cancelled)
        #expect(!(NetError.shutdown ~= cancelled))
        #expect(!(NetError.cancelled ~= RequestErrorProbe()))

        var api = NetError(domain: .api, code: 0, codeString: "E1001", message: "account locked")
        api.httpStatus = 200
        #expect(NetError(domain: .api, code: 0, codeString: "E1001", message: "x") ~= api)
        #expect(!(NetError(domain: .api, code: 0, codeString: "E1002", message: "x") ~= api))
        #expect(api.matches(.api))
        #expect(api.matches(.api, code: 0))
        #expect(!api.matches(.http))

        switch NetError.shutdown {
        case NetError.cancelled: Issue.record("shutdown matched cancelled")
        case NetError.shutdown: break
        default: Issue.record("shutdown did not match itself")
        }
        #expect(NetError.cancelled.isCancelled && !NetError.cancelled.isShutdown)
        #expect(NetError.shutdown.isShutdown && !NetError.shutdown.isCancelled)
    }

    struct RequestErrorProbe: Error {}
}
