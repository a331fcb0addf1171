// The three envelope shapes of docs/contract.md#envelope-shapes, expressed by
// configuration alone.
import CNetCore
import MockServerSupport
import Testing

@Suite struct EnvelopeShapeTests {
    let server = MockServer.shared

    // Shape A: {"code":0,"msg":"ok","data":{…}}

    @Test func shapeASuccess() throws {
        let o = try fetch(config(envelope: Envelope.a), "/env/code/ok")
        #expect(o.rc == NC_OK)
        #expect(o.error == nil)
        #expect(o.response?.dataJSON == #"{"id":7,"name":"Ada"}"#)
    }

    @Test func shapeAFailure() throws {
        let o = try fetch(config(envelope: Envelope.a), "/env/code/fail")
        let e = try #require(o.error)
        #expect(o.rc == NC_ERR_FAILED)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.code == 1001)
        #expect(e.codeStr == "1001")
        #expect(e.message == "wrong password")
        #expect(e.httpStatus == 200)
        #expect(e.traceID == nil)
        #expect(e.dataJSON == #"{"field":"password"}"#)
        #expect(e.authExpired == 0)
        #expect(e.retryable == 0)
        #expect(o.response?.status == 200)
    }

    @Test func shapeAStringCodeThatIsNotAnInteger() throws {
        let o = try fetch(config(envelope: Envelope.a), "/env/code/string")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.code == 0)
        #expect(e.codeStr == "E1001")
        #expect(e.message == "account locked")
        #expect(e.dataJSON == nil)   // data was JSON null
        #expect(e.dataCanonical == nil)
    }

    @Test func shapeAStringZeroEqualsIntegerZero() throws {
        let o = try fetch(config(envelope: Envelope.a), "/env/code/string-ok")
        #expect(o.rc == NC_OK)
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.dataJSON == "[1,2]")
    }

    @Test func shapeAAuthExpiredCode() throws {
        let o = try fetch(config(envelope: Envelope.a), "/profile")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.code == 401001)
        #expect(e.authExpired == 1)
        #expect(e.traceID == "trace-auth")
        #expect(e.message == "token expired, please log in again")
    }

    @Test func shapeAServerMessageMissingGivesAnExplanatoryMessage() throws {
        // Shape C's body read with shape A's schema where the message field is absent.
        let o = try fetch(
            config(envelope: #"{"code":"errorCode","ok_codes":["0"],"message":"nope","data":"content"}"#),
            "/env/status/fail")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.codeStr == "E42")
        #expect(!e.message.isEmpty)
        #expect(e.message.contains("E42"), "\(e.message)")
    }

    // Shape B: {"success":true,"code":2001,"msg":"…","traceId":"…","data":…}

    @Test func shapeBSuccessIgnoresTheCode() throws {
        let o = try fetch(config(envelope: Envelope.b), "/env/success/ok")
        #expect(o.rc == NC_OK)
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.dataJSON == #"{"id":42}"#)
    }

    @Test func shapeBFailure() throws {
        let o = try fetch(config(envelope: Envelope.b), "/env/success/fail")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.code == 4003)
        #expect(e.codeStr == "4003")
        #expect(e.message == "forbidden")
        #expect(e.traceID == "trace-fail-1")
        #expect(e.dataJSON == #"{"reason":"scope"}"#)
        #expect(e.httpStatus == 200)
    }

    @Test func shapeBWithoutSuccessFieldIsParseMissingField() throws {
        let o = try fetch(config(envelope: Envelope.b), "/env/code/ok")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_PARSE)
        #expect(e.code == Int64(NC_PARSE_MISSING_FIELD))
        #expect(e.message.contains("'success'"), "\(e.message)")
    }

    // Shape C: {"status":"OK","errorCode":"0","errorMsg":"","content":…}

    @Test func shapeCSuccess() throws {
        let o = try fetch(config(envelope: Envelope.c), "/env/status/ok")
        #expect(o.rc == NC_OK)
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.dataJSON == #"{"items":[1,2,3]}"#)
    }

    @Test func shapeCFailure() throws {
        let o = try fetch(config(envelope: Envelope.c), "/env/status/fail")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.code == 0)
        #expect(e.codeStr == "E42")
        #expect(e.message == "quota exceeded")
        #expect(e.traceID == nil)
        #expect(e.dataJSON == nil)
    }

    @Test func shapeCStatusOKButBadCodeIsAPIError7() throws {
        let o = try fetch(config(envelope: Envelope.c), "/env/status/badcode")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.code == 7)
        #expect(e.codeStr == "7")
        #expect(e.message == "partial")
        #expect(o.response?.status == 200)
    }

    @Test func shapeCIntegerOkCodeMatchesStringCode() throws {
        // ok_codes [0] (an integer) matches "errorCode":"0" (a string): "0" ≡ 0.
        let o = try fetch(
            config(
                envelope:
                    #"{"status":"status","ok_status":["OK"],"code":"errorCode","ok_codes":[0],"message":"errorMsg","data":"content"}"#
            ),
            "/env/status/ok")
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.dataJSON == #"{"items":[1,2,3]}"#)
    }

    @Test func sameServerDifferentShapesClassifyDifferently() throws {
        // The shape-A body is a missing-field parse error under shape C.
        let o = try fetch(config(envelope: Envelope.c), "/env/code/ok")
        #expect(o.error?.domain == NC_DOMAIN_PARSE)
        #expect(o.error?.code == Int64(NC_PARSE_MISSING_FIELD))
        #expect(o.error?.message.contains("'status'") == true)
    }

    @Test func businessErrorWithoutACodeHasAnEmptyCodeString() throws {
        // Success flag false; the configured code field is absent from the body.
        let o = try fetch(config(envelope: #"{"success":"success","code":"errno"}"#), "/env/success/fail")
        let e = try #require(o.error)
        #expect(e.domain == NC_DOMAIN_API)
        #expect(e.code == 0)
        #expect(e.codeStr == "")
        #expect(e.message == "forbidden")
    }

    @Test func negativeBusinessCode() throws {
        let o = try fetch(config(envelope: Envelope.a), "/status/200?body=envelope&code=-5")
        #expect(o.error?.domain == NC_DOMAIN_API)
        #expect(o.error?.code == -5)
        #expect(o.error?.codeStr == "-5")
    }

    @Test func severalOkCodes() throws {
        let schema = #"{"code":"code","ok_codes":[0,2001],"message":"msg"}"#
        let o = try fetch(config(envelope: schema), "/env/success/ok")
        #expect(o.error == nil, "\(o)")
        #expect(o.response?.dataJSON == #"{"id":42}"#)
        let fail = try fetch(config(envelope: schema), "/env/success/fail")
        #expect(fail.error?.code == 4003)
    }
}
