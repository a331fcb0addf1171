// How a request builder turns into bytes on the wire, checked with /echo (the mock
// server describes the request it received inside an ok envelope).
import CNetCore
import Foundation
import MockServerSupport
import Testing

extension Outcome {
    fileprivate var method: String? { echo?["method"] as? String }
    fileprivate var path: String? { echo?["path"] as? String }
    fileprivate var rawPath: String? { echo?["raw_path"] as? String }
    fileprivate var query: [String: [String]]? { echo?["query"] as? [String: [String]] }
    fileprivate var headers: [String: String]? { echo?["headers"] as? [String: String] }
    fileprivate var body: String? { echo?["body"] as? String }
    fileprivate var form: [String: [String]]? { echo?["form"] as? [String: [String]] }
    fileprivate var contentType: String? { echo?["content_type"] as? String }
    fileprivate var echoedJSON: String? {
        guard let j = echo?["json"], !(j is NSNull),
            let d = try? JSONSerialization.data(withJSONObject: j, options: [.fragmentsAllowed])
        else { return nil }
        return canonical(String(decoding: d, as: UTF8.self))
    }
}

@Suite struct RequestEncodingTests {
    let server = MockServer.shared

    // MARK: URLs

    @Test(arguments: [("/api", "/echo"), ("/api/", "/echo"), ("/api", "echo"), ("/api/", "echo")])
    func baseURLJoinsWithExactlyOneSlash(base: String, path: String) throws {
        let o = try fetch(config(base: server.baseURL + base), path)
        #expect(o.error == nil, "\(o)")
        #expect(o.rawPath == "/api/echo")
        #expect(o.path == "/echo")
    }

    @Test func baseURLWithoutPath() throws {
        #expect(try fetch(config(base: server.baseURL), "/echo").rawPath == "/echo")
        #expect(try fetch(config(base: server.baseURL + "/"), "echo").rawPath == "/echo")
    }

    @Test func absoluteURLOverridesTheBaseURL() throws {
        let o = try fetch(config(base: server.baseURL + "/api"), server.url("/echo?x=1"))
        #expect(o.error == nil)
        #expect(o.rawPath == "/echo?x=1")
    }

    @Test func absoluteURLSchemeIsCaseInsensitive() throws {
        let o = try fetch(config(), "HTTP://127.0.0.1:\(server.port)/echo")
        #expect(o.error == nil, "\(o)")
        #expect(o.rawPath == "/echo")
    }

    @Test func fragmentIsNotSentAndQueryGoesBeforeIt() throws {
        let o = try fetch(config(), "/echo#section") { $0.query("a", "1") }
        #expect(o.error == nil, "\(o)")
        #expect(o.rawPath == "/echo?a=1")
    }

    @Test func nonASCIIInThePathIsPercentEncoded() throws {
        let o = try fetch(config(), "/echo?name=é")
        #expect(o.rawPath == "/echo?name=%C3%A9")
        #expect(o.query == ["name": ["é"]])
    }

