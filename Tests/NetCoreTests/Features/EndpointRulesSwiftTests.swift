import Foundation
import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// Issue 34 from Swift, against a private loopback server: endpoints that declare
/// their params (refused with nothing sent: the server's counters), their own
/// envelope and flags, adapters that rewrite the query and the body, common params
/// and messages changed at run time; the pattern subset on its own.
@Suite struct EndpointRulesSwiftTests {
    func total(_ server: MockServer) throws -> Int {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let (r, _) = try c.sendSync(try Request(method: "GET", target: "/_stats")).get()
        let object = try JSONSerialization.jsonObject(with: Data(try #require(r?.body.text).utf8)) as? [String: Any]
        return object?["total"] as? Int ?? -1
    }

    func failure(_ body: () async throws(NetError) -> Response) async -> NetError? {
        do throws(NetError) {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test func declaredParamsAreCheckedBeforeSending() async throws {
        let server = try MockServer()
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)","envelope":{}}"#)
        defer { c.shutdown() }
        c.define(
            try Endpoint(
                name: "find", path: "/echo",
                params: ParamRules(
                    [
                        "page": try ParamRule(type: .integer, required: true, min: 1),
                        "q": try ParamRule(type: .string, pattern: "^[a-z]{2,8}$")
                    ], additionalParams: false)))
        for (text, rule) in [
            (#"{}"#, "'required'"), (#"{"page":0}"#, "'min'"), (#"{"page":"1"}"#, "'type'"),
            (#"{"page":1,"q":"A"}"#, "'pattern'"), (#"{"page":1,"x":1}"#, "'additional_params'")
        ] {
            let params = try JSONValue.parse(text).get()
            let e = await failure { () async throws(NetError) -> Response in
                try await c.call("find", params: params)
            }
            #expect(e?.domain == .client && e?.code == NetError.ClientCode.invalidRequest.rawValue, "\(text)")
            #expect(e?.message.contains(rule) == true && e?.attempts == 0, "\(String(describing: e))")
        }
        #expect(try total(server) == 0)
        let ok = try await c.call("find", params: try JSONValue.parse(#"{"page":2,"q":"ab"}"#).get())
        #expect(ok.data?.text.contains("\"page\":[\"2\"]") == true)
        // A bad pattern is refused when the rule is made.
        #expect(throws: NetError.self) { try ParamRule(pattern: "(a|b)") }
    }

    @Test func thePatternSubset() throws {
        let cases: [(String, String, Bool)] = [
            ("^[a-z]+$", "abc", true), ("^[a-z]+$", "abC", false), ("b", "abc", true),
            ("^\\d{3}-\\d{4}$", "555-1234", true), ("^\\d{3}-\\d{4}$", "555-12345", false),
            ("^a.c$", "abc", true), ("^a\\.c$", "abc", false), ("^[^0-9]*$", "abc", true),
            ("^x?y+z*$", "yyy", true), ("^\\w+@\\w+\\.com$", "ada@mail.com", true),
            ("^a{2,}$", "a", false), ("^a{2,}$", "aaaa", true), ("^é+$", "éé", true),
            (String(repeating: "a*", count: 30) + "b", String(repeating: "a", count: 2000), false),
            // An escaped backslash before the final '$': the '$' anchors (found by
            // fuzz_params: "^\\\\$" was refused as "'$' other than at the start or end").
            ("^\\\\$", "\\", true), ("^\\\\$", "\\x", false), ("a\\\\$", "xa\\", true),
            ("^\\\\\\$$", "\\$", true), ("^a\\$", "a$", true), ("^a\\$", "a", false)
        ]
        for (pattern, text, expected) in cases {
            #expect(try PatternSubset(pattern).matches(text) == expected, "\(pattern) ~ \(text)")
        }
        for bad in ["(a)", "a|b", "a**", "[a", "\\", "a{3,1}", "*a", "\\1"] {
            #expect(throws: NetError.self, "\(bad)") { try PatternSubset(bad) }
        }
    }

    final class QuerySigner: RequestAdapter, @unchecked Sendable {
        func adapt(_ request: inout OutgoingRequest) throws(NetError) {
            var pairs = [("ts", "1700000000")]
            if let params = request.params,
                let object = try? JSONSerialization.jsonObject(with: Data(params.text.utf8)) as? [String: Any]
            {
                for (k, v) in object { pairs.append((k, "\(v)")) }
            }
            let text = pairs.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
            try request.setQuery("ts", "1700000000")
            try request.setQuery("sign", fnv(("qsecret\n" + text)))
        }

        func fnv(_ text: String) -> String {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            let hex = String(h, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
    }

    final class Encrypt: RequestAdapter, @unchecked Sendable {
        func adapt(_ request: inout OutgoingRequest) throws(NetError) {
            guard let body = request.body?.text,
                var object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                let password = object["password"] as? String,
                let data = try? JSONSerialization.data(
                    withJSONObject: object.merging(["password": "enc:" + String(password.reversed())]) { $1 })
            else { return }
            object = [:]
            try request.setBody(NetBytes(String(decoding: data, as: UTF8.self)), contentType: "application/json")
        }
    }

    @Test func adaptersRewriteTheQueryAndTheBody() async throws {
        let server = try MockServer()
        let c = try NetClient(
            json: #"{"base_url":"\#(server.baseURL)","envelope":{},"common_params":{"app":"demo"},"#
                + #""endpoints":{"q":{"path":"/qsigned"},"login":{"method":"POST","path":"/echo","encoding":"json"}}}"#)
        defer { c.shutdown() }
        c.addAdapter(QuerySigner())
        c.addAdapter(Encrypt())
        let signed = try await c.call("q", params: try JSONValue.parse(#"{"a":"x"}"#).get())
        #expect(
            signed.data?.text.contains(#""signed":"a=x&app=demo&ts=1700000000""#) == true, "\(signed.data?.text ?? "")")
        // The query signer also signs the POST's query; the body's field is replaced.
        let login = try await c.call("login", params: try JSONValue.parse(#"{"password":"secret"}"#).get())
        #expect(login.data?.text.contains("enc:terces") == true, "\(login.data?.text ?? "")")
        try c.setCommonParam("lang", json: #""fr""#)
        let echo = try await c.send(Request(method: "GET", target: "/echo"))
        #expect(echo.data?.text.contains(#""lang":["fr"]"#) == true)
        #expect(throws: NetError.self) { try c.setCommonParam("bad", json: "[1]") }
    }

    @Test func endpointEnvelopeFlagsAndMessages() async throws {
        let server = try MockServer()
        let c = try NetClient(
            json: #"{"base_url":"\#(server.baseURL)","envelope":{},"retry":{"max_attempts":3,"initial_ms":1},"#
                + #""messages":{"API.1001":"Wrong password.","HTTP.5xx":"Server trouble."},"#
                + #""endpoints":{"whole":{"path":"/object","envelope":{"code":null,"status":"hello","ok_status":["world"],"data":""}},"#
                + #""raw":{"path":"/array","envelope":null},"once":{"path":"/flaky","flags":["no_retry"],"envelope":false}}}"#
        )
        defer { c.shutdown() }
        #expect(try await c.call("whole").data?.text == #"{"hello":"world"}"#)
        #expect(try await c.call("raw").data?.text == "[1,2,3]")
        let flaky = try JSONValue.parse(#"{"key":"swift-once","fails":1}"#).get()
        let once = await failure { () async throws(NetError) -> Response in try await c.call("once", params: flaky) }
        #expect(once?.domain == .http && once?.attempts == 1)
        #expect(once?.userMessage == "Server trouble.")
        let api = await failure { () async throws(NetError) -> Response in
            try await c.send(Request(method: "GET", target: "/env/code/fail"))
        }
        #expect(api?.userMessage == "Wrong password." && api?.message == "wrong password")
        try c.setMessages(json: #"{"API.1001":"Mot de passe incorrect."}"#)
        let fr = await failure { () async throws(NetError) -> Response in
            try await c.send(Request(method: "GET", target: "/env/code/fail"))
        }
        #expect(fr?.userMessage == "Mot de passe incorrect.")
        c.setMessages(nil)
        let none = await failure { () async throws(NetError) -> Response in
            try await c.send(Request(method: "GET", target: "/env/code/fail"))
        }
        #expect(none != nil && none?.userMessage == nil)
        // A server's own 304 is not_modified.
        let r = try await c.send(Request(method: "GET", target: "/status/304"))
        #expect(r.status == 304 && r.notModified && !r.fromCache)
    }
}
