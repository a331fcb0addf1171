// Seam 1 (docs/contract.md#the-request-lifecycle, #adapters) and the header's
// adapters, token, basic credentials and redirect options: common params, token,
// basic auth, C adapters (order, failure, per attempt but not per hop), HMAC signing
// checked by the server, max_redirects 0 and nc_response_url — all through
// include/netcore.h against the mock server.
import CNetCore
import Foundation
import MockServerSupport
import Testing

/// What a C adapter saw and does; passed as its userdata.
final class AdapterProbe: @unchecked Sendable {
    let name: String
    let lock = NSLock()
    var calls = 0
    /// Authorization and X-Order as this adapter saw them, and the URL.
    var sawAuthorization: [String?] = []
    var sawOrder: [String?] = []
    var sawURL: [String] = []
    var sawBody: [String] = []
    var fail: (status: nc_status, message: String?)?
    var setHeaderStatus: nc_status = NC_OK
    var badHeaderStatus: nc_status = NC_OK

    init(_ name: String, fail: (nc_status, String?)? = nil) {
        self.name = name
        self.fail = fail.map { (status: $0.0, message: $0.1) }
    }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

/// Appends its name to X-Order, records what it saw, or fails as told.
let probeAdapter: nc_adapter_fn = { out, userdata in
    guard let userdata else { return NC_ERR_INVALID_ARGUMENT }
    let p = Unmanaged<AdapterProbe>.fromOpaque(userdata).takeUnretainedValue()
    let order = string(nc_outgoing_header(out, "X-Order"))
    var n = 0
    let body =
        nc_outgoing_body(out, &n).map { String(decoding: UnsafeRawBufferPointer(start: $0, count: n), as: UTF8.self) }
        ?? ""
    p.lock.withLock {
        p.calls += 1
        p.sawAuthorization.append(string(nc_outgoing_header(out, "authorization")))
        p.sawOrder.append(order)
        p.sawURL.append(string(nc_outgoing_url(out)) ?? "")
        p.sawBody.append(body)
    }
    if let fail = p.fail {
        _ = fail.message.map { nc_outgoing_fail(out, $0) }
        return fail.status
    }
    let status = nc_outgoing_set_header(out, "X-Order", (order.map { $0 + "," } ?? "") + p.name)
    let bad = nc_outgoing_set_header(out, "X-Bad", "a\r\nInjected: 1")
    p.lock.withLock {
        p.setHeaderStatus = status
        p.badHeaderStatus = bad
    }
    return NC_OK
}

/// Adds, replaces or removes headers as its userdata (a HeaderEdit) says.
final class HeaderEdit: @unchecked Sendable {
    let edits: [(name: String, value: String?)]
    init(_ edits: [(String, String?)]) { self.edits = edits.map { (name: $0.0, value: $0.1) } }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

let headerEditAdapter: nc_adapter_fn = { out, userdata in
    guard let userdata else { return NC_ERR_INVALID_ARGUMENT }
    for (name, value) in Unmanaged<HeaderEdit>.fromOpaque(userdata).takeUnretainedValue().edits {
        let rc = value.map { nc_outgoing_set_header(out, name, $0) } ?? nc_outgoing_set_header(out, name, nil)
        if rc != NC_OK { return rc }
    }
    return NC_OK
}

@Suite struct AdapterTests {
    let server = MockServer.shared

