import CCurlShim
import Testing

@testable import NetCore
@testable import NetCoreBase

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

        let out = OutgoingRequest(
            method: "POST", url: Self.url, body: NetBytes(Self.body), attempt: 1,
            headers: HeaderFields())
        let key = try #require(SigningKey(secret: Self.secret))
        // The prepared key signs again and again (its context is re-initialised and
        // reused), always with the same result.
        for _ in 0..<3 {
            var copy = out
            let e = RequestSigning.sign(&copy, .init(secret: Self.secret), key: key, timestamp: 1_700_000_000)
            #expect(e == nil)
            #expect(copy.header("X-Timestamp") == "1700000000")
            #expect(copy.header("X-Signature") == Self.signature)
        }
        #expect(key.signHex(Array(Self.stringToSign.utf8)) == Self.signature)
    }

    /// The timestamp's digits are written without String(Int64): the same text.
    @Test func theTimestampIsWrittenAsStringWouldWriteIt() {
        for v: Int64 in [0, 7, 9, 10, 99, 100, 1_700_000_000, 9_999_999_999, -1, -10, -1_700_000_000, .max, .min] {
            #expect(DecimalDigits.string(v) == String(v))
        }
        for e in 0...18 {
            let p: Int64 = (0..<e).reduce(1) { r, _ in r * 10 }
            #expect(DecimalDigits.string(p) == String(p) && DecimalDigits.string(p - 1) == String(p - 1))
        }
    }

    @Test func anEmptyBodyHashesTheEmptyString() {
        #expect(
            RequestSigning.sha256Hex(UnsafeRawBufferPointer(start: nil, count: 0))
                == RequestSigning.emptyBodySHA256Hex)
        #expect(RequestSigning.emptyBodySHA256Hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// The path and query read off the URL text (RequestURL.split) are what libcurl's
    /// parse gives, or the split declines and libcurl's parse is used.
    @Test func theURLSplitAgreesWithLibcurl() {
        let urls = [
            "http://h/", "http://h", "http://h?x=1", "https://h:8443/a/b?c=d&e=f#frag", "HTTP://H/A%2Fb?",
            "http://h/a/./b", "http://h/a/../b", "http://h/a/.", "http://u:p@h/p?q", "http://h/p#f?x",
            "http://h/a b", "http://[::1]:80/x?y", "http://h/%7e?%41=1", "ftp://h/x", "h/x"
        ]
        for url in urls {
            let viaLibcurl: (String, String)? = {
                guard let u = curl_url() else { return nil }
                defer { curl_url_cleanup(u) }
                guard
                    curl_url_set(u, CURLUPART_URL, url, UInt32(CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME))
                        == CURLUE_OK
                else { return nil }
                func part(_ what: CURLUPart) -> String? {
                    var out: UnsafeMutablePointer<CChar>? = nil
                    guard curl_url_get(u, what, &out, 0) == CURLUE_OK, let out else { return nil }
                    defer { curl_free(out) }
                    return String(cString: out)
                }
                return (part(CURLUPART_PATH) ?? "/", part(CURLUPART_QUERY) ?? "")
            }()
            if let split = RequestURL.split(url) {
                #expect(viaLibcurl?.0 == split.path, "\(url)")
                #expect(viaLibcurl?.1 == split.query, "\(url)")
            }
            let both = RequestURL(url).pathAndQuery
            #expect(both?.path == viaLibcurl?.0, "\(url)")
            #expect(both?.query == viaLibcurl?.1, "\(url)")
        }
        #expect(RequestURL.split("http://h/a/./b") == nil)
        #expect(RequestURL.split("http://h/a/b?c=d")?.path == "/a/b")
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

    /// Signing alone takes the short path (AdapterChain.prepare): the two headers
    /// follow the request's own, one chain serves every transfer with that signing,
    /// and a request carrying a signing header of its own has it replaced, not sent
    /// twice (the long path, as with adapters).
    @Test func signingAloneAppendsTheTwoHeadersOnce() throws {
        let c = try NetClient(json: #"{"base_url":"http://h.test/api","signing":{"secret":"s"}}"#)
        defer { c.shutdown() }
        var request = try Request(method: "GET", target: "/x")
        try request.setHeader("X-Mine", "1")
        let t = c.transfer(request) { _, _, _ in }
        let u = c.transfer(request) { _, _, _ in }
        #expect(t.preparer != nil && t.preparer === u.preparer)
        #expect(t.beginAttempt(now: 0) == nil)
        let p = try #require(t.prepared)
        #expect(p !== t.original)
        #expect(p.headers.entries.map(\.name) == ["X-Mine", "X-Timestamp", "X-Signature"])
        let hex = p.headers["X-Signature"] ?? ""
        let isLowerHex: (UInt8) -> Bool = { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        #expect(hex.utf8.count == 64 && hex.utf8.allSatisfy(isLowerHex))
        #expect(t.original?.headers.entries.map(\.name) == ["X-Mine"])   // the original is never changed

        try request.setHeader("x-signature", "forged")
        let v = c.transfer(request) { _, _, _ in }
        #expect(v.beginAttempt(now: 0) == nil)
        let signatures = v.prepared?.headers.entries.filter { HeaderFields.same($0.name, "X-Signature") } ?? []
        #expect(signatures.count == 1)
        #expect(signatures.first?.value != "forged" && signatures.first?.value.utf8.count == 64)
    }

    /// The chain a client's transfers share does not keep the client's adapter
    /// registry alive: once the client and its transfers are gone, so are the client
    /// and the registry (a chain holding the registry that caches it was a cycle, never freed).
    @Test func theSharedChainLetsTheRegistryGo() throws {
        weak var registry: AdapterRegistry?
        weak var chain: AnyObject?
        weak var client: NetClient?
        do {
            let c = try NetClient(json: #"{"base_url":"http://h.test/api","signing":{"secret":"s"}}"#)
            client = c
            try c.setToken("t")
            let t = c.transfer(try Request(method: "GET", target: "/x")) { _, _, _ in }
            #expect(t.beginAttempt(now: 0) == nil)
            registry = c.adapterRegistry
            chain = t.preparer
            #expect(registry != nil && chain != nil)
            c.shutdown()
        }
        #expect(client == nil)   // nothing it owns (the token refresher's closure) holds it
        #expect(registry == nil)
        #expect(chain == nil)
    }

    /// A Swift `Configuration.Signing` is not checked when made: a header name that
    /// is not an HTTP token fails each attempt (nothing sent), on the short path too.
    @Test func aBadSigningHeaderNameFromSwiftFailsTheAttempt() throws {
        var config = Configuration()
        config.baseURL = "http://h.test/api"
        config.signing = Configuration.Signing(secret: "s", header: "bad header")
        let c = try NetClient(configuration: config)
        defer { c.shutdown() }
        let t = c.transfer(try Request(method: "GET", target: "/x")) { _, _, _ in }
        guard case .complete(nil, let failure) = t.beginAttempt(now: 0) else {
            Issue.record("the attempt was not failed")
            return
        }
        #expect(failure?.domain == .client && failure?.code == NetError.ClientCode.invalidRequest.rawValue)
        #expect(failure?.message == "header name must be an HTTP token")
    }

    final class Refusing: RequestAdapter {
        func adapt(_ request: inout OutgoingRequest) throws(NetError) { throw .adapterFailed("no way") }
    }

    @Test func aFailingAdapterFailsTheAttempt() throws {
        let c = try NetClient(json: #"{"base_url":"http://h.test/api"}"#)
        defer { c.shutdown() }
        c.addAdapter(Refusing())
        let t = c.transfer(try Request(method: "GET", target: "/x")) { _, _, _ in }
        guard case .complete(nil, let failure) = t.beginAttempt(now: 0) else {
            Issue.record("the attempt was not failed")
            return
        }
        let e = try #require(failure)
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