    @Test func pathWithQueryKeepsItAndAppendsParameters() throws {
        let o = try fetch(config(), "/echo?x=1") { #expect($0.query("y", "2") == NC_OK) }
        #expect(o.rawPath == "/echo?x=1&y=2")
        #expect(o.query == ["x": ["1"], "y": ["2"]])
    }

    @Test func environmentsSwitchTheBaseURL() throws {
        let envs = #""environments":{"api":"\#(server.baseURL)/api","root":"\#(server.baseURL)"},"environment":"api""#
        let client = try TestClient(config(base: "http://127.0.0.1:1", envelope: Envelope.a, envs))
        #expect(try client.sync("/echo").rawPath == "/api/echo")
        #expect(nc_client_set_environment(client.handle, "root") == NC_OK)
        #expect(try client.sync("/echo").rawPath == "/echo")
        // An unknown name is refused and changes nothing.
        #expect(nc_client_set_environment(client.handle, "staging") == NC_ERR_INVALID_ARGUMENT)
        #expect(try client.sync("/echo").rawPath == "/echo")
        #expect(nc_client_set_environment(client.handle, "api") == NC_OK)
        #expect(try client.sync("/echo").rawPath == "/api/echo")
    }

    @Test func environmentsOnTwoServers() throws {
        let other = try privateServer()
        defer { other.stop() }
        let envs = #""environments":{"a":"\#(server.baseURL)","b":"\#(other.baseURL)"}"#
        let client = try TestClient(config(base: nil, envelope: Envelope.a, envs))
        // No environment selected and no base_url: a relative path cannot be sent.
        let none = try client.sync("/echo")
        #expect(none.error?.isClient(NC_CLIENT_INVALID_REQUEST) == true)
        #expect(nc_client_set_environment(client.handle, "b") == NC_OK)
        #expect(try client.sync("/echo").headers?["host"] == "127.0.0.1:\(other.port)")
        #expect(nc_client_set_environment(client.handle, "a") == NC_OK)
        #expect(try client.sync("/echo").headers?["host"] == "127.0.0.1:\(server.port)")
        #expect(serverStats(other).paths["/echo"] == 1)
    }

    @Test func environmentChangeDoesNotAffectRequestsAlreadySent() throws {
        let envs = #""environments":{"api":"\#(server.baseURL)/api","root":"\#(server.baseURL)"},"environment":"api""#
        let client = try TestClient(config(base: nil, envelope: Envelope.a, envs))
        let c = Collector()
        client.send(try Request("GET", "/slow?ms=200"), c, task: false)
        #expect(nc_client_set_environment(client.handle, "root") == NC_OK)
        #expect(c.wait())
        client.free()
        #expect(c.outcome?.error == nil, "\(String(describing: c.outcome))")
    }

    // MARK: Headers

    @Test func clientDefaultHeadersMergeWithRequestHeaders() throws {
        let client = try TestClient(
            config(
                base: server.baseURL, envelope: Envelope.a, #""headers":{"X-From-Config":"cfg","X-Override":"config"}"#)
        )
        #expect(nc_client_set_header(client.handle, "X-Common", "c") == NC_OK)
        #expect(nc_client_set_header(client.handle, "X-Client-Only", "k") == NC_OK)
        let o = try client.sync("/echo") {
            #expect($0.header("x-override", "request") == NC_OK)
            #expect($0.header("X-COMMON", "mine") == NC_OK)
            #expect($0.header("X-Request-Only", "r") == NC_OK)
        }
        let h = try #require(o.headers)
        #expect(h["x-from-config"] == "cfg")
        #expect(h["x-override"] == "request")   // request wins, case-insensitively, sent once
        #expect(h["x-common"] == "mine")
        #expect(h["x-client-only"] == "k")
        #expect(h["x-request-only"] == "r")
    }

    @Test func nullValueRemovesHeaders() throws {
        let client = try TestClient(config())
        #expect(nc_client_set_header(client.handle, "X-Default", "d") == NC_OK)
        #expect(nc_client_set_header(client.handle, "X-Gone", "g") == NC_OK)
        #expect(nc_client_set_header(client.handle, "x-gone", nil) == NC_OK)   // removes the default
        let o = try client.sync("/echo") {
            $0.header("X-Default", "request")
            #expect($0.header("X-Default", nil) == NC_OK)   // removes the request's own: the default applies
            $0.header("X-Temp", "t")
            #expect($0.header("X-TEMP", nil) == NC_OK)
        }
        let h = try #require(o.headers)
        #expect(h["x-default"] == "d")
        #expect(h["x-gone"] == nil)
        #expect(h["x-temp"] == nil)
    }

    @Test func setHeaderReplacesAnEarlierValue() throws {
        let o = try fetch(config(), "/echo") {
            $0.header("X-A", "1")
            $0.header("x-a", "2")
        }
        #expect(o.headers?["x-a"] == "2")
    }

    @Test func emptyHeaderValueIsSent() throws {
        let o = try fetch(config(), "/echo") { #expect($0.header("X-Empty", "") == NC_OK) }
        #expect(o.headers?["x-empty"] == "")
    }

    @Test func defaultHeaderChangesApplyToLaterRequestsOnly() throws {
        let client = try TestClient(config())
        #expect(try client.sync("/echo").headers?["x-late"] == nil)
        #expect(nc_client_set_header(client.handle, "X-Late", "now") == NC_OK)
        #expect(try client.sync("/echo").headers?["x-late"] == "now")
    }

    // MARK: Query

    @Test func queryParametersArePercentEncodedAndMayRepeat() throws {
        let o = try fetch(config(), "/echo") {
            #expect($0.query("q", "a b&c=d") == NC_OK)
            #expect($0.query("u", "é☃") == NC_OK)
            #expect($0.query("r", "1") == NC_OK)
            #expect($0.query("r", "2") == NC_OK)
            #expect($0.query("k y", "+/?#") == NC_OK)
            #expect($0.query("nl", "a\r\nb") == NC_OK)   // percent-encoded, not a header break
        }
        #expect(o.query == ["q": ["a b&c=d"], "u": ["é☃"], "r": ["1", "2"], "k y": ["+/?#"], "nl": ["a\r\nb"]])
        #expect(o.rawPath == "/echo?q=a%20b%26c%3Dd&u=%C3%A9%E2%98%83&r=1&r=2&k%20y=%2B%2F%3F%23&nl=a%0D%0Ab")
    }

    @Test func nullQueryValueRemovesEveryParameterOfThatName() throws {
        let o = try fetch(config(), "/echo") {
            $0.query("r", "1")
            $0.query("keep", "yes")
            $0.query("r", "2")
            #expect($0.query("r", nil) == NC_OK)
        }
        #expect(o.rawPath == "/echo?keep=yes")
    }

    @Test func emptyQueryValueIsKept() throws {
        let o = try fetch(config(), "/echo") { $0.query("e", "") }
        #expect(o.rawPath == "/echo?e=")
        #expect(o.query == ["e": [""]])
    }

    // MARK: Params

    private let params = #"{"a":1,"b":null,"c":[1,2],"d":{"e":"f","n":null},"s":"x y","t":true,"f":1.5}"#

    @Test func paramsAreTheQueryForGET() throws {
        let o = try fetch(config(), "/echo") { #expect($0.params(params) == NC_OK) }
        #expect(o.method == "GET")
        #expect(o.query == ["a": ["1"], "c": ["1", "2"], "d[e]": ["f"], "s": ["x y"], "t": ["true"], "f": ["1.5"]])
        #expect(o.rawPath?.contains("b=") == false)
        #expect(o.rawPath?.contains("d%5Be%5D=f") == true)
        #expect(o.body == "")
    }

    @Test(arguments: ["DELETE", "HEAD", "OPTIONS"])
    func paramsAreTheQueryForOtherBodylessMethods(method: String) throws {
        let o = try fetch(config(), "/echo", method: method) { $0.params(#"{"a":1}"#) }
        #expect(o.error == nil, "\(o)")
        if method == "HEAD" {
            #expect(o.response?.status == 200)
            #expect(o.response?.body.isEmpty == true)
        } else {
            #expect(o.method == method)
            #expect(o.query == ["a": ["1"]])
            #expect(o.body == "")
        }
    }

    @Test(arguments: ["POST", "PUT", "PATCH"])
    func paramsAreAFormForBodyMethodsByDefault(method: String) throws {
        let o = try fetch(config(), "/echo", method: method) { #expect($0.params(params) == NC_OK) }
        #expect(o.method == method)
        #expect(o.contentType == "application/x-www-form-urlencoded")
        #expect(o.form == ["a": ["1"], "c": ["1", "2"], "d[e]": ["f"], "s": ["x y"], "t": ["true"], "f": ["1.5"]])
        #expect(o.body == "a=1&c=1&c=2&d%5Be%5D=f&s=x%20y&t=true&f=1.5")
        #expect(o.query == [:])
    }

    @Test func jsonEncodingSendsNullsAsWritten() throws {
        let o = try fetch(config(), "/echo", method: "POST") {
            #expect($0.encoding(NC_ENCODING_JSON) == NC_OK)
            #expect($0.params(params) == NC_OK)
        }
        #expect(o.contentType == "application/json")
        // The text on the wire: compact, in the written order, every null kept.
        #expect(o.body == #"{"a":1,"b":null,"c":[1,2],"d":{"e":"f","n":null},"s":"x y","t":true,"f":1.5}"#)
        #expect(o.echoedJSON == canonical(params))
    }

    // Nulls at depth 1 and 3, in arrays (alone, nested, in an object in an array): a
    // PATCH that clears fields sends them, whichever way the JSON encoding is chosen.
    private let nulls =
        #"{"nickname":null,"profile":{"address":{"city":null,"zip":"75001"},"tags":[null,"a",null]},"list":[null,[null],{"x":null}],"keep":0}"#

    @Test(arguments: ["PATCH", "PUT", "POST", "DELETE"])
    func jsonEncodingKeepsNullsAtEveryDepthAndInArrays(method: String) throws {
        let o = try fetch(config(), "/echo", method: method) {
            #expect($0.params(nulls) == NC_OK)
            #expect($0.encoding(NC_ENCODING_JSON) == NC_OK)
        }
        #expect(o.error == nil, "\(o)")
        #expect(o.method == method)
        #expect(o.contentType == "application/json")
        #expect(o.body == nulls)
        let json = try #require(o.echo?["json"] as? [String: Any])
        #expect(json["nickname"] is NSNull)
        let address = (json["profile"] as? [String: Any])?["address"] as? [String: Any]
        #expect(address?["city"] is NSNull)
        #expect(address?["zip"] as? String == "75001")
    }

    @Test func jsonEncodingOfAnEndpointKeepsNulls() throws {
        let endpoints = #""endpoints":{"user.patch":{"method":"PATCH","path":"/echo","encoding":"json"}}"#
        let client = try TestClient(config(base: server.baseURL, envelope: Envelope.a, endpoints))
        defer { client.free() }
        let r = try Request(endpoint: "user.patch")
        #expect(r.params(#"{"nickname":null,"a":{"b":{"c":null}}}"#) == NC_OK)
        let o = client.sync(r)
        #expect(o.error == nil, "\(o)")
        #expect(o.method == "PATCH")
        #expect(o.body == #"{"nickname":null,"a":{"b":{"c":null}}}"#)
    }

    @Test func queryAndFormLeaveNullsOutWhereverTheyAre() throws {
        let q = try fetch(config(), "/echo") { #expect($0.params(nulls) == NC_OK) }
        #expect(q.error == nil, "\(q)")
        // Only what is not null: the tags' "a", the zip, keep; nothing of list.
        #expect(q.rawPath == "/echo?profile%5Baddress%5D%5Bzip%5D=75001&profile%5Btags%5D=a&keep=0")
        let f = try fetch(config(), "/echo", method: "PATCH") { #expect($0.params(nulls) == NC_OK) }
        #expect(f.contentType == "application/x-www-form-urlencoded")
        #expect(f.body == "profile%5Baddress%5D%5Bzip%5D=75001&profile%5Btags%5D=a&keep=0")
        let explicitForm = try fetch(config(), "/echo", method: "POST") {
            $0.encoding(NC_ENCODING_FORM)
            $0.params(#"{"a":null,"b":"1"}"#)
        }
        #expect(explicitForm.body == "b=1")
        let explicitQuery = try fetch(config(), "/echo", method: "POST") {
            $0.encoding(NC_ENCODING_QUERY)
            $0.params(#"{"a":null,"b":"1"}"#)
        }
        #expect(explicitQuery.rawPath == "/echo?b=1")
    }

    @Test func explicitQueryEncodingOnPOST() throws {
        let o = try fetch(config(), "/echo", method: "POST") {
            $0.encoding(NC_ENCODING_QUERY)
            $0.params(#"{"a":"1"}"#)
        }
        #expect(o.method == "POST")
        #expect(o.query == ["a": ["1"]])
        #expect(o.body == "")
    }

    @Test func explicitFormEncodingOnDELETE() throws {
        let o = try fetch(config(), "/echo", method: "DELETE") {
            $0.encoding(NC_ENCODING_FORM)
            $0.params(#"{"a":"1"}"#)
        }
        #expect(o.method == "DELETE")
        #expect(o.form == ["a": ["1"]])
        #expect(o.query == [:])
    }

    @Test func jsonEncodingOnGETKeepsTheMethod() throws {
        let o = try fetch(config(), "/echo") {
            $0.encoding(NC_ENCODING_JSON)
            $0.params(#"{"a":1}"#)
        }
        #expect(o.method == "GET")
        #expect(o.echoedJSON == #"{"a":1}"#)
    }

    @Test func encodingSetAfterParamsStillApplies() throws {
        let o = try fetch(config(), "/echo", method: "PUT") {
            $0.params(#"{"a":1}"#)
            $0.encoding(NC_ENCODING_JSON)
        }
        #expect(o.contentType == "application/json")
        #expect(o.echoedJSON == #"{"a":1}"#)
    }

    @Test func paramsJSONNeedNotBeNULTerminated() throws {
        let request = try Request("POST", "/echo")
        let text = Array(#"{"a":"b"}garbage"#.utf8)
        let rc = text.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { nc_request_set_params_json(request.handle, $0.baseAddress, 9) }
        }
        #expect(rc == NC_OK)
        let o = try TestClient(config()).sync(request)
        #expect(o.form == ["a": ["b"]])
    }

    @Test func paramsFromAJanssonValueAreBorrowedAndCopied() throws {
        var err = json_error_t()
        let object = try #require(json_loads(#"{"a":1,"n":null}"#, 0, &err))
        #expect(object.pointee.refcount == 1)
        let request = try Request("POST", "/echo")
        #expect(nc_request_set_encoding(request.handle, NC_ENCODING_JSON) == NC_OK)
        #expect(nc_request_set_params(request.handle, object) == NC_OK)
        #expect(object.pointee.refcount == 1)   // borrowed: the count is untouched
        // Copied: later changes to the caller's object are not sent, and it is not modified.
        #expect(json_object_set_new(object, "a", json_integer(99)) == 0)
        #expect(canonical(object) == #"{"a":99,"n":null}"#)
        json_decref(object)
        let o = try TestClient(config()).sync(request)
        #expect(o.body == #"{"a":1,"n":null}"#)
    }

    @Test func paramsReplaceEarlierParams() throws {
        let o = try fetch(config(), "/echo") {
            $0.params(#"{"a":1}"#)
            $0.params(#"{"b":2}"#)
        }
        #expect(o.query == ["b": ["2"]])
    }

    @Test func paramsAndQueryCombine() throws {
        let o = try fetch(config(), "/echo") {
            $0.query("q", "1")
            $0.params(#"{"p":2}"#)
        }
        #expect(o.query == ["q": ["1"], "p": ["2"]])
    }

    // MARK: Raw bodies

    @Test func rawBodyWithContentType() throws {
        let o = try fetch(config(), "/echo", method: "POST") {
            #expect($0.body("hello wörld", "text/plain; charset=utf-8") == NC_OK)
        }
        #expect(o.body == "hello wörld")
        #expect(o.contentType == "text/plain; charset=utf-8")
        #expect(o.headers?["content-length"] == "12")
    }

    @Test func rawBodyWithoutContentTypeSendsNone() throws {
        let o = try fetch(config(), "/echo", method: "POST") {
            #expect($0.body("raw bytes", nil) == NC_OK)
        }
        #expect(o.body == "raw bytes")
        #expect(
            o.contentType == nil, "header says NULL content_type: no Content-Type header; got \(o.contentType ?? "nil")"
        )
    }

    @Test func requestContentTypeHeaderWinsOverBodyContentType() throws {
        let o = try fetch(config(), "/echo", method: "POST") {
            $0.body("{}", "text/plain")
            $0.header("Content-Type", "application/vnd.custom+json")
        }
        #expect(o.contentType == "application/vnd.custom+json")
        #expect(o.echoedJSON == "{}")
    }

    @Test func emptyRawBody() throws {
        let o = try fetch(config(), "/echo", method: "PUT") {
            #expect(nc_request_set_body($0.handle, nil, 0, "text/plain") == NC_OK)
        }
        #expect(o.method == "PUT")
        #expect(o.body == "")
        #expect(o.headers?["content-length"] == "0")
    }

    @Test func bodyClearsParamsAndParamsClearBody() throws {
        let bodyLast = try fetch(config(), "/echo", method: "POST") {
            $0.params(#"{"a":1}"#)
            $0.body("B", "text/plain")
        }
        #expect(bodyLast.body == "B")
        #expect(bodyLast.contentType == "text/plain")
        let paramsLast = try fetch(config(), "/echo", method: "POST") {
            $0.body("B", "text/plain")
            $0.params(#"{"a":1}"#)
        }
        #expect(paramsLast.body == "a=1")
        #expect(paramsLast.contentType == "application/x-www-form-urlencoded")
    }

    @Test func binaryBodyIsSentAsIs() throws {
        // (No NUL byte: the mock server echoes the body as a JSON string.)
        let bytes: [UInt8] = [1, 2, 0xFF, 0xFE, 0x80, 10, 13, 0x7F]
        let o = try fetch(config(base: server.baseURL, envelope: "null"), "/echo-raw", method: "POST") { request in
            #expect(
                bytes.withUnsafeBytes { b in
                    nc_request_set_body(request.handle, b.baseAddress, b.count, "application/octet-stream")
                } == NC_OK)
        }
        #expect(o.headers?["content-length"] == "8")
        #expect(o.contentType == "application/octet-stream")
        #expect(o.response?.object?["body"] as? String == String(decoding: bytes, as: UTF8.self))
    }

    // MARK: Methods

    @Test(arguments: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    func methodIsSeenByTheServer(method: String) throws {
        let o = try fetch(config(), "/echo", method: method)
        #expect(o.error == nil, "\(o)")
        #expect(o.method == method)
    }

    @Test(arguments: [("get", "GET"), ("post", "POST"), ("Put", "PUT"), ("pAtCh", "PATCH"), ("delete", "DELETE")])
    func lowercaseMethodIsUpperCased(given: String, sent: String) throws {
        let o = try fetch(config(), "/echo", method: given)
        #expect(o.method == sent)
    }

    @Test func headHasNoBodyAndSucceeds() throws {
        let o = try fetch(config(), "/echo", method: "HEAD")
        #expect(o.rc == NC_OK)
        #expect(o.error == nil, "\(o)")
        let r = try #require(o.response)
        #expect(r.status == 200)
        #expect(r.body.isEmpty)
        #expect(r.dataJSON == "null")
        #expect(r.headers.contains { $0.name.lowercased() == "content-type" })
    }

    // MARK: Builder reuse

    @Test func builderIsReusableAfterSend() throws {
        let client = try TestClient(config())
        let request = try Request("GET", "/echo")
        request.query("a", "1")
        let first = client.sync(request)
        #expect(first.rawPath == "/echo?a=1")
        request.query("a", "2")
        request.header("X-Second", "yes")
        let second = client.sync(request)
        #expect(second.rawPath == "/echo?a=1&a=2")
        #expect(second.headers?["x-second"] == "yes")
        // The first send was a copy.
        #expect(first.headers?["x-second"] == nil)
    }

    @Test func changingTheBuilderAfterAnAsyncSendDoesNotAffectIt() throws {
        let client = try TestClient(config())
        let request = try Request("POST", "/echo")
        request.params(#"{"v":"first"}"#)
        let c = Collector()
        client.send(request, c, task: false)
        request.params(#"{"v":"second"}"#)
        request.header("X-Late", "1")
        #expect(c.wait())
        let second = client.sync(request)
        client.free()
        #expect(c.outcome?.form == ["v": ["first"]])
        #expect(c.outcome?.headers?["x-late"] == nil)
        #expect(second.form == ["v": ["second"]])
    }

    @Test func defaultHeadersAreSentWithoutExpectContinue() throws {
        let o = try fetch(config(), "/echo", method: "POST") {
            $0.body(String(repeating: "x", count: 5000), "text/plain")
        }
        #expect(o.body?.count == 5000)
        #expect(o.headers?["expect"] == nil)
    }
}