    /// A client with adapters `probes` added in order.
    func client(_ json: String, _ probes: [AdapterProbe]) throws -> TestClient {
        let c = try TestClient(json)
        for p in probes { #expect(nc_client_add_adapter(c.handle, probeAdapter, p.userdata) == NC_OK) }
        return c
    }

    @Test func adaptersRunInOrderAfterCommonParamsAndTokenAndBeforeSigning() throws {
        let a = AdapterProbe("a"), b = AdapterProbe("b")
        let c = try client(
            config(
                envelope: Envelope.a, #""common_params":{"app":"shop"}"#,
                #""signing":{"secret":"mock-signing-secret"}"#), [a, b])
        defer { c.free() }
        #expect(nc_client_set_token(c.handle, "tok-1") == NC_OK)
        let o = try c.sync("/echo") { $0.query("q", "1") }
        #expect(o.error == nil, "\(o)")
        let headers = try #require(o.echo?["headers"] as? [String: String])
        #expect(headers["x-order"] == "a,b")
        #expect(headers["authorization"] == "Bearer tok-1")
        #expect(headers["x-signature"]?.count == 64)
        #expect(headers["x-timestamp"].flatMap { Int($0) } != nil)
        #expect(headers["x-bad"] == nil)
        #expect((o.echo?["query"] as? [String: [String]])?["app"] == ["shop"])
        // a saw the token and the common params; b saw what a set.
        #expect(a.sawAuthorization == ["Bearer tok-1"] && b.sawAuthorization == ["Bearer tok-1"])
        #expect(a.sawOrder == [nil] && b.sawOrder == ["a"])
        #expect(a.sawURL.first?.contains("app=shop") == true)
        #expect(a.setHeaderStatus == NC_OK)
        #expect(a.badHeaderStatus == NC_ERR_INVALID_ARGUMENT)   // CR/LF refused
    }

    /// Each attempt sends exactly the adapters' headers, once each, whether they
    /// only added names (the request's own lines are shared, not rebuilt:
    /// PreparedRequest.adapted) or replaced, removed, or added a header that
    /// changes the lines the library adds itself — sent again on the same handle,
    /// through the loop and synchronously.
    @Test func adaptedHeadersAreSentExactlyOnceEachWhateverTheAdaptersDid() throws {
        let base = #""headers":{"X-Common":"base","X-Gone":"soon"},"compression":false"#
        let signing = #""signing":{"secret":"mock-signing-secret"}"#
        struct Case {
            let edits: [(String, String?)]
            let expect: [String: String?]
        }
        let cases: [Case] = [
            // Only new names: the shared-list path.
            Case(edits: [("X-Added", "1")], expect: ["x-added": "1", "x-common": "base", "x-gone": "soon"]),
            // A replaced and a removed header: the whole list is rebuilt.
            Case(
                edits: [("X-Common", "changed"), ("X-Gone", nil), ("X-Added", "2")],
                expect: ["x-added": "2", "x-common": "changed", "x-gone": nil]),
            // A new name that decides a line of the library's own.
            Case(
                edits: [("Accept-Encoding", "gzip")],
                expect: ["accept-encoding": "gzip", "x-common": "base", "x-gone": "soon"])
        ]
        for k in cases {
            let edit = HeaderEdit(k.edits)
            let c = try TestClient(config(envelope: Envelope.a, base, signing))
            defer { c.free() }
            #expect(nc_client_add_adapter(c.handle, headerEditAdapter, edit.userdata) == NC_OK)
            let request = try Request("GET", "/echo")
            for round in 0..<3 {
                let o =
                    round == 1
                    ? c.sendAndWait(request).outcome ?? Outcome(rc: NC_ERR_FAILED, response: nil, error: nil)
                    : c.sync(request)
                #expect(o.error == nil, "\(k.edits) round \(round): \(o)")
                let headers = try #require(o.echo?["headers"] as? [String: String])
                for (name, value) in k.expect { #expect(headers[name] == value, "\(k.edits) \(name): \(headers)") }
                // One signature and one timestamp line (a second would be joined with ", ").
                #expect(headers["x-signature"]?.count == 64, "\(headers)")
                #expect(headers["x-timestamp"]?.contains(",") == false)
            }
            // The library's own lines follow the adapted headers: with the adapter's
            // Accept-Encoding the answer is decompressed.
            if k.edits.contains(where: { $0.0 == "Accept-Encoding" }) {
                let gz = try c.sync("/gzip")
                #expect(gz.error == nil, "\(gz)")
                #expect((gz.echo?["compressed"] as? Bool) == true, "\(gz)")
            }
        }
        // An adapter that adds nothing, without signing: the request itself is
        // sent, again and again (its header lines are never freed twice).
        let idle = HeaderEdit([])
        let plain = try TestClient(config(envelope: Envelope.a, base))
        defer { plain.free() }
        #expect(nc_client_add_adapter(plain.handle, headerEditAdapter, idle.userdata) == NC_OK)
        let request = try Request("GET", "/echo")
        for round in 0..<4 {
            let o =
                round % 2 == 1
                ? plain.sendAndWait(request).outcome ?? Outcome(rc: NC_ERR_FAILED, response: nil, error: nil)
                : plain.sync(request)
            #expect(o.error == nil, "\(o)")
            #expect((o.echo?["headers"] as? [String: String])?["x-common"] == "base")
        }
    }

    @Test func aFailingAdapterSendsNothing() throws {
        let server = try privateServer()
        defer { server.stop() }
        let first = AdapterProbe("first")
        let refusing = AdapterProbe("refusing", fail: (NC_ERR_FAILED, "no API key configured"))
        let never = AdapterProbe("never")
        let c = try client(config(base: server.baseURL), [first, refusing, never])
        defer { c.free() }
        let o = try c.sync("/echo")
        let e = try #require(o.error)
        #expect(e.isClient(NC_CLIENT_ADAPTER_FAILED))
        #expect(e.message == "no API key configured")
        #expect(e.attempts == 0)
        #expect(o.response == nil)
        #expect(first.calls == 1 && never.calls == 0)
        // The asynchronous path too.
        let collected = c.sendAndWait(try Request("GET", "/echo"))
        #expect(collected.outcome?.error?.isClient(NC_CLIENT_ADAPTER_FAILED) == true)
        #expect(serverStats(server).paths["/echo"] == nil)
    }

    @Test func aNonOKReturnWithoutAMessageFailsToo() throws {
        let p = AdapterProbe("p", fail: (NC_ERR_INVALID_STATE, nil))
        let c = try client(config(), [p])
        defer { c.free() }
        let e = try #require(try c.sync("/echo").error)
        #expect(e.isClient(NC_CLIENT_ADAPTER_FAILED))
        #expect(e.message.contains("NC_ERR_INVALID_STATE"), "\(e.message)")
    }

    @Test func aRedirectHopIsNotAdaptedAgain() throws {
        let p = AdapterProbe("p")
        let c = try client(config(), [p])
        defer { c.free() }
        var r: OpaquePointer?
        var e: OpaquePointer?
        let request = try Request("GET", "/redirect/chain?n=2")
        #expect(nc_client_send_sync(c.handle, request.handle, &r, &e) == NC_OK)
        defer { nc_response_free(r); nc_error_free(e) }
        #expect(p.calls == 1)
        #expect(string(nc_response_url(r)) == server.url("/redirect/chain?n=0"))
        #expect(nc_response_url(nil) == nil)
    }

    @Test func theServerVerifiesTheSignature() throws {
        let c = try TestClient(
            config(
                envelope: Envelope.a, #""signing":{"secret":"mock-signing-secret"}"#,
                #""common_params":{"app":"shop","v":2}"#))
        defer { c.free() }
        let get = try c.sync("/signed") {
            $0.query("b", "x y"); $0.query("a", "2"); $0.query("a", "1")
        }
        #expect(get.error == nil, "\(get)")
        #expect((get.echo?["verified"] as? Bool) == true)
        let post = try c.sync("/signed", method: "POST") {
            $0.params(#"{"item":"book","qty":2}"#); $0.encoding(NC_ENCODING_JSON)
        }
        #expect(post.error == nil, "\(post)")
        let async = c.sendAndWait(try Request("PUT", "/signed?z=1&y=%2F"))
        #expect(async.outcome?.error == nil, "\(String(describing: async.outcome))")
        // A wrong secret is refused by the server.
        let wrong = try fetch(config(envelope: Envelope.a, #""signing":{"secret":"other"}"#), "/signed")
        #expect(wrong.error?.domain == NC_DOMAIN_HTTP && wrong.error?.code == 401)
    }

    @Test func commonParamsGoWhereTheParamsGo() throws {
        let c = try TestClient(config(envelope: Envelope.a, #""common_params":{"app":"shop","n":1,"own":"common"}"#))
        defer { c.free() }
        let query = try c.sync("/echo") { $0.query("own", "mine") }
        let q = query.echo?["query"] as? [String: [String]]
        #expect(q?["app"] == ["shop"] && q?["n"] == ["1"] && q?["own"] == ["mine"], "\(query)")
        let form = try c.sync("/echo", method: "POST") { $0.params(#"{"own":"mine","x":1}"#) }
        let f = form.echo?["form"] as? [String: [String]]
        #expect(f?["app"] == ["shop"] && f?["own"] == ["mine"] && f?["x"] == ["1"], "\(form)")
        let json = try c.sync("/echo", method: "POST") {
            $0.params(#"{"own":"mine"}"#); $0.encoding(NC_ENCODING_JSON)
        }
        #expect(canonical(json.echo?["body"] as? String) == #"{"app":"shop","n":1,"own":"mine"}"#, "\(json)")
        let noParams = try c.sync("/echo", method: "POST")
        #expect((noParams.echo?["form"] as? [String: [String]])?["app"] == ["shop"], "\(noParams)")
        let raw = try c.sync("/echo", method: "POST") { $0.body("hello", "text/plain") }
        #expect(raw.echo?["body"] as? String == "hello")
        #expect((raw.echo?["query"] as? [String: [String]])?["app"] == ["shop"], "\(raw)")
    }

    @Test func tokenIsSentClearedAndLosesToTheRequestsOwnHeader() throws {
        let c = try TestClient(config())
        defer { c.free() }
        func auth(_ build: (Request) -> Void = { _ in }) throws -> String? {
            (try c.sync("/echo", build).echo?["headers"] as? [String: String])?["authorization"]
        }
        #expect(try auth() == nil)
        #expect(nc_client_set_token(c.handle, "abc") == NC_OK)
        #expect(try auth() == "Bearer abc")
        #expect(try auth { $0.header("Authorization", "Custom x") } == "Custom x")
        #expect(nc_client_set_basic_auth(c.handle, "user", "pa:ss") == NC_OK)
        #expect(try auth() == "Bearer abc")   // the token wins
        #expect(nc_client_set_token(c.handle, nil) == NC_OK)
        #expect(try auth() == "Basic dXNlcjpwYTpzcw==")   // base64("user:pa:ss")
        #expect(nc_client_set_basic_auth(c.handle, nil, nil) == NC_OK)
        #expect(try auth() == nil)
        let profile = try c.sync("/profile")
        #expect(profile.error?.code == 401001)
        #expect(nc_client_set_token(c.handle, "tok-ann") == NC_OK)
        #expect(try c.sync("/profile").error == nil)
    }

    @Test func badCredentialsAreRefused() throws {
        let c = try TestClient(config())
        defer { c.free() }
        #expect(nc_client_set_token(nil, "x") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_token(c.handle, "") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_token(c.handle, "a\r\nX-Evil: 1") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_basic_auth(c.handle, "a:b", "c") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_basic_auth(c.handle, "a", "c\nd") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_add_adapter(c.handle, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_outgoing_set_header(nil, "a", "b") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_outgoing_fail(nil, "m") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_outgoing_method(nil) == nil && nc_outgoing_url(nil) == nil && nc_outgoing_header(nil, "a") == nil)
        let r = try Request("GET", "/echo")
        #expect(nc_request_set_max_redirects(r.handle, 101) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_max_redirects(r.handle, -2) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_max_redirects(nil, 0) == NC_ERR_INVALID_ARGUMENT)
        #expect(try c.sync("/echo").error == nil)
    }

    @Test func maxRedirectsZeroGivesTheRedirectResponse() throws {
        for envelope in [Envelope.a, "null"] {
            let c = try TestClient(config(envelope: envelope))
            defer { c.free() }
            let r = try Request("GET", "/redirect?to=/echo")
            #expect(nc_request_set_max_redirects(r.handle, 0) == NC_OK)
            let o = c.sync(r)
            #expect(o.error == nil, "\(envelope): \(o)")
            #expect(o.response?.status == 302)
            #expect(o.response?.headers.contains { $0.name.lowercased() == "location" && $0.value == "/echo" } == true)
            #expect(o.response?.dataJSON == "null" || envelope == "null")
            // -1 goes back to the client's limit: followed.
            #expect(nc_request_set_max_redirects(r.handle, -1) == NC_OK)
            #expect(c.sync(r).response?.status == 200)
        }
        // A 3xx body that is not an envelope is a success with the raw body.
        let o = try fetch(config(), "/status/301?body=text") { nc_request_set_max_redirects($0.handle, 0) }
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.status == 301)
    }
}
