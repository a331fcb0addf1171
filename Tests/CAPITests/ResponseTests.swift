// nc_response_*: status, headers, body, JSON and data accessors.
import CNetCore
import Foundation
import MockServerSupport
import Testing

/// Sends `path` synchronously and hands the owned response to `body`.
private func withResponse(
    _ config: String, _ path: String, method: String = "GET",
    _ body: (OpaquePointer) throws -> Void
) throws {
    let client = try TestClient(config)
    let request = try Request(method, path)
    var r: OpaquePointer?
    var e: OpaquePointer?
    _ = nc_client_send_sync(client.handle, request.handle, &r, &e)
    nc_error_free(e)
    let response = try #require(r)
    defer { nc_response_free(response) }
    try body(response)
}

@Suite struct ResponseTests {
    let server = MockServer.shared

    @Test func headerLookupIsCaseInsensitiveAndTrimmed() throws {
        try withResponse(config(), "/env/code/ok") { r in
            #expect(string(nc_response_header(r, "Content-Type")) == "application/json; charset=utf-8")
            #expect(string(nc_response_header(r, "content-type")) == "application/json; charset=utf-8")
            #expect(string(nc_response_header(r, "CONTENT-TYPE")) == "application/json; charset=utf-8")
            let body = #"{"code":0,"msg":"ok","data":{"id":7,"name":"Ada"}}"#
            #expect(string(nc_response_header(r, "content-length")) == "\(body.utf8.count)")
            #expect(nc_response_header(r, "X-Not-There") == nil)
            #expect(nc_response_header(r, "") == nil)
            #expect(nc_response_header(r, "Content") == nil)   // no prefix match
            // Borrowed from the response: the same pointer each time.
            #expect(nc_response_header(r, "Content-Type") == nc_response_header(r, "content-type"))
        }
    }

