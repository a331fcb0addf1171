// The endpoint catalog through the header: nc_client_define_endpoint,
// nc_request_new_endpoint, nc_client_call(_sync), and the "endpoints" config key,
// against the mock server (/echo describes what arrived; an unknown path answers
// 404 with {"path": <the path as received>}).
import CNetCore
import Foundation
import MockServerSupport
import Testing

extension Outcome {
    fileprivate var method: String? { echo?["method"] as? String }
    fileprivate var path: String? { echo?["path"] as? String }
    fileprivate var query: [String: [String]]? { echo?["query"] as? [String: [String]] }
    fileprivate var headers: [String: String]? { echo?["headers"] as? [String: String] }
    fileprivate var form: [String: [String]]? { echo?["form"] as? [String: [String]] }
    fileprivate var json: [String: Any]? { echo?["json"] as? [String: Any] }
    fileprivate var contentType: String? { echo?["content_type"] as? String }
    /// The path a 404 of the mock server reports (raw mode: the error's body).
    fileprivate var notFoundPath: String? {
        (foundationJSON(error?.bodyText) as? [String: Any])?["path"] as? String
    }
}

extension TestClient {
    @discardableResult
    func define(_ name: String, _ spec: String) -> nc_status { nc_client_define_endpoint(handle, name, spec) }

    /// nc_client_call_sync with `params` (nil: NULL, 0).
    func call(_ endpoint: String, _ params: String? = nil) -> Outcome {
        var r: OpaquePointer?
        var e: OpaquePointer?
        let rc: nc_status
        if let params {
            let bytes = Array(params.utf8CString)
            rc = bytes.withUnsafeBufferPointer {
                nc_client_call_sync(handle, endpoint, $0.baseAddress, bytes.count - 1, &r, &e)
            }
        } else {
            rc = nc_client_call_sync(handle, endpoint, nil, 0, &r, &e)
        }
        defer {
            nc_response_free(r)
            nc_error_free(e)
        }
        return Outcome(rc: rc, response: r, error: e)
    }

    /// nc_client_call with a collector; returns the status (the collector is waited for on NC_OK).
    func callAsync(_ endpoint: String, _ params: String?, _ collector: Collector) -> nc_status {
        var t: OpaquePointer?
        let bytes = params.map { Array($0.utf8CString) } ?? [0]
        let rc = bytes.withUnsafeBufferPointer {
            nc_client_call(
                handle, endpoint, params == nil ? nil : $0.baseAddress, bytes.count - 1,
                collectFn, collector.userdata, &t)
        }
        nc_task_free(t)
        if rc == NC_OK { collector.wait(timeout: 20) }
        return rc
    }
}

private let catalog =
    #""endpoints":{"echo.get":{"path":"/echo"},"echo.route":{"path":"/{route}"},"#
    + #""echo.form":{"method":"POST","path":"/echo","encoding":"form"},"#
    + #""echo.json":{"method":"POST","path":"/echo","encoding":"json"},"#
    + #""echo.query":{"method":"POST","path":"/echo","encoding":"query"},"#
    + #""user.get":{"path":"/users/{id}/profile","envelope":false},"#
    + #""user.login":{"method":"POST","path":"/login","encoding":"json"}}"#

@Suite struct EndpointTests {
    let server = MockServer.shared

    func client() throws -> TestClient { try TestClient(config(base: server.baseURL, catalog)) }

    // MARK: path templates

