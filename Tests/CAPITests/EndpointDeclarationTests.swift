// Endpoint declarations through the header (issue 34, items 1, 2 and 8): "params"
// rules refused before anything is sent (the mock server's own counters prove it),
// an endpoint's own envelope ("data": "" = the whole body, "envelope": null = raw)
// on an enveloped client, "flags" from the spec, and a server's 304 marked
// not_modified.
import CNetCore
import Foundation
import MockServerSupport
import Testing

private let declared =
    #""endpoints":{"#
    + #""user.find":{"path":"/echo","additional_params":false,"params":{"#
    + #""name":{"type":"string","required":true,"max_length":5,"pattern":"^[a-z]+$"},"#
    + #""age":{"type":"integer","min":0,"max":130},"#
    + #""score":{"type":"number","max":1.5},"#
    + #""role":{"enum":["admin","user",7]},"#
    + #""tags":{"type":"array","max_length":2},"#
    + #""meta":{"type":"object"},"#
    + #""ok":{"type":"boolean"}}},"#
    + #""user.path":{"path":"/users/{id}","additional_params":false,"params":{"q":{"type":"string"}}}}"#

@Suite struct EndpointDeclarationTests {
    /// Each broken rule: (params, the parameter named, the rule named).
    static let refused: [(String, String, String)] = [
        (#"{}"#, "'name'", "'required'"),
        (#"{"name":7}"#, "'name'", "'type'"),
        (#"{"name":"abcdef"}"#, "'name'", "'max_length'"),
        (#"{"name":"Ab"}"#, "'name'", "'pattern'"),
        (#"{"name":"ab","age":-1}"#, "'age'", "'min'"),
        (#"{"name":"ab","age":131}"#, "'age'", "'max'"),
        (#"{"name":"ab","age":1.5}"#, "'age'", "'type'"),
        (#"{"name":"ab","score":1.75}"#, "'score'", "'max'"),
        (#"{"name":"ab","score":"1"}"#, "'score'", "'type'"),
        (#"{"name":"ab","role":"root"}"#, "'role'", "'enum'"),
        (#"{"name":"ab","tags":[1,2,3]}"#, "'tags'", "'max_length'"),
        (#"{"name":"ab","meta":[1]}"#, "'meta'", "'type'"),
        (#"{"name":"ab","ok":"yes"}"#, "'ok'", "'type'"),
        (#"{"name":"ab","extra":1}"#, "'extra'", "'additional_params'"),
        (#"{"name":null}"#, "'name'", "'type'"),
    ]

    @Test func everyBrokenRuleIsRefusedNamingItAndNothingIsSent() throws {
        let own = try privateServer()
        let c = try TestClient(config(base: own.baseURL, declared))
        for (params, name, rule) in Self.refused {
            // Sync and async: the same CLIENT error, attempts 0, once.
            let o = c.call("user.find", params)
            let e = try #require(o.error, "\(params)")
            #expect(o.rc == NC_ERR_FAILED && e.isClient(NC_CLIENT_INVALID_REQUEST), "\(params): \(o)")
            #expect(e.message.contains(name) && e.message.contains(rule), "\(params): \(e.message)")
            #expect(e.message.contains("'user.find'"), "\(e.message)")
            #expect(e.attempts == 0)
            let collector = Collector()
            #expect(c.callAsync("user.find", params, collector) == NC_OK)
            #expect(collector.outcome?.error?.isClient(NC_CLIENT_INVALID_REQUEST) == true, "\(params)")
            #expect(collector.outcome?.error?.attempts == 0)
            #expect(collector.calls == 1)
        }
        #expect(serverStats(own).total == 0)
        // What the rules allow is sent, as it was given.
        let fine = c.call(
            "user.find", #"{"name":"ab","age":130,"score":1.5,"role":7,"tags":["x"],"meta":{},"ok":true}"#)
        #expect(fine.succeeded, "\(fine)")
        #expect(c.call("user.find", #"{"name":"ab","age":4.0}"#).succeeded)
        #expect(serverStats(own).paths == ["/echo": 2])
    }

    /// A path placeholder is declared by the path; others are refused.
    @Test func placeholdersAreAlwaysAllowed() throws {
        let own = try privateServer()
        let c = try TestClient(config(base: own.baseURL, declared))
        let o = c.call("user.path", #"{"id":3,"q":"x"}"#)
        // Sent: the mock's /users/{id} answers its own business error.
        #expect(o.error?.domain == NC_DOMAIN_API && o.error?.code == 404001, "\(o)")
        let no = c.call("user.path", #"{"id":3,"z":1}"#)
        #expect(no.error?.isClient(NC_CLIENT_INVALID_REQUEST) == true && no.error?.message.contains("'z'") == true)
        #expect(serverStats(own).total == 1)
    }

    /// nc_request_new_endpoint + nc_client_send is checked the same way.
    @Test func aRequestBuiltFromTheEndpointIsChecked() throws {
        let own = try privateServer()
        let c = try TestClient(config(base: own.baseURL, declared))
        let r = try Request(endpoint: "user.find")
        r.params(#"{"name":"TOO-LONG"}"#)
        let o = c.sync(r)
        #expect(o.error?.isClient(NC_CLIENT_INVALID_REQUEST) == true && o.error?.message.contains("'name'") == true)
        #expect(serverStats(own).total == 0)
    }

    @Test(arguments: [
        (#"{"path":"/x","params":{"a":{"type":"text"}}}"#, "params.a.type"),
        (#"{"path":"/x","params":{"a":{"min":3,"max":1}}}"#, "params.a.min"),
        (#"{"path":"/x","params":{"a":{"pattern":"(a|b)"}}}"#, "params.a.pattern"),
        (#"{"path":"/x","params":{"a":{"pattern":"a**"}}}"#, "params.a.pattern"),
        (#"{"path":"/x","params":{"a":{"size":1}}}"#, "params.a.size"),
        (#"{"path":"/x","params":{"a":{"enum":[]}}}"#, "params.a.enum"),
        (#"{"path":"/x","params":[]}"#, "params"),
        (#"{"path":"/x","additional_params":1}"#, "additional_params"),
        (#"{"path":"/x","flags":["fast"]}"#, "flags"),
        (#"{"path":"/x","envelope":{"code":"c","ok_codes":"0"}}"#, "envelope.ok_codes"),
        (#"{"path":"/x","envelope":"raw"}"#, "envelope"),
    ])
    func aBadDeclarationIsRefusedNamingTheKey(spec: String, key: String) throws {
        let c = try TestClient(config())
        #expect(c.define("bad", spec) == NC_ERR_INVALID_ARGUMENT)
        // The configuration's "endpoints" names the same key, with its path.
        var client: OpaquePointer?
        var error: OpaquePointer?
        let rc = nc_client_new(config(#""endpoints":{"bad":\#(spec)}"#), &client, &error)
        defer {
            nc_client_free(client)
            nc_error_free(error)
        }
        #expect(rc == NC_ERR_INVALID_ARGUMENT || rc == NC_ERR_FAILED)
        let message = string(nc_error_message(error)) ?? ""
        #expect(message.contains("'endpoints.bad.\(key)'"), "\(message)")
    }

    // MARK: item 2: the endpoint's envelope and flags

    @Test func anEndpointsOwnEnvelopeOnAnEnvelopedClient() throws {
        let c = try TestClient(
            config(
                #""endpoints":{"#
                    + #""whole":{"path":"/object","envelope":{"code":null,"success":null,"status":"hello","ok_status":["world"],"data":""}},"#
                    + #""raw":{"path":"/array","envelope":null},"#
                    + #""status.shape":{"path":"/env/status/ok","envelope":\#(Envelope.c)},"#
                    + #""status.fail":{"path":"/env/status/fail","envelope":\#(Envelope.c)},"#
                    + #""plain":{"path":"/array"}}"#))
        let whole = c.call("whole")
        #expect(whole.succeeded, "\(whole)")
        #expect(whole.data == #"{"hello":"world"}"#)
        let raw = c.call("raw")
        #expect(raw.succeeded && raw.data == "[1,2,3]", "\(raw)")
        let status = c.call("status.shape")
        #expect(status.succeeded && status.data == #"{"items":[1,2,3]}"#, "\(status)")
        let fail = c.call("status.fail")
        #expect(fail.error?.domain == NC_DOMAIN_API && fail.error?.codeStr == "E42", "\(fail)")
        // The client's own envelope still applies to the others.
        #expect(c.call("plain").error?.domain == NC_DOMAIN_PARSE)
    }

    @Test func flagsFromTheSpec() throws {
        let own = try privateServer()
        let c = try TestClient(
            config(
                base: own.baseURL, envelope: "null", #""retry":{"max_attempts":3,"initial_ms":1,"max_delay_ms":5}"#,
                #""endpoints":{"once":{"path":"/flaky","flags":["no_retry"]},"again":{"path":"/flaky"}}"#))
        let once = c.call("once", #"{"key":"decl-once","fails":1}"#)
        #expect(once.error?.domain == NC_DOMAIN_HTTP && once.error?.code == 503 && once.error?.attempts == 1, "\(once)")
        let again = c.call("again", #"{"key":"decl-again","fails":1}"#)
        #expect(again.succeeded, "\(again)")
        #expect(serverStats(own).paths == ["/flaky": 3])
    }

    /// skip_error_handler from the spec: the client's error handler is not called.
    @Test func skipErrorHandlerFromTheSpec() throws {
        let c = try TestClient(
            config(#""endpoints":{"quiet":{"path":"/status/500","flags":["skip_error_handler"]},"loud":{"path":"/status/500"}}"#))
        let seen = DeclCounter()
        #expect(nc_client_set_error_handler(c.handle, counterErrorFn, Unmanaged.passUnretained(seen).toOpaque()) == NC_OK)
        #expect(c.call("quiet").error?.code == 500)
        #expect(seen.value == 0)
        #expect(c.call("loud").error?.code == 500)
        #expect(seen.value == 1)
    }

    // MARK: item 8

    @Test func aServersOwn304IsMarkedNotModified() throws {
        for envelope in ["null", Envelope.a] {
            let c = try TestClient(config(envelope: envelope))
            var r: OpaquePointer?
            var e: OpaquePointer?
            let req = try Request("GET", "/status/304")
            #expect(nc_client_send_sync(c.handle, req.handle, &r, &e) == NC_OK, "\(envelope)")
            #expect(nc_response_status(r) == 304 && nc_response_not_modified(r) == 1 && nc_response_from_cache(r) == 0)
            nc_response_free(r)
            nc_error_free(e)
            let ok = try Request("GET", envelope == "null" ? "/object" : "/env/code/ok")
            #expect(nc_client_send_sync(c.handle, ok.handle, &r, &e) == NC_OK)
            #expect(nc_response_not_modified(r) == 0)
            nc_response_free(r)
            nc_error_free(e)
        }
    }
}

final class DeclCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    var value: Int { lock.withLock { n } }
    func add() { lock.withLock { n += 1 } }
}

private let counterErrorFn: nc_complete_fn = { _, _, userdata in
    guard let userdata else { return }
    Unmanaged<DeclCounter>.fromOpaque(userdata).takeUnretainedValue().add()
}