    @Test func headersInOrderWithCountAndAt() throws {
        try withResponse(config(), "/headers/many?n=5") { r in
            let count = nc_response_header_count(r)
            var all: [(String, String)] = []
            for i in 0..<count {
                var name: UnsafePointer<CChar>?
                var value: UnsafePointer<CChar>?
                #expect(nc_response_header_at(r, i, &name, &value) == NC_OK)
                all.append((string(name) ?? "", string(value) ?? ""))
                // Either out-parameter may be NULL.
                var onlyName: UnsafePointer<CChar>?
                #expect(nc_response_header_at(r, i, &onlyName, nil) == NC_OK)
                #expect(onlyName == name)
            }
            // Server, Date, Content-Type, Content-Length, X-H-1 … X-H-5: the mock's order.
            #expect(count == 9)
            #expect(
                all.map { $0.0 } == [
                    "Server", "Date", "Content-Type", "Content-Length", "X-H-1", "X-H-2", "X-H-3", "X-H-4", "X-H-5"
                ])
            #expect(all.filter { $0.0.hasPrefix("X-H-") }.allSatisfy { $0.1 == "v" })
            #expect(all[0].1.hasPrefix("libnetcore-mock/1.0"))
            // No status line and no blank line among the headers.
            #expect(!all.contains { $0.0.hasPrefix("HTTP/") || $0.0.isEmpty })
        }
    }

    @Test func headersAreThoseOfTheFinalResponseAfterRedirects() throws {
        try withResponse(config(), "/redirect/chain?n=2") { r in
            #expect(nc_response_status(r) == 200)
            #expect(nc_response_header(r, "Location") == nil)
            #expect(string(nc_response_header(r, "Content-Type")) == "application/json; charset=utf-8")
        }
    }

    @Test func bodyHasExactLengthAndATrailingNUL() throws {
        try withResponse(config(base: server.baseURL, envelope: "null"), "/text") { r in
            var n = 0
            let p = try #require(nc_response_body(r, &n))
            #expect(n == 12)
            #expect(Array(UnsafeRawBufferPointer(start: p, count: n)) == Array("hello, world".utf8))
            #expect(p.load(fromByteOffset: n, as: UInt8.self) == 0)
            #expect(String(cString: p.assumingMemoryBound(to: CChar.self)) == "hello, world")
            #expect(nc_response_body(r, nil) == p)
        }
    }

    @Test func emptyBodyIsANonNULLPointerOfLengthZero() throws {
        try withResponse(config(), "/nocontent") { r in
            var n = 99
            let p = nc_response_body(r, &n)
            #expect(p != nil)
            #expect(n == 0)
            #expect(p?.load(as: UInt8.self) == 0)
        }
    }

    @Test func largeBodyIsComplete() throws {
        try withResponse(config(base: server.baseURL, envelope: "null"), "/large?bytes=300000") { r in
            var n = 0
            let p = try #require(nc_response_body(r, &n))
            #expect(n == 300_000)
            let bytes = UnsafeRawBufferPointer(start: p, count: n)
            let pattern = Array("0123456789abcdef".utf8)
            #expect(bytes.enumerated().allSatisfy { $0.element == pattern[$0.offset % 16] })
            #expect(p.load(fromByteOffset: n, as: UInt8.self) == 0)
        }
    }

    @Test func jsonIsTheWholeBodyAndBorrowed() throws {
        try withResponse(config(), "/env/code/ok") { r in
            let json = try #require(nc_response_json(r))
            #expect(nc_response_json(r) == json)   // parsed once, same value
            #expect(json.pointee.type == JSON_OBJECT)
            #expect(canonical(json) == canonical(#"{"code":0,"msg":"ok","data":{"id":7,"name":"Ada"}}"#))
            // The data is the envelope's member, borrowed from the same document.
            let data = try #require(nc_response_data(r))
            #expect(json_object_get(json, "data") == data)
            #expect(nc_response_data(r) == data)
            // Keeping a reference past the response with json_incref.
            json_incref(data)
            let before = data.pointee.refcount
            #expect(before >= 2)
            json_decref(data)
        }
    }

    @Test func dataOutlivesTheResponseWithIncref() throws {
        var kept: UnsafeMutablePointer<json_t>?
        try withResponse(config(), "/env/code/ok") { r in
            kept = json_incref(nc_response_data(r))
        }
        let data = try #require(kept)
        #expect(canonical(data) == #"{"id":7,"name":"Ada"}"#)
        #expect(string(json_string_value(json_object_get(data, "name"))) == "Ada")
        json_decref(data)
    }

    @Test func dataJSONMatchesData() throws {
        try withResponse(config(envelope: Envelope.c), "/env/status/ok") { r in
            var n = 0
            let text = try #require(nc_response_data_json(r, &n))
            #expect(string(text) == #"{"items":[1,2,3]}"#)
            #expect(n == 17)
            #expect(nc_response_data_json(r, nil) == text)
            #expect(canonical(nc_response_data(r)) == string(text))
        }
    }

    @Test func rawModeDataIsTheWholeBody() throws {
        try withResponse(config(base: server.baseURL, envelope: "null"), "/object") { r in
            #expect(nc_response_data(r) == nc_response_json(r))
            #expect(string(nc_response_data_json(r, nil)) == #"{"hello":"world"}"#)
        }
        try withResponse(config(base: server.baseURL, envelope: "null"), "/text") { r in
            #expect(nc_response_json(r) == nil)
            #expect(nc_response_data(r) == nil)
            var n = 42
            #expect(nc_response_data_json(r, &n) == nil)
        }
    }

    @Test func statusIsTheFinalStatus() throws {
        try withResponse(config(base: server.baseURL, envelope: "null"), "/status/201?body=json") { r in
            #expect(nc_response_status(r) == 201)
        }
        try withResponse(config(base: server.baseURL, envelope: "null"), "/status/418?body=text") { r in
            #expect(nc_response_status(r) == 418)
            #expect(string(nc_response_header(r, "content-type")) == "text/plain; charset=utf-8")
        }
    }

    @Test func notFromCache() throws {
        try withResponse(config(), "/env/code/ok") { r in
            #expect(nc_response_from_cache(r) == 0)
        }
    }

    @Test func responseIsReadableFromAnotherThread() throws {
        var kept: OpaquePointer?
        try withResponse(config(), "/env/code/ok") { r in kept = nc_response_retain(r) }
        let response = Handle(try #require(kept))
        let seen = (0..<4).map { _ in Box<String?>(nil) }
        onThreads(4) { i in
            seen[i].value = string(nc_response_data_json(response.pointer, nil))
        }
        nc_response_free(response.pointer)
        #expect(seen.allSatisfy { $0.value == #"{"id":7,"name":"Ada"}"# })
    }
}
