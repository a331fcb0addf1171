// "Bad input never crashes": NULL handles and strings, unknown enum values, invalid
// UTF-8 and malformed methods/URLs, for every nc_* function.
import CNetCore
import Foundation
import MockServerSupport
import Testing

/// "G" 0xC3 0x28 — 0xC3 starts a two-byte sequence that 0x28 does not continue.
private let badUTF8 = cBytes([0x47, 0xC3, 0x28])
/// "/echo" followed by an invalid sequence.
private let badUTF8Path = cBytes(Array("/echo".utf8) + [0xC3, 0x28])

/// A pointer value that must not be overwritten by a refused call.
nonisolated(unsafe) private let untouched = OpaquePointer(bitPattern: 0x1234_5678)!

@Suite struct InvalidArgumentTests {
    let server = MockServer.shared

    // MARK: nc_error_* with NULL

    @Test func errorAccessorsOnNULL() {
        #expect(nc_error_domain(nil) == 0)
        #expect(string(nc_error_domain_name(nil)) == "NCUnknownErrorDomain")
        #expect(nc_error_code(nil) == 0)
        #expect(string(nc_error_code_str(nil)) == "")
        let message = nc_error_message(nil)
        #expect(message != nil)
        #expect(string(message)?.isEmpty == false)
        #expect(nc_error_http_status(nil) == 0)
        #expect(nc_error_trace_id(nil) == nil)
        #expect(nc_error_data(nil) == nil)
        var len = 12345
        #expect(nc_error_data_json(nil, &len) == nil)
        #expect(len == 12345)   // not written
        #expect(nc_error_data_json(nil, nil) == nil)
        #expect(nc_error_body(nil, &len) == nil)
        #expect(nc_error_body(nil, nil) == nil)
        #expect(nc_error_attempts(nil) == 0)
        #expect(nc_error_is_retryable(nil) == 0)
        #expect(nc_error_is_auth_expired(nil) == 0)
        #expect(nc_error_json(nil) == nil)
        #expect(nc_error_copy(nil) == nil)
        nc_error_free(nil)
    }

    @Test func errorWithoutDataOrTraceOrBody() throws {
        let (port, fd) = refusingPort()
        defer { _ = close(fd) }
        let client = try TestClient(config())
        let request = try Request("GET", "http://127.0.0.1:\(port)/")
        var e: OpaquePointer?
        #expect(nc_client_send_sync(client.handle, request.handle, nil, &e) == NC_ERR_FAILED)
        let error = try #require(e)
        defer { nc_error_free(error) }
        var len = 777
        #expect(nc_error_data_json(error, &len) == nil)
        #expect(len == 777)   // not written when there is no data
        #expect(nc_error_data(error) == nil)
        #expect(nc_error_trace_id(error) == nil)
        var bodyLen = 777
        #expect(nc_error_body(error, &bodyLen) == nil)
        #expect(bodyLen == 0)   // NULL with *len_out = 0 when there was no body
    }

    // MARK: nc_response_* with NULL

    @Test func responseAccessorsOnNULL() {
        #expect(nc_response_status(nil) == 0)
        #expect(nc_response_header(nil, "Content-Type") == nil)
        #expect(nc_response_header(nil, nil) == nil)
        #expect(nc_response_header_count(nil) == 0)
        var name: UnsafePointer<CChar>? = UnsafePointer(bitPattern: 0x10)
        var value: UnsafePointer<CChar>? = UnsafePointer(bitPattern: 0x20)
        #expect(nc_response_header_at(nil, 0, &name, &value) == NC_ERR_INVALID_ARGUMENT)
        #expect(name == UnsafePointer(bitPattern: 0x10) && value == UnsafePointer(bitPattern: 0x20))
        var len = 5
        #expect(nc_response_body(nil, &len) == nil)
        #expect(nc_response_body(nil, nil) == nil)
        #expect(nc_response_json(nil) == nil)
        #expect(nc_response_data(nil) == nil)
        #expect(nc_response_data_json(nil, &len) == nil)
        #expect(nc_response_from_cache(nil) == 0)
        #expect(nc_response_retain(nil) == nil)
        nc_response_free(nil)
    }

