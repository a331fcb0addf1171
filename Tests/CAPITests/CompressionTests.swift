// The "compression" key: Accept-Encoding sent by default — every encoding libcurl
// decodes, by its curl_version_info features — and off on request, and compressed
// bodies handed over decompressed, their decoded bytes counted against the size cap.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct CompressionTests {
    let server = MockServer.shared

    @Test func compressionIsAskedForByDefaultAndOffOnRequest() throws {
        let asked = try fetch(config(), "/echo")
        #expect(asked.sentHeader("accept-encoding") == libcurlEncodings.joined(separator: ", "))
        #expect(libcurlEncodings.starts(with: ["gzip", "deflate"]))
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

    /// Each encoding advertised is one libcurl decodes: the body arrives decoded.
    @Test func everyAdvertisedEncodingIsDecoded() throws {
        let client = try TestClient(config())
        defer { client.free() }
        for enc in libcurlEncodings {
            let o = try client.sync("/encoding/body") { $0.query("enc", enc) }
            #expect(o.error == nil, "\(enc): \(o)")
            let r = try #require(o.response, "\(enc)")
            #expect(r.status == 200, "\(enc): this machine cannot compress with it")
            #expect(r.object?["enc"] as? String == enc)
            #expect(r.object?["accept_encoding"] as? String == libcurlEncodings.joined(separator: ", "))
            #expect(r.object?["pad"] as? String == String(repeating: "a", count: 2000))
            #expect(r.headers.first { $0.name.lowercased() == "content-encoding" }?.value == enc)
            #expect(r.body.first == UInt8(ascii: "{"))
        }
    }

    /// limits.max_response_bytes counts decoded bytes whatever the encoding: 16 MiB
    /// of zeros (26 bytes of br, 531 of zstd on the wire) stop at a 1 MiB cap.
    @Test func decodedBytesCountAgainstTheCapInEveryEncoding() throws {
        let capped = config(base: server.baseURL, envelope: "null", #""limits":{"max_response_bytes":1048576}"#)
        let client = try TestClient(capped)
        defer { client.free() }
        for enc in libcurlEncodings {
            let o = try client.sync("/encoding/bomb") {
                $0.query("enc", enc)
                $0.query("mb", "16")
            }
            #expect(o.error?.domain == NC_DOMAIN_CLIENT, "\(enc): \(o)")
            #expect(o.error?.code == Int64(NC_CLIENT_RESPONSE_TOO_LARGE), "\(enc): \(o)")
            #expect(o.error?.message.contains("max_response_bytes") == true, "\(enc): \(o)")
        }
        // Under the cap the same answer is whole.
        let small = try client.sync("/encoding/bomb") {
            $0.query("enc", libcurlEncodings.last ?? "gzip")
            $0.query("mb", "1")
        }
        #expect(small.error == nil, "\(small)")
        #expect(small.response?.body.count == 1 << 20)
    }
}
