import CCurlShim
import Testing

@testable import NetCore
@testable import NetCoreBase

@Suite struct RequestBuildingTests {
    func settings(_ json: String) throws -> ClientSettings {
        ClientSettings(config: try Configuration.parse(json: json).get())
    }

    func prepare(_ r: Request, _ json: String = #"{"base_url":"http://h.test/api"}"#) throws -> PreparedRequest {
        try PreparedRequest.make(r, try settings(json)).get()
    }

    func url(_ p: PreparedRequest) -> String { String(cString: p.url.pointer) }

    @Test func aResolvedFormIsReusedUntilTheValueOrTheSettingsChange() throws {
        let settings = try settings(#"{"base_url":"http://h.test/api"}"#)
        func resolved(_ r: Request, _ s: ClientSettings) throws -> PreparedRequest {
            try r.prepared.prepared(r, s).get()
        }
        var a = try Request(method: "GET", target: "/a")
        let first = try resolved(a, settings)
        #expect(try resolved(a, settings) === first)
        // A changed copy gets its own form; the original keeps its own.
        var b = a
        try b.setQuery("x", "1")
        #expect(url(try resolved(b, settings)) == "http://h.test/api/a?x=1")
        #expect(try resolved(a, settings) === first)
        #expect(url(try resolved(a, settings)) == "http://h.test/api/a")
        // Any change, and a new settings snapshot, resolve again.
        try a.setTimeout(ms: 5)
        let second = try resolved(a, settings)
        #expect(second !== first)
        #expect(second.timeoutMs == 5)
        let other = try self.settings(#"{"base_url":"http://other.test"}"#)
        #expect(url(try resolved(a, other)) == "http://other.test/a")
    }

    func headerLines(_ p: PreparedRequest) -> [String] {
        var out: [String] = []
        var node = p.headerList
        while let n = node {
            out.append(String(cString: n.pointee.data))
            node = n.pointee.next
        }
        return out
    }

    @Test(arguments: [
        ("http://h.test/api", "/users", "http://h.test/api/users"),
        ("http://h.test/api/", "/users", "http://h.test/api/users"),
        ("http://h.test/api", "users", "http://h.test/api/users"),
        ("http://h.test/api/", "users", "http://h.test/api/users")
    ])
    func joinsExactlyOneSlash(base: String, path: String, expected: String) {
        #expect(PreparedRequest.join(base, path) == expected)
    }

    @Test func absoluteURLIgnoresBase() throws {
        let p = try prepare(try Request(method: "get", target: "HTTPS://other.test/x"))
        #expect(url(p) == "HTTPS://other.test/x")
        #expect(p.method == "GET")
    }

    @Test func relativeWithoutBaseIsInvalidRequest() throws {
        let r = try Request(method: "GET", target: "/x")
        guard case .failure(let e) = PreparedRequest.make(r, try settings("{}")) else {
            Issue.record("expected failure"); return
        }
        #expect(e.domain == .client)
        #expect(e.code == NetError.ClientCode.invalidRequest.rawValue)
    }

    @Test func queryIsPercentEncodedAndAppended() throws {
        var r = try Request(method: "GET", target: "/s?x=1#frag")
        try r.setQuery("q", "a b&c=d/é")
        try r.setQuery("tag", "1")
        try r.setQuery("tag", "2")
        #expect(url(try prepare(r)) == "http://h.test/api/s?x=1&q=a%20b%26c%3Dd%2F%C3%A9&tag=1&tag=2#frag")
    }

    @Test func paramsGoToQueryForGetWithNullsDroppedArraysRepeatedObjectsBracketed() throws {
        var r = try Request(method: "GET", target: "/s")
        try r.setParams(try JSONValue.parse(#"{"a":1,"n":null,"b":[true,"x"],"o":{"k":"v","z":null},"f":1.5}"#).get())
        #expect(url(try prepare(r)) == "http://h.test/api/s?a=1&b=true&b=x&o%5Bk%5D=v&f=1.5")
    }

    @Test func postDefaultsToFormBody() throws {
        var r = try Request(method: "POST", target: "/s")
        try r.setParams(try JSONValue.parse(#"{"user":"a b","n":null}"#).get())
        let p = try prepare(r)
        #expect(p.body?.text == "user=a%20b")
        #expect(headerLines(p).contains("Content-Type: application/x-www-form-urlencoded"))
        #expect(headerLines(p).contains("Expect:"))
        #expect(url(p) == "http://h.test/api/s")
    }

    @Test func jsonEncodingKeepsNullsAtEveryDepth() throws {
        var r = try Request(method: "PATCH", target: "/s")
        r.encoding = .json
        let text = #"{"a":null,"b":{"c":{"e":null,"f":1},"d":[null,1,[null]]}}"#
        try r.setParams(try JSONValue.parse(text).get())
        let p = try prepare(r)
        #expect(p.body?.text == text)
        #expect(headerLines(p).contains("Content-Type: application/json"))
        // The request's params are sent as they are, not changed by the encoding.
        #expect(r.params?.text == text)
    }

    @Test func queryAndFormLeaveNullsOutAtEveryDepthAndInArrays() throws {
        let text = #"{"a":null,"b":{"c":{"e":null,"f":1}},"t":[null,"x",null]}"#
        var r = try Request(method: "GET", target: "/s")
        try r.setParams(try JSONValue.parse(text).get())
        #expect(url(try prepare(r)) == "http://h.test/api/s?b%5Bc%5D%5Bf%5D=1&t=x")
        r.encoding = .form
        #expect(try prepare(r).body?.text == "b%5Bc%5D%5Bf%5D=1&t=x")
    }

    @Test func requestHeadersWinOverClientDefaultsCaseInsensitively() throws {
        var r = try Request(method: "GET", target: "/s")
        try r.setHeader("user-agent", "mine")
        try r.setHeader("X-Empty", "")
        let p = try prepare(r, #"{"base_url":"http://h.test","headers":{"User-Agent":"app/1","X-App":"2"}}"#)
        // The request's User-Agent wins over the client's, and no default one is added.
        #expect(headerLines(p) == [acceptEncoding, "user-agent: mine", "X-App: 2", "X-Empty;"])
    }

    /// The lines every request gets by default (DefaultHeaders.swift).
    let acceptEncoding = "Accept-Encoding: " + (DefaultHeaders.acceptEncoding ?? "?")
    let userAgent = "User-Agent: " + HeaderFields.defaultUserAgent

    @Test func compressionAddsAcceptEncodingUnlessOffOrTheRequestSetsOne() throws {
        var r = try Request(method: "GET", target: "/s")
        #expect(headerLines(try prepare(r)) == [acceptEncoding, userAgent])
        #expect(try prepare(r).decodesContent)
        let off = try prepare(r, #"{"base_url":"http://h.test","compression":false}"#)
        #expect(headerLines(off) == [userAgent])
        #expect(!off.decodesContent)
        try r.setHeader("accept-encoding", "identity")
        #expect(headerLines(try prepare(r)) == [userAgent, "accept-encoding: identity"])
        #expect(
            headerLines(try prepare(r, #"{"base_url":"http://h.test","compression":false}"#)) == [
                userAgent, "accept-encoding: identity"
            ])
    }

    @Test func acceptEncodingListsWhatLibcurlDecodes() throws {
        var features: Int32 = 0
        _ = ncshim_curl_version(&features)
        var expected: [String] = []
        if features & CURL_VERSION_LIBZ != 0 { expected += ["gzip", "deflate"] }
        if features & CURL_VERSION_BROTLI != 0 { expected.append("br") }
        if features & CURL_VERSION_ZSTD != 0 { expected.append("zstd") }
        #expect(expected.contains("gzip"))
        #expect(DefaultHeaders.acceptEncoding == expected.joined(separator: ", "))
    }

    @Test func defaultUserAgentNamesNetcoreAndLibcurl() throws {
        let libcurl = String(cString: ncshim_curl_version(nil))
        #expect(HeaderFields.defaultUserAgent == "netcore/\(NetCoreVersion.string) libcurl/\(libcurl)")
        #expect(libcurl.split(separator: ".").count == 3)
        // Made once: the same line object for every request.
        #expect(DefaultHeaders.userAgentLine === DefaultHeaders.userAgentLine)
    }

    @Test func defaultUserAgentUnlessTheClientOrTheRequestSetsOneInAnyCase() throws {
        var r = try Request(method: "GET", target: "/s")
        let plain = #"{"base_url":"http://h.test","compression":false}"#
        #expect(headerLines(try prepare(r, plain)) == [userAgent])
        for name in ["User-Agent", "user-agent", "USER-AGENT"] {
            let configured = #"{"base_url":"http://h.test","compression":false,"headers":{"\#(name)":"shop/2.3"}}"#
            #expect(headerLines(try prepare(r, configured)) == ["\(name): shop/2.3"])
        }
        try r.setHeader("uSeR-aGeNt", "app/1")
        #expect(headerLines(try prepare(r, plain)) == ["uSeR-aGeNt: app/1"])
        // An empty value is the caller's choice too: sent empty, no default beside it.
        try r.setHeader("User-Agent", "")
        #expect(headerLines(try prepare(r, plain)) == ["User-Agent;"])
    }

    @Test func anAdapterSettingUserAgentReplacesTheDefaultLine() throws {
        let r = try Request(method: "GET", target: "/s")
        let p = try prepare(r, #"{"base_url":"http://h.test","compression":false}"#)
        var headers = p.headers
        headers.appendNew("User-Agent", "adapted/1")
        let adapted = p.adapted(headers: headers, appendedFrom: p.headers.entries.count)
        #expect(headerLines(adapted) == ["User-Agent: adapted/1"])
        var other = p.headers
        other.appendNew("X-Signed", "1")
        #expect(
            headerLines(p.adapted(headers: other, appendedFrom: p.headers.entries.count)) == ["X-Signed: 1", userAgent])
    }

    @Test func rawBodyKeepsItsContentTypeUnlessAHeaderSetsOne() throws {
        var r = try Request(method: "POST", target: "/s")
        try "abc".utf8CString.withUnsafeBytes {
            try r.setBody(UnsafeRawBufferPointer(rebasing: $0.dropLast()), contentType: "text/plain")
        }
        #expect(try prepare(r).body?.text == "abc")
        #expect(headerLines(try prepare(r)).contains("Content-Type: text/plain"))
        try r.setHeader("content-type", "application/x-custom")
        #expect(!headerLines(try prepare(r)).contains("Content-Type: text/plain"))
    }

    @Test(arguments: ["GE T", "GET\r\nX: y", "", "G\u{7F}"])
    func rejectsBadMethods(method: String) {
        #expect(throws: NetError.self) { try Request(method: method, target: "/x") }
    }

    @Test(arguments: ["/a b", "/a\r\nX: y", "", "ftp://h/x", "file:///etc/passwd", "javascript:alert(1)"])
    func rejectsBadTargets(target: String) {
        #expect(throws: NetError.self) { try Request(method: "GET", target: target) }
    }

    @Test func rejectsHeaderInjection() throws {
        var r = try Request(method: "GET", target: "/x")
        #expect(throws: NetError.self) { try r.setHeader("X-A\r\nB", "v") }
        #expect(throws: NetError.self) { try r.setHeader("X-A", "v\r\nX-B: 1") }
        #expect(throws: NetError.self) { try r.setHeader("X-A", "v\nX-B: 1") }
        #expect(throws: NetError.self) { try r.setHeader("", "v") }
        #expect(r.headers.isEmpty)
    }

    @Test func paramsMustBeAnObjectAndNotTooDeep() throws {
        var r = try Request(method: "POST", target: "/x")
        #expect(throws: NetError.self) { try r.setParams(try JSONValue.parse("[1]").get()) }
        let deep = String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)
        #expect(throws: NetError.self) { try r.setParams(try JSONValue.parse(deep).get()) }
        #expect(r.params == nil)
    }

    /// The rules nc_request_set_timeout_ms() applies, in the Swift API.
    @Test func timeoutMustNotBeNegative() throws {
        var r = try Request(method: "GET", target: "/x")
        #expect(throws: NetError.self) { try r.setTimeout(ms: -1) }
        #expect(throws: NetError.self) { try r.setTimeout(ms: Int64.min) }
        #expect(r.timeoutMs == nil)
        try r.setTimeout(ms: 0)
        #expect(r.timeoutMs == 0)
        try r.setTimeout(ms: 5_000)
        #expect(throws: NetError.self) { try r.setTimeout(ms: -5) }
        #expect(r.timeoutMs == 5_000)   // a refusal changes nothing
        try r.setTimeout(ms: nil)
        #expect(r.timeoutMs == nil)
    }

    /// The rules nc_request_set_output_file() applies, in the Swift API.
    @Test func outputPathMustBeNonEmptyWithoutNUL() throws {
        var r = try Request(method: "GET", target: "/x")
        #expect(throws: NetError.self) { try r.setOutputPath("") }
        #expect(throws: NetError.self) { try r.setOutputPath("/tmp/a\u{0}b") }
        #expect(r.outputPath == nil)
        try r.setOutputPath("/tmp/out.bin")
        #expect(throws: NetError.self) { try r.setOutputPath("") }
        #expect(r.outputPath == "/tmp/out.bin")
        try r.setOutputPath(nil)
        #expect(r.outputPath == nil)
    }

    @Test func nonASCIIPathIsPercentEncoded() throws {
        let p = try prepare(try Request(method: "GET", target: "/users/José"))
        #expect(url(p) == "http://h.test/api/users/Jos%C3%A9")
    }
}