    @Test func responseHeaderWithNULLNameAndOutOfRangeIndex() throws {
        let client = try TestClient(config())
        let request = try Request("GET", "/env/code/ok")
        var r: OpaquePointer?
        #expect(nc_client_send_sync(client.handle, request.handle, &r, nil) == NC_OK)
        let response = try #require(r)
        defer { nc_response_free(response) }
        #expect(nc_response_header(response, nil) == nil)
        let count = nc_response_header_count(response)
        #expect(count > 0)
        var name: UnsafePointer<CChar>? = UnsafePointer(bitPattern: 0x10)
        #expect(nc_response_header_at(response, count, &name, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_response_header_at(response, Int.max, &name, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(name == UnsafePointer(bitPattern: 0x10))
        #expect(nc_response_header_at(response, 0, nil, nil) == NC_OK)
    }

    // MARK: nc_client_*

    @Test func clientNewWithNULLs() {
        var c: OpaquePointer? = untouched
        var e: OpaquePointer?
        #expect(nc_client_new(nil, &c, &e) == NC_ERR_INVALID_ARGUMENT)
        #expect(c == untouched)
        if let e {
            #expect(nc_error_domain(e) == NC_DOMAIN_CLIENT)
            #expect(nc_error_code(e) == Int64(NC_CLIENT_INVALID_CONFIG))
            nc_error_free(e)
        } else {
            Issue.record("nc_client_new(NULL) gave no error")
        }
        #expect(nc_client_new(nil, &c, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_new("{}", nil, nil) == NC_ERR_INVALID_ARGUMENT)
        var e2: OpaquePointer?
        #expect(nc_client_new("{}", nil, &e2) == NC_ERR_INVALID_ARGUMENT)
        nc_error_free(e2)
        #expect(nc_client_new(badUTF8, &c, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(c == untouched)
    }

    @Test func clientFunctionsWithNULLClient() {
        nc_client_free(nil)
        #expect(nc_client_set_environment(nil, "dev") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(nil, "X-A", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_fd(nil) == -1)
        #expect(nc_client_dispatch(nil) == NC_ERR_INVALID_ARGUMENT)
    }

