// nc_client_new(): the JSON configuration is checked key by key; errors name the key.
import CNetCore
import Foundation
import MockServerSupport
import Testing

/// nc_client_new on `json`, expected to fail: the status, whether *client_out was
/// written, and the error.
private func rejected(_ json: String) -> (rc: nc_status, wroteClient: Bool, error: ErrorInfo?) {
    var c: OpaquePointer?
    var e: OpaquePointer?
    let rc = nc_client_new(json, &c, &e)
    let wrote = c != nil
    if rc == NC_OK { nc_client_free(c) }
    let info = e.map(ErrorInfo.init)
    nc_error_free(e)
    return (rc, wrote, info)
}

@Suite struct ConfigTests {
    let server = MockServer.shared

    @Test func emptyObjectIsValidRawLoopModeAbsoluteURLsOnly() throws {
        let client = try TestClient("{}")
        #expect(nc_client_fd(client.handle) == -1)
        let absolute = try client.sync(server.url("/env/code/fail"))
        #expect(absolute.error == nil)   // raw mode
        #expect(absolute.data == canonical(#"{"code":1001,"msg":"wrong password","data":{"field":"password"}}"#))
        let relative = try client.sync("/env/code/ok")
        let e = try #require(relative.error)
        #expect(relative.rc == NC_ERR_FAILED)
        #expect(e.isClient(NC_CLIENT_INVALID_REQUEST))
        #expect(e.message.contains("base_url"), "\(e.message)")
        #expect(e.attempts == 0)
        #expect(e.httpStatus == 0)
        #expect(relative.response == nil)
    }

