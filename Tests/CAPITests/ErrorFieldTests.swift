// Every field of nc_error, nc_error_json(), and keeping errors/responses past a callback.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// nc_error_json() parsed with jansson.
private func errorJSON(_ info: ErrorInfo) throws -> [String: Any] {
    let text = try #require(info.json)
    var err = json_error_t()
    let parsed = json_loads(text, 0, &err)
    #expect(parsed != nil, "nc_error_json is not JSON: \(text)")
    json_decref(parsed)
    return try #require(foundationJSON(text) as? [String: Any])
}

private let errorJSONKeys: Set<String> = [
    "domain", "domain_code", "code", "code_str", "message", "http_status",
    "trace_id", "data", "body", "attempts", "retryable", "auth_expired", "timeout",
    "user_message", "request"
]

@Suite struct ErrorFieldTests {
    let server = MockServer.shared

    @Test func apiErrorJSONHasEveryDocumentedKey() throws {
        let o = try fetch(config(envelope: Envelope.b), "/env/success/fail")
        let e = try #require(o.error)
        let j = try errorJSON(e)
        #expect(Set(j.keys) == errorJSONKeys)
        #expect(j["domain"] as? String == "NCAPIErrorDomain")
        #expect(j["domain_code"] as? Int == 4)
        #expect(j["code"] as? Int == 4003)
        #expect(j["code_str"] as? String == "4003")
        #expect(j["message"] as? String == "forbidden")
        #expect(j["http_status"] as? Int == 200)
        #expect(j["trace_id"] as? String == "trace-fail-1")
        #expect((j["data"] as? [String: Any])?["reason"] as? String == "scope")
        #expect(
            j["body"] as? String
                == #"{"success":false,"code":4003,"msg":"forbidden","traceId":"trace-fail-1","data":{"reason":"scope"}}"#
        )
        #expect(j["attempts"] as? Int == 1)
        #expect(j["retryable"] as? Bool == false)
        #expect(j["auth_expired"] as? Bool == false)
        // The accessors agree with the JSON.
        #expect(e.bodyText == j["body"] as? String)
        #expect(e.body?.count == (j["body"] as? String)?.utf8.count)
        #expect(e.dataJSON == #"{"reason":"scope"}"#)
        #expect(e.attempts == 1)
    }

    @Test func transportErrorJSONHasNullsWhereNothingWasReceived() throws {
        let (port, fd) = refusingPort()
        defer { close(fd) }
        let o = try fetch(config(), "http://127.0.0.1:\(port)/x")
        let e = try #require(o.error)
        let j = try errorJSON(e)
        #expect(Set(j.keys) == errorJSONKeys)
        #expect(j["domain"] as? String == "NCTransportErrorDomain")
        #expect(j["domain_code"] as? Int == 2)
        #expect(j["code"] as? Int == 7)
        #expect(j["code_str"] as? String == "7")
        #expect(j["http_status"] as? Int == 0)
        #expect(j["trace_id"] is NSNull)
        #expect(j["data"] is NSNull)
        #expect(j["body"] is NSNull)
        #expect(j["attempts"] as? Int == 1)
        #expect(j["retryable"] as? Bool == true)
        #expect(j["message"] as? String == e.message)
        #expect(!e.message.isEmpty)
        #expect(e.body == nil)
    }

    @Test func httpErrorJSON() throws {
        let o = try fetch(config(), "/status/404?body=json")
        let e = try #require(o.error)
        let j = try errorJSON(e)
        #expect(j["domain"] as? String == "NCHTTPErrorDomain")
        #expect(j["domain_code"] as? Int == 3)
        #expect(j["code"] as? Int == 404)
        #expect(j["http_status"] as? Int == 404)
        #expect(j["body"] as? String == #"{"error":"status 404"}"#)
        #expect(j["retryable"] as? Bool == false)
    }

    @Test func errorBodyLengthIsExact() throws {
        let o = try fetch(config(), "/status/500?body=text")
        #expect(o.error?.body == Array("status 500".utf8))
    }

    @Test func authExpiredOnlyForListedCodes() throws {
        let client = try TestClient(config(envelope: Envelope.a))
        let expired = try client.sync("/profile")
        #expect(expired.error?.authExpired == 1)
        #expect(expired.error?.code == 401001)
        #expect(try errorJSON(#require(expired.error))["auth_expired"] as? Bool == true)
        let wrongPassword = try client.sync("/login", method: "POST") {
            $0.encoding(NC_ENCODING_JSON)
            $0.params(#"{"username":"ada","password":"nope"}"#)
        }
        #expect(wrongPassword.error?.domain == NC_DOMAIN_API)
        #expect(wrongPassword.error?.code == 1001)
        #expect(wrongPassword.error?.authExpired == 0)
        #expect(wrongPassword.error?.traceID == "trace-login")
        #expect(wrongPassword.error?.dataJSON == #"{"attempts_left":2}"#)
    }

    @Test func loginThenProfileWithToken() throws {
        let client = try TestClient(config(envelope: Envelope.a))
        let login = try client.sync("/login", method: "POST") {
            $0.encoding(NC_ENCODING_JSON)
            $0.params(#"{"username":"ada","password":"secret"}"#)
        }
        #expect(login.error == nil, "\(login)")
        let token = try #require(login.response?.object?["token"] as? String)
        #expect(token == "tok-ada")
        #expect(nc_client_set_header(client.handle, "Authorization", "Bearer \(token)") == NC_OK)
        let profile = try client.sync("/profile")
        #expect(profile.error == nil, "\(profile)")
        #expect(profile.data == canonical(#"{"name":"ada","email":"ada@example.com","vip":true}"#))
    }

    @Test func authExpiredNeedsTheCodeInTheConfig() throws {
        // Shape A without auth_expired_codes: the same error is not "auth expired".
        let o = try fetch(config(envelope: #"{"code":"code","ok_codes":[0]}"#), "/profile")
        #expect(o.error?.code == 401001)
        #expect(o.error?.authExpired == 0)
    }

    @Test func retryableFor503NotFor404() throws {
        let client = try TestClient(config())
        for (status, retryable) in [
            (503, Int32(1)), (404, 0), (500, 1), (502, 1), (504, 1), (408, 1), (429, 1), (400, 0), (403, 0)
        ] {
            let o = try client.sync("/status/\(status)?body=text")
            #expect(o.error?.domain == NC_DOMAIN_HTTP, "\(status)")
            #expect(o.error?.retryable == retryable, "\(status)")
            #expect(o.error?.attempts == 1, "\(status)")
        }
    }

    @Test func parseAndAPIErrorsAreNotRetryable() throws {
        let client = try TestClient(config())
        #expect(try client.sync("/text").error?.retryable == 0)
        #expect(try client.sync("/env/code/fail").error?.retryable == 0)
    }

    @Test func attemptsIsOneForEveryReceivedError() throws {
        let client = try TestClient(config())
        for path in ["/env/code/fail", "/status/404", "/text", "/array"] {
            #expect(try client.sync(path).error?.attempts == 1, "\(path)")
        }
    }

    @Test func copiedErrorAndRetainedResponseOutliveTheCallback() throws {
        let client = try TestClient(config(envelope: Envelope.b))
        nonisolated(unsafe) var kept: (OpaquePointer?, OpaquePointer?) = (nil, nil)
        let collector = Collector { response, error in
            kept = (nc_response_retain(response), nc_error_copy(error))
        }
        let request = try Request("GET", "/env/success/fail")
        let (rc, task) = client.send(request, collector)
        #expect(rc == NC_OK)
        #expect(collector.wait())
        nc_task_free(task)
        client.free()   // every callback has returned; the kept handles are ours
        let response = try #require(kept.0)
        let error = try #require(kept.1)
        defer {
            nc_response_free(response)
            nc_error_free(error)
        }
        let e = ErrorInfo(error)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.code == 4003)
        #expect(e.message == "forbidden")
        #expect(e.traceID == "trace-fail-1")
        #expect(e.dataJSON == #"{"reason":"scope"}"#)
        #expect(e.bodyText?.contains("trace-fail-1") == true)
        let r = ResponseInfo(response)
        #expect(r.status == 200)
        #expect(
            r.bodyText
                == #"{"success":false,"code":4003,"msg":"forbidden","traceId":"trace-fail-1","data":{"reason":"scope"}}"#
        )
        #expect(string(nc_response_header(response, "Content-Type")) == "application/json; charset=utf-8")
        // A copy of a copy is independent: freeing one leaves the other readable.
        let second = try #require(nc_error_copy(error))
        #expect(nc_error_code(second) == 4003)
        nc_error_free(second)
        #expect(string(nc_error_message(error)) == "forbidden")
        // Retaining twice, freeing once.
        let again = try #require(nc_response_retain(response))
        nc_response_free(again)
        #expect(nc_response_status(response) == 200)
    }

    @Test func errorFromSendSyncIsOwnedAndReadableAfterClientFree() throws {
        let client = try TestClient(config())
        let request = try Request("GET", "/env/code/fail")
        var r: OpaquePointer?
        var e: OpaquePointer?
        #expect(nc_client_send_sync(client.handle, request.handle, &r, &e) == NC_ERR_FAILED)
        client.free()
        let error = try #require(e)
        let response = try #require(r)
        #expect(nc_error_code(error) == 1001)
        #expect(canonical(nc_error_data(error)) == #"{"field":"password"}"#)
        #expect(nc_response_status(response) == 200)
        nc_error_free(error)
        nc_response_free(response)
    }

    @Test func borrowedStringsAreStableAcrossCalls() throws {
        let client = try TestClient(config(envelope: Envelope.b))
        let request = try Request("GET", "/env/success/fail")
        var e: OpaquePointer?
        #expect(nc_client_send_sync(client.handle, request.handle, nil, &e) == NC_ERR_FAILED)
        let error = try #require(e)
        defer { nc_error_free(error) }
        #expect(nc_error_message(error) == nc_error_message(error))
        #expect(nc_error_json(error) == nc_error_json(error))
        #expect(nc_error_code_str(error) == nc_error_code_str(error))
        #expect(nc_error_data(error) == nc_error_data(error))
        var n1 = 0, n2 = 0
        #expect(nc_error_data_json(error, &n1) == nc_error_data_json(error, nil))
        _ = nc_error_data_json(error, &n2)
        #expect(n1 == n2 && n1 == #"{"reason":"scope"}"#.utf8.count)
    }
}