    @Test func clientSetEnvironmentBadArguments() throws {
        let client = try TestClient(
            config(base: nil, envelope: Envelope.a, #""environments":{"dev":"\#(server.baseURL)"}"#))
        #expect(nc_client_set_environment(client.handle, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_environment(client.handle, "") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_environment(client.handle, badUTF8) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_environment(client.handle, "prod") == NC_ERR_INVALID_ARGUMENT)
        // No environment got selected by the refusals.
        #expect(try client.sync("/env/code/ok").error?.isClient(NC_CLIENT_INVALID_REQUEST) == true)
        #expect(nc_client_set_environment(client.handle, "dev") == NC_OK)
        #expect(try client.sync("/env/code/ok").error == nil)
    }

    @Test func clientSetHeaderBadArguments() throws {
        let client = try TestClient(config())
        #expect(nc_client_set_header(client.handle, "X-Keep", "original") == NC_OK)
        #expect(nc_client_set_header(client.handle, nil, "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, "", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, "X Keep", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, "X-Keep:", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, "X-Keep", "a\nb") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, "X-Keep", "a\rb") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, "X-Keep", "bell\u{7}") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, badUTF8, "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_header(client.handle, "X-Keep", badUTF8) == NC_ERR_INVALID_ARGUMENT)
        // Nothing changed by the refusals.
        #expect((try client.sync("/echo").echo?["headers"] as? [String: String])?["x-keep"] == "original")
        // A horizontal tab inside a value is legal.
        #expect(nc_client_set_header(client.handle, "X-Keep", "tab\tis fine") == NC_OK)
        #expect((try client.sync("/echo").echo?["headers"] as? [String: String])?["x-keep"] == "tab\tis fine")
    }

    // MARK: nc_request_new

    @Test func requestNewBadArguments() {
        var r: OpaquePointer? = untouched
        let refused: [(String, [CChar]?, [CChar]?)] = [
            ("NULL method", nil, Array("/echo".utf8CString)),
            ("NULL path", Array("GET".utf8CString), nil),
            ("empty method", Array("".utf8CString), Array("/echo".utf8CString)),
            ("empty path", Array("GET".utf8CString), Array("".utf8CString)),
            ("method with space", Array("GE T".utf8CString), Array("/echo".utf8CString)),
            ("method with slash", Array("GET/1".utf8CString), Array("/echo".utf8CString)),
            ("method with colon", Array("GET:".utf8CString), Array("/echo".utf8CString)),
            ("non-ASCII method", Array("GÉT".utf8CString), Array("/echo".utf8CString)),
            ("invalid UTF-8 method", badUTF8, Array("/echo".utf8CString)),
            ("invalid UTF-8 path", Array("GET".utf8CString), badUTF8Path),
            ("space in path", Array("GET".utf8CString), Array("/a b".utf8CString)),
            ("tab in path", Array("GET".utf8CString), Array("/a\tb".utf8CString)),
            ("DEL in path", Array("GET".utf8CString), Array("/a\u{7f}".utf8CString)),
            ("control in URL", Array("GET".utf8CString), Array("http://127.0.0.1/\u{1}".utf8CString)),
            ("ftp URL", Array("GET".utf8CString), Array("ftp://127.0.0.1/x".utf8CString)),
            ("FTP URL", Array("GET".utf8CString), Array("FTP://127.0.0.1/x".utf8CString)),
            ("file URL", Array("GET".utf8CString), Array("file:///etc/passwd".utf8CString)),
            ("gopher URL", Array("GET".utf8CString), Array("gopher://127.0.0.1/x".utf8CString)),
            ("javascript URL", Array("GET".utf8CString), Array("javascript:alert(1)".utf8CString))
        ]
        for (what, method, path) in refused {
            let rc = method.withOptionalPointer { m in path.withOptionalPointer { p in nc_request_new(m, p, &r) } }
            #expect(rc == NC_ERR_INVALID_ARGUMENT, "\(what)")
            #expect(r == untouched, "\(what): request_out written")
        }
        #expect(nc_request_new("GET", "/echo", nil) == NC_ERR_INVALID_ARGUMENT)
    }

    @Test func requestNewAcceptsValidForms() {
        for (method, path) in [
            ("GET", "/echo"), ("get", "echo"), ("OPTIONS", "*"), ("X-CUSTOM.1", "/"),
            ("GET", "HTTP://127.0.0.1/x"), ("GET", "https://example.com/a?b=c#d"),
            ("GET", "/é/ü")
        ] {
            var r: OpaquePointer?
            #expect(nc_request_new(method, path, &r) == NC_OK, "\(method) \(path)")
            #expect(r != nil)
            nc_request_free(r)
        }
    }

    // MARK: nc_request_set_*

    @Test func requestSettersWithNULLRequest() {
        nc_request_free(nil)
        #expect(nc_request_set_header(nil, "X-A", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_query(nil, "a", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_params_json(nil, "{}", 2) == NC_ERR_INVALID_ARGUMENT)
        let object = json_object()
        #expect(nc_request_set_params(nil, object) == NC_ERR_INVALID_ARGUMENT)
        #expect(object?.pointee.refcount == 1)
        json_decref(object)
        #expect(nc_request_set_encoding(nil, NC_ENCODING_JSON) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_body(nil, "x", 1, "text/plain") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_timeout_ms(nil, 10) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_envelope(nil, 0) == NC_ERR_INVALID_ARGUMENT)
    }

    @Test func setHeaderBadArgumentsChangeNothing() throws {
        let request = try Request("GET", "/echo")
        #expect(request.header("X-Keep", "original") == NC_OK)
        #expect(nc_request_set_header(request.handle, nil, "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.header("", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.header("X Keep", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.header("X-Keep", "a\u{1}b") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.header("X-Keep", "a\rb") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_header(request.handle, badUTF8, "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_header(request.handle, "X-Keep", badUTF8) == NC_ERR_INVALID_ARGUMENT)
        let o = try TestClient(config()).sync(request)
        #expect((o.echo?["headers"] as? [String: String])?["x-keep"] == "original")
    }

    @Test func setQueryBadArgumentsChangeNothing() throws {
        let request = try Request("GET", "/echo")
        #expect(request.query("keep", "1") == NC_OK)
        #expect(nc_request_set_query(request.handle, nil, "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.query("", "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_query(request.handle, badUTF8, "v") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_query(request.handle, "keep", badUTF8) == NC_ERR_INVALID_ARGUMENT)
        let o = try TestClient(config()).sync(request)
        #expect(o.echo?["raw_path"] as? String == "/echo?keep=1")
    }

    @Test func setParamsBadArgumentsChangeNothing() throws {
        let request = try Request("GET", "/echo")
        #expect(request.params(#"{"keep":1}"#) == NC_OK)
        #expect(nc_request_set_params_json(request.handle, nil, 0) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_params_json(request.handle, nil, 5) == NC_ERR_INVALID_ARGUMENT)
        for bad in ["", "nope", "[1,2]", "\"s\"", "1", "null", #"{"a":"#, #"{"a":1}{"#] {
            #expect(request.params(bad) == NC_ERR_INVALID_ARGUMENT, "\(bad)")
        }
        // Invalid UTF-8 inside a JSON string.
        let badJSON = cBytes(Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8))
        #expect(nc_request_set_params_json(request.handle, badJSON, badJSON.count - 1) == NC_ERR_INVALID_ARGUMENT)
        // Nested deeper than 512.
        let deep = String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)
        #expect(request.params(deep) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_params(request.handle, nil) == NC_ERR_INVALID_ARGUMENT)
        let array = json_array()
        #expect(nc_request_set_params(request.handle, array) == NC_ERR_INVALID_ARGUMENT)
        json_decref(array)
        var err = json_error_t()
        let deepValue = try #require(json_loads(deep, 0, &err))
        #expect(nc_request_set_params(request.handle, deepValue) == NC_ERR_INVALID_ARGUMENT)
        #expect(deepValue.pointee.refcount == 1)
        json_decref(deepValue)
        let o = try TestClient(config()).sync(request)
        #expect(o.echo?["raw_path"] as? String == "/echo?keep=1")
    }