    @Test func relativePathWithoutBaseURLCompletesAsyncWithInvalidRequestAndSendsNothing() throws {
        let other = try privateServer()
        defer { other.stop() }
        let client = try TestClient(#"{"envelope":\#(Envelope.a)}"#)
        let c = Collector()
        let (rc, task) = client.send(try Request("GET", "/env/code/ok"), c)
        #expect(rc == NC_OK)   // accepted, then completed with the error
        #expect(task != nil)
        #expect(c.wait())
        nc_task_free(task)
        client.free()
        #expect(c.calls == 1)
        let e = try #require(c.outcome?.error)
        #expect(e.domain == NC_DOMAIN_CLIENT)
        #expect(e.code == Int64(NC_CLIENT_INVALID_REQUEST))
        #expect(e.codeStr == "3")
        #expect(e.attempts == 0)
        #expect(c.outcome?.response == nil)
        #expect(serverStats(other).total == 0)
    }

    @Test func fullConfigurationIsAccepted() throws {
        let json = """
            {"base_url":"\(server.baseURL)/api",
             "environments":{"dev":"\(server.baseURL)/api","prod":"https://api.example.com/v1"},
             "environment":"dev",
             "headers":{"User-Agent":"shop/2.3","X-App-Version":"2.3.0"},
             "timeout_ms":15000,"connect_timeout_ms":5000,
             "envelope":{"code":"code","ok_codes":[0],"success":null,"status":null,"ok_status":[],
                         "message":"msg","data":"data","trace_id":"traceId","auth_expired_codes":[401001,401002]},
             "limits":{"max_connections_per_host":8,"max_response_bytes":104857600,"max_redirects":10},
             "callbacks":"loop"}
            """
        let client = try TestClient(json)
        let o = try client.sync("/echo")
        #expect(o.error == nil, "\(o)")
        let headers = o.echo?["headers"] as? [String: String]
        #expect(headers?["user-agent"] == "shop/2.3")
        #expect(headers?["x-app-version"] == "2.3.0")
        #expect(o.echo?["raw_path"] as? String == "/api/echo")
    }

    @Test(arguments: [
        (#"{"bogus":1}"#, "bogus"),
        (#"{"base_url":"http://127.0.0.1:1","Bogus":true}"#, "Bogus"),
        (#"{"limits":{"bogus":1}}"#, "limits.bogus"),
        (#"{"envelope":{"code":"code","bogus":1}}"#, "envelope.bogus"),
        (#"{"timeout_ms":"x"}"#, "timeout_ms"),
        (#"{"timeout_ms":-5}"#, "timeout_ms"),
        (#"{"timeout_ms":1.5}"#, "timeout_ms"),
        (#"{"connect_timeout_ms":null}"#, "connect_timeout_ms"),
        (#"{"limits":{"max_redirects":-1}}"#, "limits.max_redirects"),
        (#"{"limits":{"max_response_bytes":"big"}}"#, "limits.max_response_bytes"),
        (#"{"limits":[]}"#, "limits"),
        (#"{"envelope":{"code":"code","ok_codes":"0"}}"#, "envelope.ok_codes"),
        (#"{"envelope":{"code":"code","ok_codes":[[0]]}}"#, "envelope.ok_codes"),
        (#"{"envelope":{"code":5}}"#, "envelope.code"),
        (#"{"envelope":"yes"}"#, "envelope"),
        (#"{"headers":{"X-A":1}}"#, "headers.X-A"),
        (#"{"headers":{"Bad Name":"v"}}"#, "headers.Bad Name"),
        (#"{"headers":["X-A"]}"#, "headers"),
        (#"{"base_url":"ftp://127.0.0.1/"}"#, "base_url"),
        (#"{"base_url":"/relative"}"#, "base_url"),
        (#"{"base_url":42}"#, "base_url"),
        (#"{"environments":{"dev":"not a url"}}"#, "environments.dev"),
        (#"{"environments":{"dev":"http://127.0.0.1:1"},"environment":"prod"}"#, "environment"),
        (#"{"environment":"prod"}"#, "environment"),
        (#"{"callbacks":"threads"}"#, "callbacks"),
        (#"{"compression":"yes"}"#, "compression"),
        (#"{"compression":1}"#, "compression"),
        (#"{"envelope":{"status":"status"}}"#, "envelope.ok_status")
    ])
    func wrongKeysAndTypesAreRefusedNamingTheKey(json: String, key: String) {
        let r = rejected(json)
        #expect(r.rc == NC_ERR_INVALID_ARGUMENT)
        #expect(!r.wroteClient)
        #expect(r.error?.domain == NC_DOMAIN_CLIENT)
        #expect(r.error?.code == Int64(NC_CLIENT_INVALID_CONFIG))
        #expect(r.error?.codeStr == "4")
        #expect(r.error?.message.contains("'\(key)'") == true, "message: \(r.error?.message ?? "nil")")
        #expect(r.error?.attempts == 0)
        #expect(r.error?.httpStatus == 0)
    }

    @Test(arguments: ["", "nope", "{", #"{"a":}"#, "{}{}", "[]", "null", "42", #""text""#])
    func invalidJSONOrNotAnObjectIsRefused(json: String) {
        let r = rejected(json)
        #expect(r.rc == NC_ERR_INVALID_ARGUMENT)
        #expect(!r.wroteClient)
        #expect(r.error?.domain == NC_DOMAIN_CLIENT)
        #expect(r.error?.code == Int64(NC_CLIENT_INVALID_CONFIG))
        #expect(r.error?.message.isEmpty == false)
    }

    @Test func invalidJSONMessageHasLineAndColumn() {
        let r = rejected("{\n  \"base_url\": ,\n}")
        #expect(r.error?.message.contains("line 2") == true, "\(r.error?.message ?? "nil")")
        #expect(r.error?.message.contains("column") == true)
    }

    @Test func envelopeNullIsRawMode() throws {
        let o = try fetch(config(base: server.baseURL, envelope: "null"), "/env/code/fail")
        #expect(o.error == nil)
    }

    @Test func envelopeEmptyObjectUsesTheDefaultShape() throws {
        let client = try TestClient(config(base: server.baseURL, envelope: "{}"))
        #expect(try client.sync("/env/code/ok").response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
        let fail = try client.sync("/env/success/fail")
        #expect(fail.error?.domain == NC_DOMAIN_API)
        #expect(fail.error?.code == 4003)
        #expect(fail.error?.traceID == "trace-fail-1")   // default trace field "traceId"
        #expect(fail.error?.message == "forbidden")   // default message field "msg"
    }

    @Test func configHeadersAreSentAndOverridable() throws {
        let client = try TestClient(
            config(base: server.baseURL, envelope: Envelope.a, #""headers":{"X-App":"1","Accept":"application/json"}"#))
        let o = try client.sync("/echo") { $0.header("x-app", "2") }
        let headers = o.echo?["headers"] as? [String: String]
        #expect(headers?["x-app"] == "2")
        #expect(headers?["accept"] == "application/json")
    }

    @Test func nullErrorOutIsAllowed() {
        var c: OpaquePointer?
        #expect(nc_client_new(#"{"bogus":1}"#, &c, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(c == nil)
    }

    @Test func errorOutIsNotWrittenOnSuccess() {
        var c: OpaquePointer?
        var e: OpaquePointer?
        #expect(nc_client_new("{}", &c, &e) == NC_OK)
        #expect(c != nil)
        #expect(e == nil)
        nc_client_free(c)
    }
}
