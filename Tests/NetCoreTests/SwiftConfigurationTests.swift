import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// Building configurations in Swift (Configuration+Swift.swift) and checking them
/// (Configuration+Validation.swift).
@Suite struct SwiftConfigurationTests {
    @Test func conveniencesKeepTheJSONDefaults() throws {
        let plain = Configuration()
        let built = Configuration(baseURL: nil)
        let parsed = try Configuration.parse(json: "{}").get()
        for c in [built, parsed] {
            #expect(c.timeoutMs == plain.timeoutMs)
            #expect(c.connectTimeoutMs == plain.connectTimeoutMs)
            #expect(c.callbacks == plain.callbacks)
            #expect(c.envelope == nil && c.baseURL == nil && c.headers.isEmpty)
        }
        let limits = Configuration.Limits(), builtLimits = Configuration.Limits(maxRedirects: 10)
        #expect(limits.maxConnectionsPerHost == builtLimits.maxConnectionsPerHost)
        #expect(limits.maxResponseBytes == builtLimits.maxResponseBytes)
        #expect(limits.maxRedirects == builtLimits.maxRedirects)
        #expect(limits.maxHeaderCount == builtLimits.maxHeaderCount)
        #expect(limits.maxHeaderBytes == builtLimits.maxHeaderBytes)
    }

    @Test func envelopeInitFollowsTheJSONRules() throws {
        let a = EnvelopeSchema(),
            parsedA = try #require(try Configuration.parse(json: #"{"envelope":{}}"#).get().envelope)
        #expect(a.codeField == parsedA.codeField && a.okCodes == parsedA.okCodes && a.dataField == parsedA.dataField)
        #expect(EnvelopeSchema(codeField: "code").okCodes == ["0"])

        let b = EnvelopeSchema(successField: "success")
        let parsedB = try #require(try Configuration.parse(json: #"{"envelope":{"success":"success"}}"#).get().envelope)
        #expect(b.okCodes == [] && parsedB.okCodes == [])
        #expect(EnvelopeSchema(okCodes: ["2001"], successField: "success").okCodes == ["2001"])
    }

    @Test func headersLiteralKeepsOrderAndLastValue() {
        let headers: HeaderFields = ["User-Agent": "a/1", "X-Two": "2", "user-agent": "a/2"]
        #expect(headers.entries.map(\.name) == ["user-agent", "X-Two"])
        #expect(headers["User-Agent"] == "a/2")
    }

    @Test func validateAcceptsWhatJSONAccepts() throws {
        let config = Configuration(
            baseURL: "http://127.0.0.1:8080/api",
            environments: ["dev": "http://127.0.0.1:8080/api"], environment: "dev",
            headers: ["User-Agent": "shop/2.3"], credentialHeaders: ["X-Token"],
            envelope: EnvelopeSchema(
                codeField: "errorCode", statusField: "status",
                okStatuses: ["OK"], messageField: "errorMsg",
                dataField: "content"),
            timeoutMs: 0, limits: .init(maxRedirects: 0))
        try config.validate()
    }

    /// One bad value per case; the argument is the property the message must name.
    static func spoiled(_ name: String) -> Configuration {
        var c = Configuration(baseURL: "http://127.0.0.1:8080", envelope: EnvelopeSchema())
        switch name {
        case "baseURL": c.baseURL = "ftp://x"
        case "environment": c.environment = "prod"
        case "environments[\"dev\"]": c.environments = ["dev": "not a url"]
        case "headers[\"X-A\"]": c.headers = ["X-A": "a\r\nInjected: 1"]
        case "headers: \"Bad Name\"": c.headers = ["Bad Name": "v"]
        case "credentialHeaders": c.credentialHeaders = ["a b"]
        case "timeoutMs": c.timeoutMs = -1
        case "limits.maxRedirects": c.limits.maxRedirects = 101
        case "limits.maxHeaderBytes": c.limits.maxHeaderBytes = 10
        case "envelope.okStatuses": c.envelope = EnvelopeSchema(statusField: "status")
        case "envelope has no success condition": c.envelope = EnvelopeSchema(okCodes: [])
        case "envelope.dataField": c.envelope = EnvelopeSchema(dataField: "")
        default: Issue.record("unknown case \(name)")
        }
        return c
    }

    @Test(arguments: [
        "baseURL", "environment", "environments[\"dev\"]", "headers[\"X-A\"]",
        "headers: \"Bad Name\"", "credentialHeaders", "timeoutMs", "limits.maxRedirects",
        "limits.maxHeaderBytes", "envelope.okStatuses", "envelope has no success condition",
        "envelope.dataField"
    ])
    func validateNamesTheBadProperty(_ name: String) {
        do throws(NetError) {
            try Self.spoiled(name).validate()
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.domain == .client)
            #expect(error.code == NetError.ClientCode.invalidConfig.rawValue)
            #expect(error.message.contains("Configuration.\(name)"), "\(error.message)")
        }
    }

    @Test func aSwiftBuiltClientTalksToTheServer() async throws {
        let server = MockServer.shared
        let config = Configuration(
            baseURL: server.baseURL + "/api",
            headers: ["X-App-Version": "2.3.0"],
            envelope: EnvelopeSchema(),
            timeoutMs: 5_000,
            limits: .init(maxResponseBytes: 1 << 20))
        let client = try NetClient(configuration: config.validated())
        defer { client.shutdown() }
        let echo = try await client.send(Request(method: "GET", target: "/echo"))
        let headers = try #require(echo.data?.text)
        #expect(headers.contains(#""x-app-version":"2.3.0""#))
    }

    @Test func netClientRefusesAnInvalidSwiftConfiguration() {
        var config = Configuration(baseURL: "http://127.0.0.1:1")
        config.headers = ["X-A": "v\r\nX-Injected: 1"]
        #expect(throws: NetError.self) { _ = try NetClient(configuration: config) }
        do {
            _ = try NetClient(configuration: config)
        } catch {
            #expect(error.code == NetError.ClientCode.invalidConfig.rawValue)
            #expect(error.message.contains("headers"))
        }
    }
}
