// CR/LF injection (request splitting, header smuggling) is refused at the boundary
// and nothing reaches the server.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct InjectionTests {
    @Test func crlfEverywhereIsRefusedAndTheServerSeesNothing() throws {
        let server = try privateServer()
        defer { server.stop() }
        #expect(serverStats(server).total == 0)
        let base = config(base: server.baseURL)

        var r: OpaquePointer?
        #expect(nc_request_new("GET\r\nX: y", "/echo", &r) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_new("GET /evil HTTP/1.1\r\n", "/echo", &r) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_new("GET", "/echo\r\nX-Injected: 1", &r) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_new("GET", "/echo\nX-Injected: 1", &r) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_new("GET", "\(server.baseURL)/echo HTTP/1.1\r\nHost: x", &r) == NC_ERR_INVALID_ARGUMENT)
        #expect(r == nil)

        let request = try Request("GET", "/echo")
        #expect(request.header("X-A\r\nB", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.header("X-A\nB", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.header("X-A", "v\r\nX-Injected: 1") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.header("X-A", "v\nX-Injected: 1") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.header("X-A", "v\rX-Injected: 1") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.body("x", "text/plain\r\nX-Injected: 1") == NC_ERR_INVALID_ARGUMENT)

        let client = try TestClient(base)
        #expect(nc_client_set_header(client.handle, "X-Default", "v\nX-Injected: 1") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, "X-Default", "v\r\nX-Injected: 1") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, "X-D\r\nX-Injected", "1") == NC_ERR_INVALID_ARGUMENT)

        // A configuration header with CR/LF: the client is not created, and the error names the key.
        let cases = [
            ("X-Config", #"v\r\nX-Injected: 1"#, "'headers.X-Config'"),
            ("X-Config", #"v\nX"#, "'headers.X-Config'"),
            (#"X-Bad\r\nName"#, "v", "'headers.X-Bad")
        ]
        for (name, value, key) in cases {
            var c: OpaquePointer?
            var e: OpaquePointer?
            let json = config(base: server.baseURL, envelope: Envelope.a, #""headers":{"\#(name)":"\#(value)"}"#)
            #expect(nc_client_new(json, &c, &e) == NC_ERR_INVALID_ARGUMENT, "\(json)")
            #expect(c == nil)
            let error = try #require(e)
            #expect(nc_error_domain(error) == NC_DOMAIN_CLIENT)
            #expect(nc_error_code(error) == Int64(NC_CLIENT_INVALID_CONFIG))
            let message = string(nc_error_message(error)) ?? ""
            #expect(message.contains(key), "\(message)")
            nc_error_free(error)
        }
        #expect(serverStats(server).total == 0)

        // The client and the builder are untouched by the refusals: a request now
        // carries no injected header.
        let o = client.sync(request)
        #expect(o.error == nil, "\(o)")
        let headers = try #require(o.echo?["headers"] as? [String: String])
        #expect(headers["x-injected"] == nil)
        #expect(headers["x-a"] == nil)
        #expect(headers["x-default"] == nil)
        #expect(serverStats(server).total == 1)
    }

    @Test func crlfInQueryAndParamsIsPercentEncoded() throws {
        let o = try fetch(config(), "/echo") {
            $0.query("q", "1\r\nX-Injected: 1")
            $0.params(#"{"p":"2\r\nX-Injected: 2"}"#)
        }
        let headers = try #require(o.echo?["headers"] as? [String: String])
        #expect(headers["x-injected"] == nil)
        #expect(o.echo?["query"] as? [String: [String]] == ["q": ["1\r\nX-Injected: 1"], "p": ["2\r\nX-Injected: 2"]])
        #expect((o.echo?["raw_path"] as? String)?.contains("%0D%0A") == true)
    }

    @Test func crlfInFormAndJSONBodiesStaysInTheBody() throws {
        let form = try fetch(config(), "/echo", method: "POST") { $0.params(#"{"p":"a\r\n\r\nGET /x HTTP/1.1"}"#) }
        #expect(form.echo?["form"] as? [String: [String]] == ["p": ["a\r\n\r\nGET /x HTTP/1.1"]])
        let json = try fetch(config(), "/echo", method: "POST") {
            $0.encoding(NC_ENCODING_JSON)
            $0.params(#"{"p":"a\r\nb"}"#)
        }
        #expect((json.echo?["json"] as? [String: String])?["p"] == "a\r\nb")
    }
}
