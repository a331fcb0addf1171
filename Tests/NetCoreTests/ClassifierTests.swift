import Testing

@testable import NetCore
@testable import NetCoreBase

/// Classification rules 2–5 and raw mode, on canned responses (no network):
/// the rules are pure functions of status, body and schema.
@Suite struct ClassifierTests {
    static let shapeA =
        #"{"code":"code","ok_codes":[0],"message":"msg","data":"data","trace_id":"traceId","auth_expired_codes":[401001]}"#
    static let shapeB = #"{"success":"success","code":"code","message":"msg","data":"data","trace_id":"traceId"}"#
    static let shapeC =
        #"{"status":"status","ok_status":["OK"],"code":"errorCode","ok_codes":["0"],"message":"errorMsg","data":"content"}"#

    func classify(_ status: Int32, _ body: String, schema: String? = shapeA) throws -> (Response, NetError?) {
        let envelope = try schema.map {
            try #require(try Configuration.parse(json: #"{"envelope":\#($0)}"#).get().envelope)
        }
        return Classifier.classify(
            .init(
                status: status, headers: HeaderStore(), body: NetBytes(body),
                method: "GET", url: CString("http://h.test/x"), schema: envelope))
    }

    @Test(arguments: [(204, ""), (304, ""), (200, ""), (201, "")])
    func emptyIsSuccessWithNullData(status: Int32, body: String) throws {
        let (r, e) = try classify(status, body)
        #expect(e == nil)
        #expect(r.data?.text == "null")
    }

