// docs/errors.md#classification: every rule, in envelope mode and in raw mode.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct EnvelopeClassificationTests {
    let server = MockServer.shared

    // Rule 1: the transfer failed.

    @Test func connectionRefusedIsTransport7() throws {
        let (port, fd) = refusingPort()
        defer { close(fd) }
        let url = "http://127.0.0.1:\(port)/env/code/ok"
        let o = try fetch(config(), url)
        let e = try #require(o.error)
        #expect(o.rc == NC_ERR_FAILED)
        #expect(o.response == nil)
        #expect(e.domain == NC_DOMAIN_TRANSPORT)
        #expect(e.domainName == "NCTransportErrorDomain")
        #expect(e.code == 7)
        #expect(e.codeStr == "7")
        #expect(e.httpStatus == 0)
        #expect(e.message.contains("127.0.0.1:\(port)"))
        #expect(e.retryable == 1)
        #expect(e.attempts == 1)
        #expect(e.body == nil)
        #expect(e.traceID == nil)
        #expect(e.dataJSON == nil)
    }

    @Test func connectionResetMidBodyIsTransport56or18() throws {
        let o = try fetch(config(), "/reset")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT)
        #expect(e.code == 56 || e.code == 18, "got \(e)")
        #expect(o.response == nil)
        #expect(e.retryable == 1)
    }

    @Test func closeBeforeContentLengthIsTransport18() throws {
        let o = try fetch(config(), "/close-early")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT)
        #expect(e.code == 18)
    }

    @Test func requestTimeoutIsTransport28() throws {
        // The server would answer in 3 s: code 28 says the 200 ms timeout ended it.
        let o = try fetch(config(), "/slow?ms=3000") { #expect($0.timeout(200) == NC_OK) }
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_TRANSPORT)
        #expect(e.code == 28)
        #expect(e.retryable == 1)
        #expect(e.httpStatus == 0)
        #expect(o.response == nil)
    }

    @Test func clientTimeoutFromConfigIsTransport28() throws {
        let o = try fetch(config(base: server.baseURL, envelope: Envelope.a, #""timeout_ms":200"#), "/slow?ms=3000")
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT)
        #expect(o.error?.code == 28)
    }

    @Test func requestTimeoutZeroMeansNoLimitOverridingTheClient() throws {
        let o = try fetch(config(base: server.baseURL, envelope: Envelope.a, #""timeout_ms":100"#), "/slow?ms=400") {
            #expect($0.timeout(0) == NC_OK)
        }
        #expect(o.error == nil, "\(o)")
        #expect(o.data == #"{"slept_ms":400}"#)
    }

    // Rule 2: 204, 304 or an empty 2xx body.

    @Test(arguments: [
        "/nocontent", "/empty", "/status/200?body=empty", "/status/201?body=empty", "/status/204", "/status/304"
    ])
    func noBodySuccessHasNullData(path: String) throws {
        let o = try fetch(config(), path)
        #expect(o.rc == NC_OK)
        #expect(o.error == nil, "\(o)")
        let r = try #require(o.response)
        #expect(r.dataIsNULL == false)
        #expect(r.dataJSON == "null")
        #expect(r.dataJSONLength == 4)
        #expect(r.body.isEmpty)
        let expected: Int32 =
            path.hasPrefix("/status/") ? Int32(path.dropFirst(8).prefix(3))! : (path == "/nocontent" ? 204 : 200)
        #expect(r.status == expected)
    }

    // Rule 3: a JSON object with the envelope fields; it wins over the HTTP status.

    @Test func envelopeFailureOnHTTP500IsAPIError() throws {
        let o = try fetch(config(), "/status/500?body=envelope&code=5001")
        let e = try #require(o.error)
        #expect(o.rc == NC_ERR_FAILED)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.domainName == "NCAPIErrorDomain")
        #expect(e.code == 5001)
        #expect(e.codeStr == "5001")
        #expect(e.httpStatus == 500)
        #expect(e.message == "server busy")
        #expect(e.traceID == "trace-500")
        #expect(e.dataCanonical == #"{"retry":true}"#)
        #expect(e.bodyText == #"{"code":5001,"msg":"server busy","traceId":"trace-500","data":{"retry":true}}"#)
        #expect(o.response?.status == 500)
    }

    @Test func envelopeSuccessOnHTTP500IsSuccess() throws {
        let o = try fetch(config(), "/status/500?body=envelope&code=0")
        #expect(o.rc == NC_OK)
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.status == 500)
        #expect(o.data == #"{"retry":true}"#)
    }

    @Test func envelopeSuccessDataIsTheDataField() throws {
        let o = try fetch(config(), "/env/code/ok")
        #expect(o.rc == NC_OK)
        #expect(o.error == nil)
        #expect(o.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
        #expect(o.response?.jsonCanonical == canonical(#"{"code":0,"msg":"ok","data":{"id":7,"name":"Ada"}}"#))
    }

    @Test func envelopeWithoutDataFieldIsSuccessWithNull() throws {
        let o = try fetch(config(), "/env/code/nodata")
        #expect(o.error == nil)
        #expect(o.response?.dataJSON == "null")
        #expect(o.response?.dataIsNULL == false)
    }

    // Rule 4: JSON that is not an envelope.

    @Test(arguments: [404, 500, 503])
    func jsonNonEnvelopeAtOrAbove400IsHTTPError(status: Int32) throws {
        let o = try fetch(config(), "/status/\(status)?body=json")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_HTTP)
        #expect(e.domainName == "NCHTTPErrorDomain")
        #expect(e.code == Int64(status))
        #expect(e.codeStr == "\(status)")
        #expect(e.httpStatus == status)
        #expect(e.bodyText == #"{"error":"status \#(status)"}"#)
        #expect(e.message.contains("\(status)"))
        #expect(o.response?.status == status)
    }

    @Test func unknownPathIs404HTTPError() throws {
        let o = try fetch(config(), "/no/such/route")
        #expect(o.error?.domain == NC_DOMAIN_HTTP)
        #expect(o.error?.code == 404)
        #expect(o.response?.jsonCanonical == canonical(#"{"error":"not found","path":"/no/such/route"}"#))
    }

    @Test func jsonArrayBelow400IsParseNotObject() throws {
        let o = try fetch(config(), "/array")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_PARSE)
        #expect(e.domainName == "NCParseErrorDomain")
        #expect(e.code == Int64(NC_PARSE_NOT_OBJECT))
        #expect(e.httpStatus == 200)
        #expect(e.bodyText == "[1,2,3]")
        // A received body: the response is passed too.
        #expect(o.response?.status == 200)
        #expect(o.response?.jsonCanonical == "[1,2,3]")
    }

    @Test(arguments: ["/object", "/env/code/missing", "/status/200?body=json"])
    func objectWithoutCodeIsParseMissingFieldNamingIt(path: String) throws {
        let o = try fetch(config(), path)
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_PARSE)
        #expect(e.code == Int64(NC_PARSE_MISSING_FIELD))
        #expect(e.message.contains("'code'"), "\(e.message)")
        #expect(e.httpStatus == 200)
        #expect(o.response != nil)
    }

    @Test func fieldOfWrongTypeIsParseFieldType() throws {
        // Shape B's "success" must be a boolean; /env/code/ok has none → missing;
        // with "code" as the success field, the integer 0 is the wrong type.
        let o = try fetch(config(envelope: #"{"success":"code","code":null}"#), "/env/code/ok")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_PARSE)
        #expect(e.code == Int64(NC_PARSE_FIELD_TYPE))
        #expect(e.message.contains("'code'"), "\(e.message)")
    }

    @Test func missingEnvelopeFieldAtOrAbove400IsHTTPError() throws {
        // Shape B needs "success"; the 500's JSON body has none.
        let o = try fetch(config(envelope: Envelope.b), "/status/500?body=envelope&code=5001")
        #expect(o.error?.domain == NC_DOMAIN_HTTP)
        #expect(o.error?.code == 500)
        #expect(o.error?.retryable == 1)
    }

    @Test func jsonWithAnEscapedNULIsStillJSON() throws {
        // /echo puts the request body in a JSON string: "a\u0000b" is valid JSON.
        let o = try fetch(config(), "/echo", method: "POST") { #expect($0.body("a\u{0}b", "text/plain") == NC_OK) }
        #expect(o.error == nil, "\(o)")
        #expect((o.response?.object?["body"] as? String).map { Array($0.utf8) } == [0x61, 0x00, 0x62])
    }

    // One key, one meaning: a body with a key twice in an object is refused.

    @Test(arguments: [
        ("/fault/json/duplicate-code", "code"), ("/fault/json/duplicate-escaped", "code"),
        ("/fault/json/duplicate-nested", "id")
    ])
    func aKeyTwiceIsParseDuplicateKeyNamingIt(path: String, key: String) throws {
        let o = try fetch(config(), path)
        #expect(o.rc == NC_ERR_FAILED)
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_PARSE)
        #expect(e.domainName == "NCParseErrorDomain")
        #expect(e.code == Int64(NC_PARSE_DUPLICATE_KEY))
        #expect(e.codeStr == "6")
        #expect(e.message.contains("the key \"\(key)\" twice"), "\(e.message)")
        #expect(e.httpStatus == 200)
        #expect(e.retryable == 0)
        #expect(e.attempts == 1)
        // A received body: the response comes with it, its data JSON null.
        let r = try #require(o.response)
        #expect(r.status == 200)
        #expect(r.dataIsNULL == false)
        #expect(r.dataJSON == "null")
    }

    // Rule 5: not JSON.

    @Test(arguments: [404, 500])
    func textAtOrAbove400IsHTTPError(status: Int32) throws {
        let o = try fetch(config(), "/status/\(status)?body=text")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_HTTP)
        #expect(e.code == Int64(status))
        #expect(e.bodyText == "status \(status)")
        #expect(o.response?.bodyText == "status \(status)")
    }

    @Test func emptyBodyAt500IsHTTPError() throws {
        let o = try fetch(config(), "/status/500?body=empty")
        #expect(o.error?.domain == NC_DOMAIN_HTTP)
        #expect(o.error?.code == 500)
        #expect(o.error?.retryable == 1)
    }

    @Test(arguments: ["/text", "/badjson"])
    func nonJSONBelow400IsParseInvalidJSONWithLine(path: String) throws {
        let o = try fetch(config(), path)
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_PARSE)
        #expect(e.code == Int64(NC_PARSE_INVALID_JSON))
        #expect(e.codeStr == "1")
        #expect(e.message.contains("line"), "\(e.message)")
        #expect(e.message.contains("column"), "\(e.message)")
        #expect(e.httpStatus == 200)
        #expect(e.retryable == 0)
        let r = try #require(o.response)
        #expect(r.status == 200)
        #expect(r.jsonCanonical == nil)
    }
}
