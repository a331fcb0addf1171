import CCurlShim
import Testing

@testable import NetCore

/// Request signing (Signing.swift, docs/signing.md) and the per-attempt adapter
/// chain (AdapterChain.swift), without a server.
@Suite struct SigningTests {
    // The test vector of docs/signing.md, reproduced exactly.
    static let secret = "test-secret"
    static let url = "https://api.example.com/v1/orders?b=x%20y&a=1&a=0"
    static let body = #"{"item":"book","qty":2}"#
    static let bodyHash = "6383114cff22e5f82e81e96fbe30c7239424b9ed893e27fea7eb67532aa03fb9"
    static let stringToSign = "POST\n/v1/orders\na=0&a=1&b=x%20y\n\(bodyHash)\n1700000000"
    static let signature = "8690d3933ab290eb44308ff799c5e99a18457c71e7a915000b0d1ff7ae6e1d59"

    @Test func theDocumentedVectorIsReproduced() throws {
        let (path, query) = try #require(RequestSigning.pathAndQuery(Self.url))
        #expect(path == "/v1/orders")
        #expect(query == "b=x%20y&a=1&a=0")
        let bytes = Array(Self.body.utf8)
        let hash = bytes.withUnsafeBytes { RequestSigning.sha256Hex($0) }
        #expect(hash == Self.bodyHash)
        let text = RequestSigning.stringToSign(
            method: "POST", path: path, query: query,
            bodySHA256: Self.bodyHash, timestamp: "1700000000")
        #expect(text == Self.stringToSign)
        #expect(RequestSigning.hmacHex(secret: Self.secret, message: text) == Self.signature)

        var out = OutgoingRequest(
            method: "POST", url: Self.url, body: NetBytes(Self.body), attempt: 1,
            headers: HeaderFields())
        let e = RequestSigning.sign(&out, .init(secret: Self.secret), timestamp: 1_700_000_000)
        #expect(e == nil)
        #expect(out.header("X-Timestamp") == "1700000000")
        #expect(out.header("X-Signature") == Self.signature)
    }

    @Test func anEmptyBodyHashesTheEmptyString() {
        #expect(
            RequestSigning.sha256Hex(UnsafeRawBufferPointer(start: nil, count: 0))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func theQueryIsSortedBytewiseByNameThenValue() {
        #expect(RequestSigning.sortedQuery("") == "")
        #expect(RequestSigning.sortedQuery("b=2&a=1&&a=0&B=9&flag") == "B=9&a=0&a=1&b=2&flag")
        #expect(RequestSigning.sortedQuery("a%20b=1&a=2") == "a=2&a%20b=1")
    }

    final class Counting: RequestAdapter, @unchecked Sendable {
        var calls: [Int32] = []
        func adapt(_ request: inout OutgoingRequest) throws(NetError) {
            calls.append(request.attempt)
            try request.setHeader("X-Attempt", String(request.attempt))
        }
    }

    @Test func adaptersAndSigningRunAgainForEveryAttempt() throws {
        let c = try NetClient(json: #"{"base_url":"http://h.test/api","signing":{"secret":"s"}}"#)
        defer { c.shutdown() }
        let counting = Counting()
        c.addAdapter(counting)
        try c.setToken("t1")
        let t = c.transfer(try Request(method: "GET", target: "/x")) { _, _, _ in }
        #expect(t.beginAttempt(now: 0) == nil)
        #expect(t.prepared?.headers["X-Attempt"] == "1")
        #expect(t.prepared?.headers["Authorization"] == "Bearer t1")
        #expect(t.prepared?.headers["X-Signature"]?.utf8.count == 64)
        #expect(t.prepared !== t.original)
        try c.setToken("t2")   // the current token, per attempt
        #expect(t.beginAttempt(now: 0) == nil)
        #expect(t.prepared?.headers["X-Attempt"] == "2")
        #expect(t.prepared?.headers["Authorization"] == "Bearer t2")
        #expect(counting.calls == [1, 2])
        #expect(t.original?.headers["Authorization"] == nil)   // the original is never changed
    }

    final class Refusing: RequestAdapter {
        func adapt(_ request: inout OutgoingRequest) throws(NetError) { throw .adapterFailed("no way") }
    }

    @Test func aFailingAdapterFailsTheAttempt() throws {
        let c = try NetClient(json: #"{"base_url":"http://h.test/api"}"#)
        defer { c.shutdown() }
        c.addAdapter(Refusing())
        let t = c.transfer(try Request(method: "GET", target: "/x")) { _, _, _ in }
        let e = try #require(t.beginAttempt(now: 0))
        #expect(e.domain == .client && e.code == NetError.ClientCode.adapterFailed.rawValue)
        #expect(e.message == "no way")
        #expect(e.attempts == 0)
    }

    @Test func nothingConfiguredInstallsNoPreparer() throws {
        let c = try NetClient(json: #"{"base_url":"http://h.test/api","common_params":{"app":"shop"}}"#)
        defer { c.shutdown() }
        let t = c.transfer(try Request(method: "GET", target: "/x")) { _, _, _ in }
        #expect(t.preparer == nil)
        #expect(t.beginAttempt(now: 0) == nil)
        #expect(t.prepared === t.original)
        #expect(t.prepared.map { String(cString: $0.url.pointer) } == "http://h.test/api/x?app=shop")
    }

    @Test func signingConfigIsCheckedWithoutEchoingTheSecret() {
        for (json, key) in [
            (#"{"signing":{"header":"X-S"}}"#, "signing.secret"),
            (#"{"signing":{"secret":"hush","nope":1}}"#, "signing.nope"),
            (#"{"signing":{"secret":"hush","header":"bad header"}}"#, "signing.header"),
            (#"{"common_params":{"a":[1]}}"#, "common_params.a"),
            (#"{"common_params":3}"#, "common_params")
        ] {
            guard case .failure(let e) = Configuration.parse(json: json) else {
                Issue.record("\(json) accepted"); continue
            }
            #expect(e.message.contains("'\(key)'"), "\(e.message)")
            #expect(!e.message.contains("hush"))
        }
    }
}