    @Test func placeholderIsFilledAndRemovedFromTheParams() throws {
        let o = try client().call("echo.route", #"{"route":"echo","x":1}"#)
        #expect(o.succeeded, "\(o)")
        #expect(o.path == "/echo")
        #expect(o.query == ["x": ["1"]])
    }

    @Test(arguments: [
        ("7", "/users/7/profile"),
        ("a/b", "/users/a%2Fb/profile"),
        ("a b", "/users/a%20b/profile"),
        ("what?x=1", "/users/what%3Fx%3D1/profile"),
        ("#frag", "/users/%23frag/profile"),
        ("100%", "/users/100%25/profile"),
        ("café", "/users/caf%C3%A9/profile"),
        ("..", "/users/%2E%2E/profile"),
        (".", "/users/%2E/profile"),
        ("...", "/users/.../profile")
    ])
    func placeholderIsEscapedAsOnePathSegment(value: String, arrived: String) throws {
        let params = String(decoding: try JSONSerialization.data(withJSONObject: ["id": value]), as: UTF8.self)
        let o = try client().call("user.get", params)
        #expect(o.rc == NC_ERR_FAILED && o.error?.domain == NC_DOMAIN_HTTP && o.error?.code == 404, "\(o)")
        #expect(o.notFoundPath == arrived)
    }

    @Test func numberAndBooleanPlaceholders() throws {
        let c = try client()
        #expect(c.call("user.get", #"{"id":42}"#).notFoundPath == "/users/42/profile")
        #expect(c.call("user.get", #"{"id":true}"#).notFoundPath == "/users/true/profile")
    }

    // MARK: encodings

    @Test func defaultEncodingOfAGetIsTheQuery() throws {
        let o = try client().call("echo.get", #"{"a":1,"b":"x y","n":null}"#)
        #expect(o.method == "GET")
        #expect(o.query == ["a": ["1"], "b": ["x y"]])
    }

    @Test func formEncoding() throws {
        let o = try client().call("echo.form", #"{"a":1,"b":"x y"}"#)
        #expect(o.method == "POST")
        #expect(o.form == ["a": ["1"], "b": ["x y"]])
        #expect(o.query == [:])
    }

    @Test func jsonEncoding() throws {
        let o = try client().call("echo.json", #"{"a":1,"b":{"c":[1,2]}}"#)
        #expect(o.contentType == "application/json")
        #expect(o.json?["a"] as? Int == 1)
        #expect((o.json?["b"] as? [String: Any])?["c"] as? [Int] == [1, 2])
    }

    @Test func queryEncodingOfAPost() throws {
        let o = try client().call("echo.query", #"{"a":"1"}"#)
        #expect(o.method == "POST")
        #expect(o.query == ["a": ["1"]])
    }

    @Test func loginWithJSONParams() throws {
        let c = try client()
        let ok = c.call("user.login", #"{"username":"ada","password":"secret"}"#)
        #expect(ok.succeeded, "\(ok)")
        #expect((ok.response?.object)?["token"] as? String == "tok-ada")
        let no = c.call("user.login", #"{"username":"ada","password":"wrong"}"#)
        #expect(no.rc == NC_ERR_FAILED && no.error?.domain == NC_DOMAIN_API && no.error?.code == 1001, "\(no)")
    }

    // MARK: failures that complete without sending

    /// Its events say so: method and url null (they do not apply), the error's domain.
    @Test func anUnresolvedRequestsEventsHaveANullMethodAndURL() throws {
        let c = try TestClient(config(catalog))
        let log = EventLog()
        keptLogs.withLock { $0.append(log) }
        #expect(nc_client_set_event_handler(c.handle, eventLogFn, log.userdata) == NC_OK)
        #expect(c.call("user.nope").error?.isClient(NC_CLIENT_INVALID_REQUEST) == true)
        let end = try #require(log.of("request_end").first)
        #expect(end["method"] is NSNull && end["url"] is NSNull)
        #expect(end["domain"] as? String == "NCClientErrorDomain")
    }

    @Test func unknownEndpointCompletesOnceWithInvalidRequestAndSendsNothing() throws {
        let own = try privateServer()
        let c = try TestClient(config(base: own.baseURL, catalog))
        let collector = Collector()
        #expect(c.callAsync("user.nope", #"{"id":1}"#, collector) == NC_OK)
        let e = try #require(collector.outcome?.error)
        #expect(e.domain == NC_DOMAIN_CLIENT && e.code == Int64(NC_CLIENT_INVALID_REQUEST))
        #expect(e.message.contains("'user.nope'"), "\(e.message)")
        #expect(collector.outcome?.response == nil)

        let sync = c.call("user.nope")
        #expect(sync.rc == NC_ERR_FAILED && sync.error?.isClient(NC_CLIENT_INVALID_REQUEST) == true)
        #expect(sync.error?.message.contains("'user.nope'") == true)

        // A later request proves the first callback had its only call by now.
        #expect(c.call("echo.get").succeeded)
        #expect(collector.calls == 1)
        #expect(serverStats(own).paths == ["/echo": 1])
    }

    @Test func missingPlaceholderCompletesOnceNamingItAndSendsNothing() throws {
        let own = try privateServer()
        let c = try TestClient(config(base: own.baseURL, catalog))
        for params in [#"{"name":"x"}"#, #"{"id":null}"#, nil] {
            let collector = Collector()
            #expect(c.callAsync("user.get", params, collector) == NC_OK)
            let e = try #require(collector.outcome?.error)
            #expect(e.isClient(NC_CLIENT_INVALID_REQUEST), "\(e)")
            #expect(e.message.contains("'id'") && e.message.contains("'user.get'"), "\(e.message)")
            #expect(c.call("echo.get").succeeded)
            #expect(collector.calls == 1)
        }
        for bad in [#"{"id":{"a":1}}"#, #"{"id":[1]}"#, #"{"id":""}"#] {
            let o = c.call("user.get", bad)
            #expect(
                o.error?.isClient(NC_CLIENT_INVALID_REQUEST) == true && o.error?.message.contains("'id'") == true,
                "\(o)")
        }
        #expect(serverStats(own).total == 3)
        #expect(serverStats(own).paths == ["/echo": 3])
    }

    @Test func unknownEndpointThroughABuilderAndSend() throws {
        let c = try client()
        let r = try Request(endpoint: "no.such")
        let collector = c.sendAndWait(r)
        #expect(collector.outcome?.error?.isClient(NC_CLIENT_INVALID_REQUEST) == true)
        #expect(collector.outcome?.error?.message.contains("'no.such'") == true)
    }

    // MARK: definitions

    @Test func runtimeDefinitionAndRedefinitionReplace() throws {
        let c = try TestClient(config(base: server.baseURL))
        #expect(c.call("r").error?.isClient(NC_CLIENT_INVALID_REQUEST) == true)
        #expect(c.define("r", #"{"path":"/echo"}"#) == NC_OK)
        #expect(c.call("r").method == "GET")
        #expect(c.define("r", #"{"method":"put","path":"/echo","encoding":"json"}"#) == NC_OK)
        let o = c.call("r", #"{"a":1}"#)
        #expect(o.method == "PUT")
        #expect(o.json?["a"] as? Int == 1)
    }

    @Test func runtimeDefinitionReplacesAConfigOne() throws {
        let c = try client()
        #expect(c.call("echo.get").method == "GET")
        #expect(c.define("echo.get", #"{"method":"DELETE","path":"/echo"}"#) == NC_OK)
        #expect(c.call("echo.get").method == "DELETE")
        #expect(c.call("echo.form", #"{"a":1}"#).form == ["a": ["1"]], "the config's others remain")
    }

    @Test(arguments: [
        #"{"path":"/x","verb":"GET"}"#, #"{"method":1,"path":"/x"}"#, #"{"method":"G T","path":"/x"}"#,
        #"{}"#, #"{"path":""}"#, #"{"path":"/x/{id"}"#, #"{"path":"/x","encoding":"xml"}"#,
        #"{"path":"/x","headers":{"A":1}}"#, #"{"path":"/x","headers":{"A B":"1"}}"#,
        #"{"path":"/x","timeout_ms":-1}"#, #"{"path":"/x","envelope":"yes"}"#,
        #"{"path":"/x","retry":true}"#, #"{"path":"/x","retry":{"tries":3}}"#,
        #"{"path":"/x","retry":{"max_attempts":"3"}}"#, #"{"path":"/x","cache":1}"#,
        #"{"path":"/x","group":""}"#, #"{"path":"/x","group":"a\nb"}"#, #"[]"#, #"not json"#, #"{"path":"ftp://h/x"}"#
    ])
    func badSpecsAreRefused(spec: String) throws {
        let c = try client()
        #expect(c.define("bad", spec) == NC_ERR_INVALID_ARGUMENT)
        #expect(c.call("bad").error?.isClient(NC_CLIENT_INVALID_REQUEST) == true, "nothing was defined")
    }

    @Test func everySpecKeyIsAccepted() throws {
        let c = try client()
        let spec =
            #"{"method":"GET","path":"/echo","encoding":"query","headers":{"X-E":"1"},"timeout_ms":5000,"#
            + #""envelope":true,"retry":{"max_attempts":3,"backoff":"exponential","initial_ms":200,"multiplier":2.0,"#
            + #""max_delay_ms":5000,"jitter":true,"statuses":[503],"methods":["GET"],"respect_retry_after":true},"#
            + #""cache":"network_else_cache","group":"user"}"#
        #expect(c.define("all", spec) == NC_OK)
        #expect(c.define("noretry", #"{"path":"/echo","retry":false}"#) == NC_OK)
        #expect(c.call("all").headers?["x-e"] == "1")
        #expect(c.call("noretry").succeeded)
    }

    @Test func badNamesAreRefused() throws {
        let c = try client()
        #expect(c.define("", #"{"path":"/x"}"#) == NC_ERR_INVALID_ARGUMENT)
        #expect(c.define("a\u{1}b", #"{"path":"/x"}"#) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_define_endpoint(c.handle, nil, #"{"path":"/x"}"#) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_define_endpoint(c.handle, "x", nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_define_endpoint(nil, "x", #"{"path":"/x"}"#) == NC_ERR_INVALID_ARGUMENT)
        var r: OpaquePointer?
        #expect(nc_request_new_endpoint("", &r) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_new_endpoint("a\nb", &r) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_new_endpoint(nil, &r) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_new_endpoint("x", nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(r == nil)
        #expect(c.define("用户.获取", #"{"path":"/echo"}"#) == NC_OK)
        #expect(c.call("用户.获取").succeeded)
    }

    @Test(arguments: [
        (#""endpoints":{"u":{"method":1,"path":"/x"}}"#, "'endpoints.u.method'"),
        (#""endpoints":{"u":{"path":"/x","colour":1}}"#, "'endpoints.u.colour'"),
        (#""endpoints":{"u":{"path":"/x","retry":{"max_attempts":true}}}"#, "'endpoints.u.retry.max_attempts'"),
        (#""endpoints":{"u":[]}"#, "'endpoints.u'"),
        (#""endpoints":{"u":{"method":"GET"}}"#, "'endpoints.u.path'"),
        (#""endpoints":[]"#, "'endpoints'")
    ])
    func badConfigEndpointsAreRefusedNamingTheKey(member: String, named: String) throws {
        var c: OpaquePointer?
        var e: OpaquePointer?
        #expect(nc_client_new(config(base: server.baseURL, member), &c, &e) == NC_ERR_INVALID_ARGUMENT)
        #expect(c == nil)
        let message = string(nc_error_message(e)) ?? ""
        #expect(nc_error_code(e) == Int64(NC_CLIENT_INVALID_CONFIG))
        #expect(message.contains(named), "\(message)")
        nc_error_free(e)
    }

    // MARK: call arguments

    @Test func callRefusesBadArgumentsWithoutCallingBack() throws {
        let c = try client()
        let collector = Collector()
        #expect(c.callAsync("echo.get", "{not json", collector) == NC_ERR_INVALID_ARGUMENT)
        #expect(c.callAsync("echo.get", "[1]", collector) == NC_ERR_INVALID_ARGUMENT)
        #expect(c.callAsync("", "{}", collector) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_call(c.handle, "echo.get", nil, 0, nil, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_call(nil, "echo.get", nil, 0, collectFn, collector.userdata, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(c.call("echo.get", "{oops").rc == NC_ERR_INVALID_ARGUMENT)
        var r: OpaquePointer?
        var e: OpaquePointer?
        #expect(nc_client_call_sync(c.handle, nil, nil, 0, &r, &e) == NC_ERR_INVALID_ARGUMENT)
        #expect(r == nil && e == nil)
        #expect(c.call("echo.get").succeeded)
        #expect(collector.calls == 0)
    }

    @Test func callWithoutParamsAndFireAndForget() throws {
        let c = try client()
        #expect(c.call("echo.get").query == [:])
        let collector = Collector()
        #expect(nc_client_call(c.handle, "echo.get", "{}", 2, collectFn, collector.userdata, nil) == NC_OK)
        #expect(collector.wait(timeout: 20))
        #expect(collector.outcome?.error == nil)
    }

    // MARK: request overrides

    @Test func requestSettingsOverrideTheEndpoints() throws {
        let c = try TestClient(config(base: server.baseURL, #""headers":{"X-C":"client","X-B":"client"}"#))
        #expect(
            c.define(
                "o",
                #"{"method":"POST","path":"/{route}","encoding":"json","headers":{"X-A":"ep","X-B":"ep"},"envelope":false}"#
            ) == NC_OK)

        let plain = try Request(endpoint: "o")
        plain.params(#"{"route":"echo","k":"v"}"#)
        let raw = c.sync(plain)
        // envelope false: the data is the whole envelope
        #expect((raw.response?.object)?["code"] as? Int == 0, "\(raw)")

        let r = try Request(endpoint: "o")
        r.params(#"{"route":"echo","k":"v"}"#)
        r.header("X-B", "request")
        r.encoding(NC_ENCODING_FORM)
        r.envelope(1)
        r.query("q", "1")
        let o = c.sync(r)
        #expect(o.succeeded, "\(o)")
        #expect(o.method == "POST", "the endpoint's method")
        #expect(o.headers?["x-a"] == "ep")
        #expect(o.headers?["x-b"] == "request")
        #expect(o.headers?["x-c"] == "client")
        #expect(o.form == ["k": ["v"]])
        #expect(o.query == ["q": ["1"]])
    }

    @Test func requestTimeoutOverridesTheEndpoints() throws {
        let c = try client()
        #expect(c.define("slow", #"{"path":"/slow","timeout_ms":100}"#) == NC_OK)
        let timedOut = c.call("slow", #"{"ms":2000}"#)
        #expect(timedOut.error?.domain == NC_DOMAIN_TRANSPORT && timedOut.error?.code == 28, "\(timedOut)")
        let r = try Request(endpoint: "slow")
        r.params(#"{"ms":10}"#)
        r.timeout(20_000)
        let o = c.sync(r)
        #expect(o.error?.domain != NC_DOMAIN_TRANSPORT, "\(o)")
    }

    // MARK: threads and the settings snapshot

    @Test func defineFromInsideACallback() throws {
        let c = try client()
        let h = Handle(c.handle)
        let defined = Box<nc_status>(NC_ERR_FAILED)
        let collector = Collector { _, _ in
            defined.value = nc_client_define_endpoint(h.pointer, "late", #"{"path":"/echo"}"#)
        }
        #expect(c.callAsync("echo.get", nil, collector) == NC_OK)
        #expect(defined.value == NC_OK)
        #expect(c.call("late").succeeded)
    }

    @Test func definitionsFromManyThreadsWhileCalling() throws {
        let c = try client()
        let h = Handle(c.handle)
        onThreads(4) { i in
            for n in 0..<20 {
                _ = nc_client_define_endpoint(h.pointer, "t\(i).\(n)", #"{"path":"/echo"}"#)
            }
        }
        for i in 0..<4 { #expect(c.call("t\(i).19").succeeded) }
    }

    @Test func aBuilderIsReusedAndFollowsRedefinition() throws {
        let c = try client()
        #expect(c.define("v", #"{"path":"/echo"}"#) == NC_OK)
        let r = try Request(endpoint: "v")
        r.params(#"{"a":"1"}"#)
        #expect(c.sync(r).method == "GET")
        #expect(c.sync(r).query == ["a": ["1"]], "sent again unchanged")
        #expect(c.define("v", #"{"method":"POST","path":"/echo","encoding":"json"}"#) == NC_OK)
        let o = c.sync(r)
        #expect(o.method == "POST", "the catalog in force when sent")
        #expect(o.json?["a"] as? String == "1")
    }
}
