// A response whose connection closes inside its header block (no blank line after
// the header lines) is a TRANSPORT error, CURLE_PARTIAL_FILE (18); libcurl 7.88
// itself reports success there. Responses without a body still succeed.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct TruncatedResponseTests {
    let server = MockServer.shared

    func expectCutOff(_ o: Outcome, _ what: String) {
        #expect(o.rc == NC_OK || o.rc == NC_ERR_FAILED, "\(what): \(o)")
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT, "\(what): \(o)")
        #expect(o.error?.code == 18, "\(what): \(o)")   // CURLE_PARTIAL_FILE
        #expect(o.error?.domainName == "NCTransportErrorDomain", "\(what)")
        #expect(o.error?.attempts == 1, "\(what): \(o)")
        #expect(o.error?.message.contains("closed inside the response headers") == true, "\(what): \(o)")
        #expect(o.error?.message.contains("only if it is idempotent") == true, "\(what): \(o)")
        #expect(o.response == nil, "\(what): \(o)")
    }

    @Test func aPOSTCutOffInsideItsHeadersIsNeverASuccess() throws {
        let client = try TestClient(config())
        let post = try Request("POST", "/raw/truncated-headers?lines=3")
        post.body(#"{"order":42}"#, "application/json")
        let c = client.sendAndWait(post)
        expectCutOff(try #require(c.outcome), "loop")
        #expect(c.outcome?.error?.message.contains("POST ") == true)
        // The synchronous path, then the same client serves the next request.
        expectCutOff(client.sync(post), "sync")
        let next = try client.sync("/env/code/ok")
        #expect(next.succeeded, "\(next)")
        client.free()
        #expect(c.calls == 1)
    }

    @Test func aStatusLineAloneIsCutOffToo() throws {
        expectCutOff(try fetch(config(), "/raw/truncated-headers?lines=0"), "no header lines")
        expectCutOff(try fetch(config(envelope: "null"), "/raw/truncated-headers?lines=2"), "raw mode")
        expectCutOff(try fetch(config(), "/raw/truncated-headers?lines=2&status=204"), "204")
    }

    @Test func aFinalResponseCutOffAfterInterimOnesIsCutOff() throws {
        // The interim responses' header blocks ended; the final one's did not.
        expectCutOff(try fetch(config(), "/raw/truncated-headers?lines=2&interim=2"), "after 100s")
    }

    @Test func aRedirectHopCutOffFailsTheRequest() throws {
        let o = try fetch(config(), "/redirect") { $0.query("to", "/raw/truncated-headers?lines=1") }
        expectCutOff(o, "second hop")
    }

    @Test func responsesWithoutABodyStillSucceed() throws {
        let client = try TestClient(config())
        let head = try client.sync("/env/code/ok", method: "HEAD")
        #expect(head.succeeded, "\(head)")
        #expect(head.response?.status == 200)
        let noContent = try client.sync("/nocontent")
        #expect(noContent.succeeded, "\(noContent)")
        #expect(noContent.response?.status == 204)
        let notModified = try client.sync("/etag") { $0.header("If-None-Match", #""v1""#) }
        #expect(notModified.succeeded, "\(notModified)")
        #expect(notModified.response?.status == 304)
        let redirected = try client.sync("/redirect/chain?n=2")
        #expect(redirected.succeeded, "\(redirected)")
        let interim = try client.sync("/raw/1xx-flood?n=1&headers=1")
        #expect(interim.succeeded, "\(interim)")
        let chunked = try client.sync("/chunked?chunks=3")
        #expect(chunked.succeeded, "\(chunked)")
    }

    @Test func anOutputFileDownloadStillSucceeds() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nc-trunc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.bin").path
        let o = try fetch(config(), "/large?bytes=100000") {
            #expect(nc_request_set_output_file($0.handle, path) == NC_OK)
        }
        #expect(o.succeeded, "\(o)")
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        #expect(size == 100_000)
        // Through a redirect too.
        let viaRedirect = try fetch(config(), "/redirect") {
            $0.query("to", "/large?bytes=5000")
            #expect(nc_request_set_output_file($0.handle, path) == NC_OK)
        }
        #expect(viaRedirect.succeeded, "\(viaRedirect)")
        let size2 = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        #expect(size2 == 5_000)
    }
}