    @Test func paramsAtTheDepthLimitAreAccepted() throws {
        let request = try Request("GET", "/echo")
        let ok = String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100)
        #expect(request.params(ok) == NC_OK)
    }

    @Test func unknownEncodingAndEnvelopeValues() throws {
        let request = try Request("POST", "/echo")
        #expect(request.encoding(NC_ENCODING_JSON) == NC_OK)
        for bad: Int32 in [4, 5, -1, 100, Int32.max, Int32.min] {
            #expect(request.encoding(bad) == NC_ERR_INVALID_ARGUMENT, "\(bad)")
        }
        for bad: Int32 in [2, -1, 3, Int32.max] {
            #expect(request.envelope(bad) == NC_ERR_INVALID_ARGUMENT, "\(bad)")
        }
        // Still JSON-encoded and envelope-validated after the refusals.
        request.params(#"{"a":1}"#)
        let o = try TestClient(config()).sync(request)
        #expect(o.echo?["content_type"] as? String == "application/json")
    }

    @Test func negativeTimeoutIsRefused() throws {
        let request = try Request("GET", "/slow?ms=300")
        #expect(request.timeout(100) == NC_OK)
        #expect(request.timeout(-1) == NC_ERR_INVALID_ARGUMENT)
        #expect(request.timeout(Int64.min) == NC_ERR_INVALID_ARGUMENT)
        // The 100 ms timeout is still in force.
        let o = try TestClient(config()).sync(request)
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT)
        #expect(o.error?.code == 28)
    }

    @Test func setBodyBadArguments() throws {
        let request = try Request("POST", "/echo")
        #expect(request.body("keep", "text/plain") == NC_OK)
        #expect(nc_request_set_body(request.handle, nil, 3, "text/plain") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.body("x", "text/plain\r\nX-Injected: 1") == NC_ERR_INVALID_ARGUMENT)
        #expect(request.body("x", "text/plain\n") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_body(request.handle, "x", 1, badUTF8) == NC_ERR_INVALID_ARGUMENT)
        let o = try TestClient(config()).sync(request)
        #expect(o.echo?["body"] as? String == "keep")
        #expect(o.echo?["content_type"] as? String == "text/plain")
    }

    // MARK: sending

    @Test func sendWithNULLArgumentsIsRefusedAndNeverCallsBack() throws {
        let client = try TestClient(config())
        let request = try Request("GET", "/env/code/ok")
        let c = Collector()
        var t: OpaquePointer? = untouched
        #expect(nc_client_send(nil, request.handle, collectFn, c.userdata, &t) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_send(client.handle, nil, collectFn, c.userdata, &t) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_send(client.handle, request.handle, nil, c.userdata, &t) == NC_ERR_INVALID_ARGUMENT)
        #expect(t == untouched)
        var r: OpaquePointer? = untouched
        var e: OpaquePointer? = untouched
        #expect(nc_client_send_sync(nil, request.handle, &r, &e) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_send_sync(client.handle, nil, &r, &e) == NC_ERR_INVALID_ARGUMENT)
        #expect(r == untouched && e == untouched)
        // Both out-pointers may be NULL.
        #expect(nc_client_send_sync(client.handle, request.handle, nil, nil) == NC_OK)
        nc_task_cancel(nil)
        nc_task_free(nil)
        client.free()
        #expect(c.calls == 0)
    }
}

extension Optional where Wrapped == [CChar] {
    fileprivate func withOptionalPointer<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .none: return body(nil)
        case .some(let a): return a.withUnsafeBufferPointer { body($0.baseAddress) }
        }
    }
}