    @Test func shapeASuccessAndFailure() throws {
        let (ok, e1) = try classify(200, #"{"code":0,"msg":"ok","data":{"id":7}}"#)
        #expect(e1 == nil)
        #expect(ok.data?.text == #"{"id":7}"#)
        let (_, e2) = try classify(200, #"{"code":1001,"msg":"wrong password","traceId":"t1","data":{"f":1}}"#)
        let e = try #require(e2)
        #expect(e.domain == .api)
        #expect(e.code == 1001)
        #expect(e.codeString == "1001")
        #expect(e.message == "wrong password")
        #expect(e.traceID == "t1")
        #expect(e.data?.text == #"{"f":1}"#)
        #expect(e.httpStatus == 200)
        #expect(!e.isAuthExpired)
    }

    @Test func stringCodesCompareByText() throws {
        #expect(try classify(200, #"{"code":"0","data":[1]}"#).1 == nil)
        let e = try #require(try classify(200, #"{"code":"E1001","msg":"locked"}"#).1)
        #expect(e.code == 0)
        #expect(e.codeString == "E1001")
    }

    @Test func authExpiredCodesAreFlagged() throws {
        let e = try #require(try classify(200, #"{"code":401001,"msg":"token expired"}"#).1)
        #expect(e.isAuthExpired)
    }

    @Test func emptyServerMessageGetsADefault() throws {
        let e = try #require(try classify(200, #"{"code":5,"msg":""}"#).1)
        #expect(e.message.contains("business code '5'"))
    }

    @Test func shapeB() throws {
        #expect(
            try classify(200, #"{"success":true,"code":2001,"msg":"created","data":{"id":42}}"#, schema: Self.shapeB).1
                == nil)
        let e = try #require(
            try classify(200, #"{"success":false,"code":4003,"msg":"forbidden","traceId":"tf"}"#, schema: Self.shapeB).1
        )
        #expect(e.domain == .api)
        #expect(e.code == 4003)
        #expect(e.traceID == "tf")
    }

    @Test func shapeCNeedsBothConditions() throws {
        let (ok, e0) = try classify(
            200, #"{"status":"OK","errorCode":"0","errorMsg":"","content":{"items":[1]}}"#, schema: Self.shapeC)
        #expect(e0 == nil)
        #expect(ok.data?.text == #"{"items":[1]}"#)
        let e1 = try #require(
            try classify(200, #"{"status":"OK","errorCode":"7","errorMsg":"partial"}"#, schema: Self.shapeC).1)
        #expect(e1.code == 7)
        #expect(e1.message == "partial")
        let e2 = try #require(
            try classify(200, #"{"status":"FAIL","errorCode":"E42","errorMsg":"quota exceeded"}"#, schema: Self.shapeC)
                .1)
        #expect(e2.codeString == "E42")
    }

    @Test func envelopeWinsOverHTTPStatus() throws {
        let e = try #require(try classify(500, #"{"code":5001,"msg":"server busy"}"#).1)
        #expect(e.domain == .api)
        #expect(e.code == 5001)
        #expect(e.httpStatus == 500)
    }

    @Test func nonEnvelopeJSON() throws {
        let http = try #require(try classify(404, #"{"error":"x"}"#).1)
        #expect(http.domain == .http)
        #expect(http.code == 404)
        #expect(http.body?.text == #"{"error":"x"}"#)
        let missing = try #require(try classify(200, #"{"hello":"world"}"#).1)
        #expect(missing.domain == .parse)
        #expect(missing.code == NetError.ParseCode.missingField.rawValue)
        #expect(missing.message.contains("'code'"))
        let array = try #require(try classify(200, "[1,2]").1)
        #expect(array.code == NetError.ParseCode.notObject.rawValue)
        let wrongType = try #require(try classify(200, #"{"code":[0]}"#).1)
        #expect(wrongType.code == NetError.ParseCode.fieldType.rawValue)
        let flag = try #require(try classify(200, #"{"success":"yes"}"#, schema: Self.shapeB).1)
        #expect(flag.code == NetError.ParseCode.fieldType.rawValue)
    }

    @Test func nonJSON() throws {
        let http = try #require(try classify(503, "Service Unavailable").1)
        #expect(http.domain == .http)
        #expect(http.isRetryable)
        let parse = try #require(try classify(200, "hello").1)
        #expect(parse.domain == .parse)
        #expect(parse.code == NetError.ParseCode.invalidJSON.rawValue)
        #expect(parse.message.contains("line 1"))
        let empty404 = try #require(try classify(404, "").1)
        #expect(empty404.domain == .http)
        #expect(!empty404.isRetryable)
    }

    /// One key, one meaning: {"code":7,…,"code":0} would be a failure to a proxy that
    /// reads the first "code" and was a success here (jansson keeps the last).
    @Test func aKeyTwiceInAnEnvelopeIsParseDuplicateKey() throws {
        for (body, key) in [
            (#"{"code":7,"msg":"denied","code":0}"#, "code"),
            (#"{"code":0,"msg":"denied","co\u0064e":7}"#, "code"),   // the key as decoded
            (#"{"code":0,"msg":"ok","data":{"user":{"id":1,"id":2}}}"#, "id"),   // any depth
            (#"{"code":0,"data":[{"a":1},{"b":1,"b":1}]}"#, "b")   // the same value twice too
        ] {
            let (r, e) = try classify(200, body)
            let error = try #require(e, "\(body)")
            #expect(error.domain == .parse)
            #expect(error.code == NetError.ParseCode.duplicateKey.rawValue)
            #expect(error.message.contains("the key \"\(key)\" twice"), "\(error.message)")
            #expect(error.message.contains("line 1, column"))
            #expect(!error.isRetryable)
            #expect(error.body?.text == body)
            #expect(r.data?.text == "null")   // not the envelope's data: it was refused
        }
        // As for a body that is not JSON: an HTTP error at 400 and above, an unfollowed
        // redirect's body is raw data.
        let http = try #require(try classify(500, #"{"code":0,"code":5001}"#).1)
        #expect(http.domain == .http)
        #expect(http.code == 500)
        #expect(try classify(302, #"{"code":7,"code":0}"#).1 == nil)
        // Distinct keys in distinct objects are not duplicates.
        #expect(try classify(200, #"{"code":0,"data":{"code":1,"items":[{"id":1},{"id":2}]}}"#).1 == nil)
    }

    @Test func rawModeKeepsTheLastValueOfAKey() throws {
        let (r, e) = try classify(200, #"{"code":7,"msg":"denied","code":0}"#, schema: nil)
        #expect(e == nil)
        #expect(r.data?.text == #"{"code":0,"msg":"denied"}"#)
    }

    @Test func rawMode() throws {
        let (r, e) = try classify(200, "[1,2]", schema: nil)
        #expect(e == nil)
        #expect(r.data?.text == "[1,2]")
        let (t, _) = try classify(200, "hello", schema: nil)
        #expect(t.data == nil)
        #expect(t.body.text == "hello")
        let http = try #require(try classify(400, #"{"code":0}"#, schema: nil).1)
        #expect(http.domain == .http)
        #expect(http.code == 400)
    }

    @Test func errorJSONHasEveryField() throws {
        let e = try #require(try classify(200, #"{"code":"E1","msg":"m","traceId":"t","data":{"a":1}}"#).1)
        let parsed = try JSONValue.parse(e.json).get()
        #expect(
            parsed.text
                == #"{"domain":"NCAPIErrorDomain","domain_code":4,"code":0,"code_str":"E1","message":"m","http_status":200,"trace_id":"t","data":{"a":1},"body":"{\"code\":\"E1\",\"msg\":\"m\",\"traceId\":\"t\",\"data\":{\"a\":1}}","attempts":1,"retryable":false,"auth_expired":false,"timeout":null,"user_message":null,"request":null}"#
        )
    }
}
