// docs/errors.md#classification: every rule, in envelope mode and in raw mode.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct RawClassificationTests {
    let server = MockServer.shared
    var raw: String { config(base: server.baseURL, envelope: "null") }

    @Test(arguments: [400, 404, 500, 503])
    func atOrAbove400IsHTTPError(status: Int32) throws {
        for kind in ["json", "text", "envelope", "empty"] {
            let o = try fetch(raw, "/status/\(status)?body=\(kind)")
            let e = try #require(o.error, "\(kind)")
            #expect(e.domain == NC_DOMAIN_HTTP, "\(kind)")
            #expect(e.code == Int64(status), "\(kind)")
            #expect(e.httpStatus == status, "\(kind)")
            #expect(o.response?.status == status, "\(kind)")
        }
    }

    @Test func envelopeFailureBodyIsPlainSuccessInRawMode() throws {
        let o = try fetch(raw, "/env/code/fail")
        #expect(o.rc == NC_OK)
        #expect(o.error == nil)
        #expect(o.data == canonical(#"{"code":1001,"msg":"wrong password","data":{"field":"password"}}"#))
        #expect(o.response?.jsonCanonical == o.data)
    }

    @Test func aKeyTwiceKeepsItsLastValue() throws {
        // Envelope mode refuses this body (NC_PARSE_DUPLICATE_KEY); raw mode reads it as
        // jansson does.
        let o = try fetch(raw, "/fault/json/duplicate-code")
        #expect(o.rc == NC_OK)
        #expect(o.error == nil)
        #expect(o.data == canonical(#"{"code":0,"msg":"denied"}"#))
    }

    @Test func jsonArrayIsTheData() throws {
        let o = try fetch(raw, "/array")
        #expect(o.error == nil)
        #expect(o.response?.dataJSON == "[1,2,3]")
    }

    @Test(arguments: ["/text", "/badjson"])
    func nonJSONIsSuccessWithNULLData(path: String) throws {
        let o = try fetch(raw, path)
        #expect(o.rc == NC_OK)
        #expect(o.error == nil)
        let r = try #require(o.response)
        #expect(r.dataIsNULL)
        #expect(r.dataJSON == nil)
        #expect(r.jsonCanonical == nil)
        #expect(r.bodyText == (path == "/text" ? "hello, world" : #"{"code":0,"msg":"#))
    }

    @Test func emptyBodyIsSuccessWithNULLData() throws {
        let o = try fetch(raw, "/nocontent")
        #expect(o.error == nil)
        #expect(o.response?.status == 204)
        #expect(o.response?.dataIsNULL == true)
    }

    @Test func perRequestRawModeOnAnEnvelopeClient() throws {
        let client = try TestClient(config())
        let fail = try client.sync("/env/code/fail") { #expect($0.envelope(0) == NC_OK) }
        #expect(fail.error == nil)
        #expect(fail.data == canonical(#"{"code":1001,"msg":"wrong password","data":{"field":"password"}}"#))
        let text = try client.sync("/text") { $0.envelope(0) }
        #expect(text.error == nil)
        #expect(text.response?.dataIsNULL == true)
        let notFound = try client.sync("/status/404?body=envelope&code=0") { $0.envelope(0) }
        #expect(notFound.error?.domain == NC_DOMAIN_HTTP)
        #expect(notFound.error?.code == 404)
        // The same client still validates envelopes for other requests.
        let enveloped = try client.sync("/env/code/fail")
        #expect(enveloped.error?.domain == NC_DOMAIN_API)
        #expect(enveloped.error?.code == 1001)
    }

    @Test func envelopeOnWithoutEnvelopeConfigCompletesRaw() throws {
        let o = try fetch(raw, "/env/code/fail") { #expect($0.envelope(1) == NC_OK) }
        #expect(o.error == nil)
        #expect(o.data == canonical(#"{"code":1001,"msg":"wrong password","data":{"field":"password"}}"#))
    }

    @Test func emptyConfigIsRawMode() throws {
        let o = try fetch("{}", server.url("/env/code/fail"))
        #expect(o.error == nil)
        #expect(o.response?.object?["code"] as? Int == 1001)
    }
}
