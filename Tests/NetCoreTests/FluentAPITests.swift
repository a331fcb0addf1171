import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The fluent Swift surface against the loopback mock server: the non-throwing
/// request chain, params from `Encodable` values and dictionary literals (as the
/// server received them: /echo describes the request), decoding at a key path, a
/// decoding failure through the client's error handler, and the progress sequence.
@Suite struct FluentAPITests {
    let server = MockServer.shared

    func client(_ envelope: EnvelopeSchema? = EnvelopeSchema()) throws -> NetClient {
        try NetClient(configuration: Configuration(baseURL: server.baseURL, envelope: envelope).validated())
    }

    struct User: Codable, Equatable {
        let id: Int
        let name: String
    }

    struct Address: Encodable {
        let city: String
        let zip: String?
    }

    struct NewUser: Encodable {
        let name: String
        let nickname: String?
        let age: Int
        let tags: [String]
        let address: Address
    }

    /// The result of a send, without a do/catch at every call site.
    func outcome(_ c: NetClient, _ chain: Request.Chain) async -> Result<Response, NetError> {
        do throws(NetError) {
            return .success(try await c.send(chain))
        } catch {
            return .failure(error)
        }
    }

    // MARK: the chain

    @Test func theChainBuildsWhatTheSettersWouldAndSendsIt() async throws {
        let c = try client()
        defer { c.shutdown() }
        let chain = Request.get("/echo").header("X-A", "1").timeout(.seconds(5))
            .query(["page": 2, "tag": ["a", "b"], "skip": nil, "none": .null])
        let built = try chain.build()
        #expect(built.method == .get)
        #expect(built.timeoutMs == 5000)
        #expect(built.headers["X-A"] == "1")
        #expect(built.query.map { "\($0.name)=\($0.value)" } == ["page=2", "tag=a", "tag=b"])

        let r = try await c.send(chain)
        #expect(try r.decode(String.self, at: "raw_path") == "/echo?page=2&tag=a&tag=b")
        #expect(try r.decode(String.self, at: "headers.x-a") == "1")
        #expect(try r.decode(String.self, at: "method") == "GET")
    }

    @Test func aRefusedStepSurfacesAtSendAsTheSettersErrorAndNothingIsSent() async throws {
        let c = try client()
        defer { c.shutdown() }
        let events = Atomic<Int>(0)
        c.eventHandler = { _ in events.add(1, ordering: .relaxed) }

        // The same rule as the throwing setter: same code, same reason.
        var direct = try Request(method: "GET", target: "/echo")
        var setterError: NetError?
        do throws(NetError) { try direct.setHeader("X A", "1") } catch { setterError = error }
        let setter = try #require(setterError)

        let chain = Request.get("/echo").header("X A", "1").query("later", "ignored").timeout(.seconds(1))
        guard case .failure(let e) = await outcome(c, chain) else {
            Issue.record("a chain with a bad header name was sent")
            return
        }
        #expect(e.domain == .client)
        #expect(e.code == NetError.ClientCode.invalidRequest.rawValue)
        #expect(e.code == setter.code)
        #expect(e.message == "header(\"X A\"): \(setter.message)")
        #expect(events.load(ordering: .relaxed) == 0)

        // Each kind of refusal, named by its step.
        #expect(throws: NetError.self) { try Request.get("/echo").timeout(.milliseconds(-1)).build() }
        #expect(throws: NetError.self) { try Request.get("/echo").query(["a", "b"]).build() }
        #expect(throws: NetError.self) { try Request.get("/echo").params([1, 2]).build() }
        #expect(throws: NetError.self) { try Request.get("bad target").build() }
        do throws(NetError) {
            _ = try Request.get("/echo").group("").build()
            Issue.record("an empty group was accepted")
        } catch {
            #expect(error.message.hasPrefix("group: "))
            #expect(error.code == NetError.ClientCode.invalidRequest.rawValue)
        }
        // A step after a refusal changes nothing: the first refusal is kept.
        do throws(NetError) {
            _ = try Request.get("/echo").timeout(.seconds(-2)).header("X A", "1").build()
        } catch {
            #expect(error.message.hasPrefix("timeout("))
        }
    }

