// Adapters that rewrite the request (issue 34, item 3) and messages for people
// (item 5), through the header against the mock server: a signed query parameter
// the server verifies (/qsigned), a body field replaced (and signed after), the
// params as JSON, common params changed at run time; "messages" lookups, the JSON,
// the error handler, a run-time switch.
import CNetCore
import Foundation
import MockServerSupport
import Testing

/// FNV-1a 64 in lowercase hex (the mock's /qsigned checksum).
func fnv1a64(_ text: String) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in text.utf8 {
        h ^= UInt64(b)
        h = h &* 0x100_0000_01b3
    }
    let hex = String(h, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}

/// What the rewriting adapters saw.
final class RewriteProbe: @unchecked Sendable {
    let lock = NSLock()
    var params: [String?] = []
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

/// Adds ts=1700000000 and sign=fnv("qsecret\n" + sorted "k=v" of the params and ts).
let querySigningAdapter: nc_adapter_fn = { out, userdata in
    guard let userdata else { return NC_ERR_INVALID_ARGUMENT }
    let probe = Unmanaged<RewriteProbe>.fromOpaque(userdata).takeUnretainedValue()
    let json = string(nc_outgoing_params_json(out))
    probe.lock.withLock { probe.params.append(json) }
    var pairs: [(String, String)] = [("ts", "1700000000")]
    if let json, let object = foundationJSON(json) as? [String: Any] {
        for (k, v) in object { pairs.append((k, "\(v)")) }
    }
    let text = pairs.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(
        separator: "&")
    guard nc_outgoing_set_query(out, "ts", "1700000000") == NC_OK,
        nc_outgoing_set_query(out, "sign", "stale") == NC_OK,   // replaced just below
        nc_outgoing_set_query(out, "sign", fnv1a64("qsecret\n" + text)) == NC_OK
    else { return NC_ERR_FAILED }
    return NC_OK
}

/// Replaces the "password" field of a JSON body with "enc:" + the reversed text.
let passwordAdapter: nc_adapter_fn = { out, _ in
    var n = 0
    guard let p = nc_outgoing_body(out, &n),
        var object = try? JSONSerialization.jsonObject(with: Data(bytes: p, count: n)) as? [String: Any],
        let password = object["password"] as? String
    else { return NC_OK }
    object["password"] = "enc:" + String(password.reversed())
    guard let data = try? JSONSerialization.data(withJSONObject: object) else { return NC_ERR_FAILED }
    return data.withUnsafeBytes { nc_outgoing_set_body(out, $0.baseAddress, $0.count, "application/json") }
}

/// Removes the query parameter "drop" and the body.
let dropAdapter: nc_adapter_fn = { out, _ in
    guard nc_outgoing_set_query(out, "drop", nil) == NC_OK else { return NC_ERR_FAILED }
    return nc_outgoing_set_body(out, nil, 0, nil)
}

@Suite struct RewritingAdapterTests {
    @Test func aSignedQueryParameterTheServerVerifies() throws {
        let c = try TestClient(
            config(#""endpoints":{"q":{"path":"/qsigned"}}"#, #""common_params":{"app":"demo"}"#))
        // Without the adapter the server refuses.
        #expect(c.call("q", #"{"a":"x y"}"#).error?.code == 401)
        let probe = RewriteProbe()
        #expect(nc_client_add_adapter(c.handle, querySigningAdapter, probe.userdata) == NC_OK)
        let o = c.call("q", #"{"a":"x y","n":2}"#)
        #expect(o.succeeded, "\(o)")
        #expect((o.response?.object)?["signed"] as? String == "a=x y&app=demo&n=2&ts=1700000000")
        // The adapter read the params as JSON, the common params included.
        let seen = try #require(probe.lock.withLock { probe.params.last ?? nil })
        #expect(foundationJSON(seen) as? NSDictionary == ["a": "x y", "n": 2, "app": "demo"] as NSDictionary)
        // A plain request with no params: the adapter sees the common params only.
        let r = try Request("GET", "/qsigned")
        #expect(c.sync(r).succeeded)
    }

    @Test func aBodyFieldIsReplacedAndSignedAfter() throws {
        let c = try TestClient(
            config(
                #""signing":{"secret":"mock-signing-secret"}"#,
                #""endpoints":{"login":{"method":"POST","path":"/echo","encoding":"json"},"#
                    + #""login.signed":{"method":"POST","path":"/signed","encoding":"json"}}"#))
        #expect(nc_client_add_adapter(c.handle, passwordAdapter, nil) == NC_OK)
        let o = c.call("login", #"{"user":"ada","password":"secret"}"#)
        #expect(o.succeeded, "\(o)")
        #expect(o.echo?["json"] as? NSDictionary == ["user": "ada", "password": "enc:terces"] as NSDictionary)
        #expect(o.echo?["content_type"] as? String == "application/json")
        // Signing runs after the adapters: the server verifies the new body's hash.
        let signed = c.call("login.signed", #"{"user":"ada","password":"secret"}"#)
        #expect(signed.succeeded, "\(signed)")
    }

    @Test func aQueryParameterAndTheBodyAreRemoved() throws {
        let c = try TestClient(config())
        #expect(nc_client_add_adapter(c.handle, dropAdapter, nil) == NC_OK)
        let r = try Request("POST", "/echo?keep=1&drop=2&drop=3")
        r.body("payload", "text/plain")
        let o = c.sync(r)
        #expect(o.succeeded, "\(o)")
        #expect(o.echo?["query"] as? [String: [String]] == ["keep": ["1"]])
        #expect((o.echo?["body"] as? String ?? "") == "", "\(String(describing: o.echo))")
    }

    @Test func setQueryAndSetBodyRefuseBadInput() throws {
        let c = try TestClient(config())
        let probe = AdapterCallResults()
        #expect(nc_client_add_adapter(c.handle, badInputAdapter, probe.userdata) == NC_OK)
        #expect(c.sync(try Request("GET", "/echo")).succeeded)
        #expect(probe.results == [NC_ERR_INVALID_ARGUMENT, NC_ERR_INVALID_ARGUMENT, NC_ERR_INVALID_ARGUMENT, NC_ERR_INVALID_ARGUMENT])
        #expect(nc_outgoing_set_query(nil, "a", "b") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_outgoing_params_json(nil) == nil)
    }

    @Test func commonParamsChangeAtRunTime() throws {
        let c = try TestClient(config(#""common_params":{"app":"demo"}"#))
        #expect(nc_client_set_common_param(c.handle, "lang", #""fr""#) == NC_OK)
        #expect(nc_client_set_common_param(c.handle, "v", "2") == NC_OK)
        var o = try c.sync("/echo")
        #expect(o.echo?["query"] as? [String: [String]] == ["app": ["demo"], "lang": ["fr"], "v": ["2"]])
        #expect(nc_client_set_common_param(c.handle, "app", nil) == NC_OK)
        #expect(nc_client_set_common_param(c.handle, "lang", #""de""#) == NC_OK)
        o = try c.sync("/echo")
        #expect(o.echo?["query"] as? [String: [String]] == ["lang": ["de"], "v": ["2"]])
        for bad in ["{}", "[1]", "null", "nope", ""] {
            #expect(nc_client_set_common_param(c.handle, "x", bad) == NC_ERR_INVALID_ARGUMENT, "\(bad)")
        }
        #expect(nc_client_set_common_param(c.handle, "", "1") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_common_param(nil, "x", "1") == NC_ERR_INVALID_ARGUMENT)
        o = try c.sync("/echo")
        #expect(o.echo?["query"] as? [String: [String]] == ["lang": ["de"], "v": ["2"]])
    }

    // MARK: item 5

    static let english =
        #"{"TRANSPORT":"Check your connection.","TRANSPORT.7":"The server is down.","API.1001":"Wrong password.","#
        + #""HTTP.5xx":"The server had a problem.","HTTP":"Something went wrong.","API.E1001":"Account locked."}"#
    static let french =
        #"{"TRANSPORT":"Vérifiez votre connexion.","API.1001":"Mot de passe incorrect.","HTTP":"Une erreur est survenue."}"#

    @Test func messagesMostSpecificWinsAndSwitchAtRunTime() throws {
        let c = try TestClient(config(#""messages":\#(Self.english)"#))
        func userMessage(_ path: String, base: String? = nil) throws -> (String?, String?, String) {
            let r = try Request("GET", base.map { $0 + path } ?? path)
            var resp: OpaquePointer?
            var e: OpaquePointer?
            _ = nc_client_send_sync(c.handle, r.handle, &resp, &e)
            defer {
                nc_response_free(resp)
                nc_error_free(e)
            }
            let json = foundationJSON(string(nc_error_json(e))) as? [String: Any]
            return (string(nc_error_user_message(e)), json?["user_message"] as? String, string(nc_error_message(e)) ?? "")
        }
        let api = try userMessage("/env/code/fail")
        #expect(api.0 == "Wrong password." && api.1 == "Wrong password.")
        #expect(api.2 == "wrong password" || api.2.contains("wrong password"), "the developer message stays: \(api.2)")
        #expect(try userMessage("/env/code/string").0 == "Account locked.")
        #expect(try userMessage("/status/503?body=text").0 == "The server had a problem.")
        #expect(try userMessage("/status/404?body=text").0 == "Something went wrong.")
        let closed = "http://127.0.0.1:\(closedLoopbackPort())"
        #expect(try userMessage("/x", base: closed).0 == "The server is down.")
        // No key for PARSE: NULL, and null in the JSON.
        let parse = try userMessage("/badjson")
        #expect(parse.0 == nil && parse.1 == nil)

        // The error handler sees it too.
        let seen = MessageSeen()
        #expect(nc_client_set_error_handler(c.handle, messageSeenFn, seen.userdata) == NC_OK)
        _ = try userMessage("/env/code/fail")
        #expect(seen.texts == ["Wrong password."])

        // A locale switch: errors completing from now on read the new table.
        #expect(nc_client_set_messages_json(c.handle, Self.french) == NC_OK)
        #expect(try userMessage("/env/code/fail").0 == "Mot de passe incorrect.")
        #expect(try userMessage("/status/503?body=text").0 == "Une erreur est survenue.")
        #expect(try userMessage("/x", base: closed).0 == "Vérifiez votre connexion.")
        // Bad tables change nothing.
        for bad in [#"{"NETWORK":"x"}"#, #"{"API.1":""}"#, #"{"API":1}"#, "[]", "nope"] {
            #expect(nc_client_set_messages_json(c.handle, bad) == NC_ERR_INVALID_ARGUMENT, "\(bad)")
        }
        #expect(try userMessage("/env/code/fail").0 == "Mot de passe incorrect.")
        #expect(nc_client_set_messages_json(c.handle, nil) == NC_OK)
        #expect(try userMessage("/env/code/fail").0 == nil)
        #expect(nc_error_user_message(nil) == nil)
    }

    @Test func aBadMessagesKeyRefusesTheConfiguration() throws {
        var client: OpaquePointer?
        var error: OpaquePointer?
        #expect(nc_client_new(config(#""messages":{"TRANSPORT.28":"ok","NETWORK":"x"}"#), &client, &error) == NC_ERR_INVALID_ARGUMENT)
        #expect(string(nc_error_message(error))?.contains("'messages'") == true)
        #expect(string(nc_error_message(error))?.contains("'NETWORK'") == true)
        nc_client_free(client)
        nc_error_free(error)
    }
}

final class AdapterCallResults: @unchecked Sendable {
    var results: [nc_status] = []
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

let badInputAdapter: nc_adapter_fn = { out, userdata in
    guard let userdata else { return NC_ERR_INVALID_ARGUMENT }
    let p = Unmanaged<AdapterCallResults>.fromOpaque(userdata).takeUnretainedValue()
    p.results = [
        nc_outgoing_set_query(out, "", "x"),
        nc_outgoing_set_query(out, nil, "x"),
        nc_outgoing_set_body(out, nil, 3, nil),
        nc_outgoing_set_body(out, "x", 1, "text/plain\r\nX-Evil: 1"),
    ]
    return NC_OK
}

final class MessageSeen: @unchecked Sendable {
    let lock = NSLock()
    var seen: [String] = []
    var texts: [String] { lock.withLock { seen } }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

let messageSeenFn: nc_complete_fn = { _, error, userdata in
    guard let userdata else { return }
    let s = Unmanaged<MessageSeen>.fromOpaque(userdata).takeUnretainedValue()
    let text = string(nc_error_user_message(error)) ?? "<NULL>"
    s.lock.withLock { s.seen.append(text) }
}
