// The default User-Agent ("netcore/<version> libcurl/<version>"), sent unless the
// configuration's headers or the request set one, whatever the name's case; checked
// with /echo, which joins repeated headers with ", " (so a second line would show).
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// libcurl's curl_version_info(CURLVERSION_NOW) of the libcurl in this process (the
/// library links it), read without libcurl's header: its version text and feature
/// bits. The struct begins, since its first version, with `int age; const char
/// *version; unsigned version_num; const char *host; int features;` (LP64 offsets
/// 0, 8, 16, 24, 32).
let libcurl: (version: String, features: Int32) = {
    guard let symbol = dlsym(nil, "curl_version_info") else { return ("?", 0) }
    typealias VersionInfo = @convention(c) (Int32) -> UnsafeRawPointer?
    let info = unsafeBitCast(symbol, to: VersionInfo.self)
    // 10: CURLVERSION_ELEVENTH, libcurl 7.88's CURLVERSION_NOW.
    guard let p = info(10) else { return ("?", 0) }
    let version = p.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? "?"
    return (version, p.load(fromByteOffset: 32, as: Int32.self))
}()

/// What Accept-Encoding should list: every encoding libcurl's features say it decodes
/// (CURL_VERSION_LIBZ 1<<3: gzip and deflate; CURL_VERSION_BROTLI 1<<23: br;
/// CURL_VERSION_ZSTD 1<<26: zstd).
let libcurlEncodings: [String] = {
    var names: [String] = []
    if libcurl.features & (1 << 3) != 0 { names += ["gzip", "deflate"] }
    if libcurl.features & (1 << 23) != 0 { names.append("br") }
    if libcurl.features & (1 << 26) != 0 { names.append("zstd") }
    return names
}()

extension Outcome {
    /// A header of the request as /echo received it (names lower-cased).
    func sentHeader(_ name: String) -> String? { (echo?["headers"] as? [String: Any])?[name] as? String }
}

@Suite struct UserAgentTests {
    let server = MockServer.shared

    var defaultUserAgent: String { "netcore/\(string(nc_version()) ?? "?") libcurl/\(libcurl.version)" }

    @Test func theDefaultNamesNetcoreAndLibcurlOnce() throws {
        #expect(libcurl.version.split(separator: ".").count == 3)
        let o = try fetch(config(), "/echo")
        #expect(o.error == nil, "\(o)")
        #expect(o.sentHeader("user-agent") == defaultUserAgent)
        // The same on every request of a client, and after a redirect.
        let client = try TestClient(config())
        defer { client.free() }
        for _ in 0..<3 { #expect(try client.sync("/echo").sentHeader("user-agent") == defaultUserAgent) }
        let redirected = try client.sync("/redirect") { $0.query("to", "/echo") }
        #expect(redirected.path == "/echo")
        #expect(redirected.sentHeader("user-agent") == defaultUserAgent)
    }

    @Test(arguments: ["User-Agent", "user-agent", "USER-AGENT"])
    func theConfigurationsHeaderReplacesItInAnyCase(name: String) throws {
        let o = try fetch(
            config(base: server.baseURL, envelope: Envelope.a, #""headers":{"\#(name)":"shop/2.3"}"#), "/echo")
        #expect(o.error == nil, "\(o)")
        #expect(o.sentHeader("user-agent") == "shop/2.3")
    }

    @Test func aHeaderSetOnTheClientOrTheRequestReplacesIt() throws {
        let client = try TestClient(config())
        defer { client.free() }
        #expect(nc_client_set_header(client.handle, "uSeR-aGeNt", "app/1") == NC_OK)
        #expect(try client.sync("/echo").sentHeader("user-agent") == "app/1")
        #expect(try client.sync("/echo") { $0.header("USER-AGENT", "req/2") }.sentHeader("user-agent") == "req/2")
        // Removing the client's header brings the default back.
        #expect(nc_client_set_header(client.handle, "User-Agent", nil) == NC_OK)
        #expect(try client.sync("/echo").sentHeader("user-agent") == defaultUserAgent)
        #expect(try fetch(config(), "/echo") { $0.header("user-agent", "req/3") }.sentHeader("user-agent") == "req/3")
    }
}

extension Outcome {
    fileprivate var path: String? { echo?["path"] as? String }
}