    @Test func timeoutsRoundUpToWholeMilliseconds() throws {
        #expect(try Request.get("/x").timeout(.microseconds(1500)).build().timeoutMs == 2)
        #expect(try Request.get("/x").timeout(.zero).build().timeoutMs == 0)
        #expect(throws: NetError.self) { try Request.get("/x").timeout(.seconds(Int64.max)).build() }
    }

    // MARK: params on the wire

    @Test func encodableParamsAsAJSONBodyLeaveNilOut() async throws {
        let c = try client()
        defer { c.shutdown() }
        let user = NewUser(
            name: "Ada", nickname: nil, age: 36, tags: ["x", "y"], address: Address(city: "London", zip: nil))
        let r = try await c.send(Request.post("/echo").json(user))
        let json = try #require(JSONValueDecoderProbe.member(r, "json"))
        #expect(json == #"{"name":"Ada","age":36,"tags":["x","y"],"address":{"city":"London"}}"#)
        #expect(try r.decode(String.self, at: "headers.content-type").hasPrefix("application/json"))
    }

    @Test func encodableParamsAsAFormAndAQuery() async throws {
        let c = try client()
        defer { c.shutdown() }
        let user = NewUser(
            name: "Ada L", nickname: nil, age: 36, tags: ["x", "y"], address: Address(city: "Paris", zip: "75001"))
        let form = try await c.send(Request.post("/echo").params(user))
        #expect(
            try form.decode([String: [String]].self, at: "form") == [
                "name": ["Ada L"], "age": ["36"], "tags": ["x", "y"], "address[city]": ["Paris"],
                "address[zip]": ["75001"]
            ])
        let query = try await c.send(Request.get("/echo").params(user))
        #expect(
            try query.decode(String.self, at: "raw_path")
                == "/echo?name=Ada%20L&age=36&tags=x&tags=y&address%5Bcity%5D=Paris&address%5Bzip%5D=75001")
    }

    @Test func dictionaryLiteralParamsLeaveNilOutAndSendNull() async throws {
        let c = try client()
        defer { c.shutdown() }
        let nickname: String? = nil
        let r = try await c.send(
            Request.patch("/echo")
                .params(["name": "Ada", "nickname": nickname.map { JSONValue($0) }, "bio": .null, "n": 1.5, "vip": true]
                )
                .encoding(.json))
        let json = try #require(JSONValueDecoderProbe.member(r, "json"))
        #expect(json == #"{"name":"Ada","bio":null,"n":1.5,"vip":true}"#)
    }

    @Test func encodingARefusedValueIsAClientError() throws {
        struct Bad: Encodable { let x: Double }
        do throws(NetError) {
            _ = try Request.post("/echo").json(Bad(x: .nan)).build()
            Issue.record("NaN was encoded")
        } catch {
            #expect(error.code == NetError.ClientCode.invalidRequest.rawValue)
            #expect(error.message.contains("params.x"))
        }
        // Not an object: params must be one.
        #expect(throws: NetError.self) { try Request.post("/echo").json([1, 2]).build() }
    }

    // MARK: decoding at a key path

    @Test func decodeAtAKeyPath() async throws {
        let c = try client()
        defer { c.shutdown() }
        // Envelope mode: the path starts inside the envelope's data.
        #expect(try await c.decode(User.self, from: Request.get("/users/7")) == User(id: 7, name: "Ada"))
        #expect(try await c.decode(String.self, from: Request.get("/users/7"), at: "name") == "Ada")
        let r = try await c.send(
            Request.post("/echo").json(["user": ["id": 7, "name": "Ada"], "items": [["price": 1.5]]] as JSONValue))
        #expect(try r.decode(User.self, at: "json.user") == User(id: 7, name: "Ada"))
        #expect(try r.decode(Double.self, at: "json.items[0].price") == 1.5)

        // Raw mode: the path starts at the body ("data.user" of a body {"data": {...}}).
        let raw = try client(nil)
        defer { raw.shutdown() }
        #expect(
            try await raw.decode(User.self, from: Request.get("/env/code/ok"), at: "data") == User(id: 7, name: "Ada"))
        let list = try await raw.send(Request.get("/array"))
        #expect(try list.decode(Int.self, at: "[2]") == 3)

        // Failures name the path.
        func message(_ body: () throws(NetError) -> Void) -> String {
            do throws(NetError) {
                try body()
                return "no error"
            } catch {
                #expect(error.domain == .parse)
                #expect(error.code == NetError.ParseCode.decodingFailed.rawValue)
                #expect(error.httpStatus == 200)
                return error.message
            }
        }
        #expect(
            message { () throws(NetError) in _ = try r.decode(User.self, at: "json.nobody") }.contains(
                "data.json.nobody: key not found"))
        #expect(
            message { () throws(NetError) in _ = try r.decode(Int.self, at: "json.user.name") }.contains(
                "data.json.user.name: expected Int, found string"))
        #expect(
            message { () throws(NetError) in _ = try r.decode(User.self, at: "json.items[3]") }.contains(
                "data.json.items[3]: index out of range (1 items)"))
        #expect(
            message { () throws(NetError) in _ = try r.decode(User.self, at: "json.user[0]") }.contains(
                "data.json.user[0]: expected array, found object"))
        #expect(
            message { () throws(NetError) in _ = try r.decode(User.self, at: "json..user") }.contains(
                "is not a key path"))
        #expect(
            message { () throws(NetError) in _ = try r.decode(User.self, at: "json.items[x]") }.contains(
                "is not a key path"))
    }

    // MARK: decoding failures reach the error handler

    @Test func aDecodingFailureReachesTheErrorHandlerOnce() async throws {
        struct Wrong: Decodable { let id: String }
        let c = try client()
        defer { c.shutdown() }
        let seen = Mutex<[(Int32?, Int64, String)]>([])
        c.errorHandler = { response, error in
            seen.withLock { $0.append((response?.status, error.code, error.message)) }
        }
        var thrown: NetError?
        do throws(NetError) {
            _ = try await c.decode(Wrong.self, from: Request.get("/users/7"))
        } catch {
            thrown = error
        }
        let error = try #require(thrown)
        #expect(error.domain == .parse)
        let calls = seen.withLock { $0 }
        #expect(calls.count == 1)
        #expect(calls.first?.0 == 200)
        #expect(calls.first?.1 == NetError.ParseCode.decodingFailed.rawValue)
        #expect(calls.first?.2 == error.message)
        #expect(error.message.contains("data.id: expected String, found integer"))

        // A success does not call it; .skipErrorHandler keeps a failure from it.
        _ = try await c.decode(User.self, from: Request.get("/users/7"))
        do throws(NetError) {
            _ = try await c.decode(Wrong.self, from: Request.get("/users/7").flags(.skipErrorHandler))
        } catch {}
        #expect(seen.withLock { $0.count } == 1)
    }

    // MARK: progress as an AsyncSequence

    @Test func progressYieldsUpdatesThenTheResponse() async throws {
        let c = try client(nil)
        defer { c.shutdown() }
        var updates: [TransferUpdate] = []
        for try await update in c.progress(for: try Request.get("/large?bytes=300000").build()) {
            updates.append(update)
        }
        guard case .response(let r) = updates.last else {
            Issue.record("the last update is not the response")
            return
        }
        #expect(r.body.count == 300_000)
        let progress = updates.compactMap { u -> TransferProgress? in
            if case .progress(let p) = u { return p } else { return nil }
        }
        #expect(updates.count == progress.count + 1)
        #expect(progress.last?.downloaded == 300_000)
        #expect(progress.map(\.downloaded) == progress.map(\.downloaded).sorted())
    }

    @Test func progressThrowsTheRequestsError() async throws {
        let c = try client()
        defer { c.shutdown() }
        var last: TransferUpdate?
        do {
            for try await update in c.progress(for: try Request.get("/users/99").build()) { last = update }
            Issue.record("no error thrown")
        } catch let e as NetError {
            #expect(e.domain == .api)
            #expect(e.code == 404001)
        }
        if case .response = last { Issue.record("a failed request yielded a response") }
    }
}

/// The value at a key path of a response's data, as compact JSON text.
enum JSONValueDecoderProbe {
    static func member(_ r: Response, _ keyPath: String) -> String? {
        guard let data = r.dataPointer, case .success(let (_, v)) = Response.value(at: keyPath, in: .init(data))
        else { return nil }
        return JSONValue.dump(v)
    }
}
