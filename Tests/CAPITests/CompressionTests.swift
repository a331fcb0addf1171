// The "compression" key: Accept-Encoding sent by default and off on request, and
// compressed bodies handed over decompressed.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct CompressionTests {
    let server = MockServer.shared

    @Test func compressionIsAskedForByDefaultAndOffOnRequest() throws {
        let asked = try fetch(config(), "/echo")
        #expect((asked.echo?["headers"] as? [String: Any])?["accept-encoding"] as? String == "gzip, deflate")
        let off = try fetch(config(base: server.baseURL, envelope: Envelope.a, #""compression":false"#), "/echo")
        #expect(off.error == nil, "\(off)")
        #expect((off.echo?["headers"] as? [String: Any])?["accept-encoding"] == nil)
        let plain = try fetch(config(base: server.baseURL, envelope: Envelope.a, #""compression":false"#), "/gzip")
        #expect(plain.response?.object?["compressed"] as? Bool == false)
        // A request's own header wins, and is sent once.
        let own = try fetch(config(), "/echo") { #expect($0.header("Accept-Encoding", "identity") == NC_OK) }
        #expect((own.echo?["headers"] as? [String: Any])?["accept-encoding"] as? String == "identity")
        // Asking by header with compression off still gets the body decompressed.
        let byHeader = try fetch(config(base: server.baseURL, envelope: Envelope.a, #""compression":false"#), "/gzip") {
            #expect($0.header("Accept-Encoding", "gzip") == NC_OK)
        }
        #expect(byHeader.response?.object?["compressed"] as? Bool == true)
        #expect(byHeader.response?.body.first == UInt8(ascii: "{"))
    }

    @Test func gzipBodyIsDecompressed() throws {
        let o = try fetch(config(), "/gzip")
        #expect(o.error == nil, "\(o)")
        let r = try #require(o.response)
        #expect(r.object?["compressed"] as? Bool == true)
        #expect(r.object?["pad"] as? String == String(repeating: "a", count: 2000))
        #expect(r.headers.first { $0.name.lowercased() == "content-encoding" }?.value == "gzip")
        #expect(r.body.first == UInt8(ascii: "{"))
        #expect(r.body.count > 2000)
    }
}
