import Testing

@testable import NetCore
@testable import NetCoreBase

@Suite struct ConfigurationTests {
    func parse(_ json: String) -> Result<Configuration, NetError> { Configuration.parse(json: json) }

    func failure(_ json: String) -> NetError? {
        if case .failure(let e) = parse(json) { return e }
        return nil
    }

    @Test func emptyObjectIsRawModeWithDefaults() throws {
        let c = try parse("{}").get()
        #expect(c.envelope == nil)
        #expect(c.activeBaseURL == nil)
        #expect(c.timeoutMs == 0)
        #expect(c.connectTimeoutMs == 10_000)
        #expect(c.idleTimeoutMs == 15_000)
        #expect(c.limits.maxRedirects == 10)
        #expect(c.limits.maxResponseBytes == 104_857_600)
        #expect(c.limits.maxConnectionsPerHost == 8)
        #expect(c.callbacks == .loop)
    }

    @Test func envelopeDefaultsAreShapeA() throws {
        let e = try #require(try parse(#"{"envelope":{}}"#).get().envelope)
        #expect(e.codeField == "code")
        #expect(e.okCodes == ["0"])
        #expect(e.messageField == "msg")
        #expect(e.dataField == "data")
        #expect(e.traceIDField == "traceId")
        #expect(e.successField == nil)
        #expect(e.checksCode)
    }

    @Test func successFlagMakesCodeInformational() throws {
        let e = try #require(try parse(#"{"envelope":{"success":"success"}}"#).get().envelope)
        #expect(e.okCodes.isEmpty)
        #expect(!e.checksCode)
        let both = try #require(try parse(#"{"envelope":{"success":"success","ok_codes":[0]}}"#).get().envelope)
        #expect(both.checksCode)
    }

    @Test func codesCompareAsText() throws {
        let e = try #require(
            try parse(#"{"envelope":{"ok_codes":[0,"OK"],"auth_expired_codes":[401001,"E401"]}}"#).get().envelope)
        #expect(e.okCodes == ["0", "OK"])
        #expect(e.authExpiredCodes == ["401001", "E401"])
    }

    @Test func credentialHeadersAlwaysIncludeTheStandardOnes() throws {
        let c = try parse(#"{"credential_headers":["X-Api-Key"]}"#).get()
        #expect(c.credentialHeaderNames == ["authorization", "cookie", "proxy-authorization", "x-api-key"])
    }

    @Test func environmentSelectsBaseURL() throws {
        let c = try parse(
            #"{"base_url":"http://a.test","environments":{"dev":"http://dev.test/api","prod":"https://prod.test"},"environment":"dev"}"#
        ).get()
        #expect(c.activeBaseURL == "http://dev.test/api")
    }

    @Test(arguments: [
        (#"{"bogus":1}"#, "'bogus'"),
        (#"{"timeout_ms":"x"}"#, "'timeout_ms' must be an integer"),
        (#"{"timeout_ms":-1}"#, "'timeout_ms' must be between"),
        (#"{"limits":{"max_redirects":-1}}"#, "'limits.max_redirects'"),
        (#"{"limits":{"nope":1}}"#, "'limits.nope'"),
        (#"{"envelope":{"ok_codes":"0"}}"#, "'envelope.ok_codes'"),
        (#"{"envelope":{"colour":"x"}}"#, "'envelope.colour'"),
        (#"{"envelope":{"status":"status"}}"#, "'envelope.ok_status'"),
        (#"{"envelope":{"code":null}}"#, "no success condition"),
        (#"{"headers":{"X-A":"a\r\nB: c"}}"#, "'headers.X-A'"),
        (#"{"headers":{"X A":"a"}}"#, "'headers.X A'"),
        (#"{"headers":{"X-A":1}}"#, "'headers.X-A' must be a string"),
        (#"{"base_url":"ftp://x"}"#, "'base_url'"),
        (#"{"base_url":"http://a b"}"#, "'base_url'"),
        (#"{"environments":{"dev":3}}"#, "'environments.dev'"),
        (#"{"environment":"prod","environments":{"dev":"http://x.test"}}"#, "'environment'"),
        (#"{"callbacks":"thread"}"#, "'callbacks'"),
        (#"{"cache":{"ttl":1}}"#, "cache.ttl"),
        (#"{"retry":3}"#, "'retry' must be an object, false or null"),
        (#"{"retry":{"max_attempts":0}}"#, "'retry.max_attempts' must be an integer between 1 and 100, got 0"),
        (#"{"retry":{"backoff":"linear"}}"#, "'retry.backoff' must be one of"),
        (#"{"retry":{"statuses":[503,"x"]}}"#, "'retry.statuses' must list HTTP statuses"),
        (#"{"retry":{"colour":1}}"#, "'retry.colour' is unknown"),
        (#"{"idle_timeout_ms":-1}"#, "'idle_timeout_ms' must be between 0 and 2147483647"),
        (#"{"deadline_ms":"5s"}"#, "'deadline_ms' must be an integer"),
        (#"{"credential_headers":"X-Key"}"#, "'credential_headers' must be an array"),
        (#"{"credential_headers":["X Key"]}"#, "'credential_headers' must list header names"),
        (#"[1]"#, "must be a JSON object"),
        (#"{"a":"#, "not valid JSON")
    ])
    func rejectsNamingTheKey(json: String, expected: String) {
        let e = failure(json)
        #expect(e?.domain == .client)
        #expect(e?.code == NetError.ClientCode.invalidConfig.rawValue)
        #expect(e?.message.contains(expected) == true, "message: \(e?.message ?? "nil")")
    }
}
