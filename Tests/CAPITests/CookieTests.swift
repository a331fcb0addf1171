// The cookie jar (docs/cookies.md) through the header: off by
// default; set, sent back, listed and cleared; never sent against its domain, path
// or Secure rules, on redirects too; shared by the loop and synchronous sends;
// persisted to a file (atomically, 0600) and loaded by a new client.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct CookieTests {
    let server = MockServer.shared
    static let on = #""cookies":{"enabled":true}"#

    /// nc_client_cookies_json, parsed.
    func jar(_ client: TestClient) throws -> [[String: Any]] {
        var p: UnsafeMutablePointer<CChar>?
        #expect(nc_client_cookies_json(client.handle, &p) == NC_OK)
        let text = try #require(p.map { String(cString: $0) })
        nc_string_free(p)
        return try #require(foundationJSON(text) as? [[String: Any]], "\(text)")
    }

    /// A Cookie header's pairs in name order (libcurl orders them by path, domain
    /// and name length, then age: the set is what matters).
    func sorted(_ header: String?) -> String? {
        header.map { $0.components(separatedBy: "; ").sorted().joined(separator: "; ") }
    }

    /// The Cookie header /cookies/echo (or `path`) received, pairs in name order; nil when none.
    func echoed(_ client: TestClient, _ url: String = "/cookies/echo") throws -> String? {
        let o = try client.sync(url)
        #expect(o.error == nil, "\(o)")
        let data = try #require(o.response?.object, "\(o)")
        #expect((data["count"] as? Int ?? 0) <= 1, "more than one Cookie header: \(data)")
        return sorted(data["cookie"] as? String)
    }

    func set(_ client: TestClient, _ query: String) throws {
        let o = try client.sync("/cookies/set?" + query)
        #expect(o.error == nil && o.response?.status == 200, "\(o)")
    }

    @Test func offByDefaultASetCookieIsNotSentBack() throws {
        let client = try TestClient(config())
        try set(client, "name=sid&value=v1")
        #expect(try echoed(client) == nil)
        #expect(try jar(client).isEmpty)
        // Clearing and flushing a client without a jar do nothing.
        #expect(nc_client_cookies_clear(client.handle) == NC_OK)
        #expect(nc_client_cookies_flush(client.handle, nil) == NC_OK)
    }

    @Test func aCookieIsSentBackAndListed() throws {
        let client = try TestClient(config(Self.on))
        try set(client, "name=sid&value=v1&httponly=1")
        try set(client, "name=theme&value=dark&max_age=3600&path=/")
        #expect(try echoed(client) == "sid=v1; theme=dark")
        let cookies = try jar(client)
        #expect(cookies.count == 2)
        let sid = try #require(cookies.first { $0["name"] as? String == "sid" })
        #expect(sid["value"] as? String == "v1")
        #expect(sid["domain"] as? String == "127.0.0.1")
        #expect(sid["include_subdomains"] as? Bool == false)
        #expect(sid["http_only"] as? Bool == true)
        #expect(sid["secure"] as? Bool == false)
        #expect(sid["expires"] as? Int == 0)
        let theme = try #require(cookies.first { $0["name"] as? String == "theme" })
        let expires = theme["expires"] as? Int ?? 0
        let now = Int(Date().timeIntervalSince1970)
        #expect(expires > now + 3000 && expires <= now + 3700, "\(theme)")
        // A server that replaces a cookie replaces it; Max-Age=0 deletes it.
        try set(client, "name=sid&value=v2")
        try set(client, "name=theme&value=x&max_age=0&path=/")
        #expect(try echoed(client) == "sid=v2")
    }

    @Test func theJarIsSharedByTheLoopAndSynchronousSends() throws {
        let client = try TestClient(config(Self.on))
        // Set on the transfer thread (nc_client_send), read back on this thread's lane.
        let c = client.sendAndWait(try Request("GET", "/cookies/set?name=loop&value=1"))
        #expect(c.outcome?.succeeded == true, "\(String(describing: c.outcome))")
        #expect(try echoed(client) == "loop=1")
        // And the other way round.
        try set(client, "name=lane&value=2")
        let e = client.sendAndWait(try Request("GET", "/cookies/echo"))
        #expect(sorted(e.outcome?.response?.object?["cookie"] as? String) == "lane=2; loop=1")
    }

    @Test func aCookieOf127001IsNotSentToLocalhostOnTheSamePort() throws {
        let client = try TestClient(config(Self.on))
        try set(client, "name=sid&value=v1")
        #expect(try echoed(client, "http://localhost:\(server.port)/cookies/echo") == nil)
        #expect(try echoed(client) == "sid=v1")   // the control: sent to its own host
    }

    @Test func aPathCookieIsSentUnderItsPathOnly() throws {
        let client = try TestClient(config(Self.on))
        try set(client, "name=a&value=1&path=/cookies/a")
        #expect(try echoed(client, "/cookies/a/echo") == "a=1")
        #expect(try echoed(client, "/cookies/b/echo") == nil)
        #expect(try echoed(client, "/cookies/echo") == nil)
    }

    /// libcurl treats 127.0.0.1 and localhost as secure contexts (as browsers do),
    /// so the Secure rule is shown on another loopback address, 127.0.0.2.
    @Test func aSecureCookieIsNotKeptOrSentOverHTTP() throws {
        let other = try MockServer(host: "127.0.0.2")
        defer { other.stop() }
        let client = try TestClient(config(base: other.baseURL, Self.on))
        try set(client, "name=s&value=1&secure=1")
        try set(client, "name=plain&value=2")
        #expect(try echoed(client) == "plain=2")   // the control: a plain cookie is sent
        #expect(try jar(client).map { $0["name"] as? String } == ["plain"])
        // Loaded from a file, a Secure cookie of that host is still not sent over http.
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/jar.txt"
        try "127.0.0.2\tFALSE\t/\tTRUE\t0\tsecret\tv\n127.0.0.2\tFALSE\t/\tFALSE\t0\topen\tw\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try TestClient(config(base: other.baseURL, #""cookies":{"enabled":true,"file":"\#(file)"}"#))
        #expect(try jar(loaded).count == 2)
        #expect(try echoed(loaded) == "open=w")
    }

    @Test func redirectsSendCookiesByTheTargetsRules() throws {
        let client = try TestClient(config(Self.on))
        // A cookie set on a 302 is kept and sent to the same host's next hop…
        let same = try client.sync("/cookies/set?name=hop&value=1&to=/cookies/echo")
        #expect(same.response?.object?["cookie"] as? String == "hop=1", "\(same)")
        // …but not to another host, even with the caller's own Cookie header (dropped
        // cross-origin, docs/contract.md#security-defaults).
        let cross = try client.sync("/cookies/set?name=hop2&value=2&to=http://localhost:\(server.port)/cookies/echo") {
            $0.header("Cookie", "caller=secret")
        }
        #expect(cross.error == nil, "\(cross)")
        #expect(cross.response?.object?["cookie"] is NSNull, "\(cross)")
        // The cookie the 302 set is in the jar, for its own host.
        #expect(try echoed(client) == "hop2=2; hop=1")
        // From localhost back to 127.0.0.1: the jar's 127.0.0.1 cookies go to the target.
        let back = try client.sync(
            "http://localhost:\(server.port)/redirect?to=http://127.0.0.1:\(server.port)/cookies/echo")
        #expect(sorted(back.response?.object?["cookie"] as? String) == "hop2=2; hop=1", "\(back)")
    }

    @Test func clearForgetsEveryCookie() throws {
        let client = try TestClient(config(Self.on))
        try set(client, "name=a&value=1")
        try set(client, "name=b&value=2")
        #expect(try jar(client).count == 2)
        #expect(nc_client_cookies_clear(client.handle) == NC_OK)
        #expect(try jar(client).isEmpty)
        #expect(try echoed(client) == nil)
        try set(client, "name=c&value=3")   // the jar still works after a clear
        #expect(try echoed(client) == "c=3")
    }

    @Test func theFileIsWrittenAtomicallyPrivateAndLoadedByANewClient() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/cookies.txt"
        let cfg = config(#""cookies":{"enabled":true,"file":"\#(file)"}"#)
        let first = try TestClient(cfg)
        try set(first, "name=sid&value=v1&max_age=3600")
        try set(first, "name=session&value=s1")
        #expect(!FileManager.default.fileExists(atPath: file))   // nothing written during transfers
        var e: OpaquePointer?
        #expect(nc_client_cookies_flush(first.handle, &e) == NC_OK)
        #expect(e == nil)
        var st = stat()
        #expect(stat(file, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("# Netscape HTTP Cookie File"))
        #expect(text.contains("\tsid\tv1"))
        // Written again when the client is freed, with what changed since.
        try set(first, "name=late&value=l1")
        first.free()
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(leftovers == ["cookies.txt"], "temporary files left: \(leftovers)")
        let second = try TestClient(cfg)
        #expect(try echoed(second) == "late=l1; session=s1; sid=v1")
        #expect(try jar(second).count == 3)
    }

    @Test func aFlushThatCannotWriteFailsAndLeavesNothing() throws {
        let dir = try temporaryDirectory()
        let file = dir + "/cookies.txt"
        let client = try TestClient(config(#""cookies":{"enabled":true,"file":"\#(file)"}"#))
        try set(client, "name=a&value=1")
        try FileManager.default.removeItem(atPath: dir)
        var e: OpaquePointer?
        #expect(nc_client_cookies_flush(client.handle, &e) == NC_ERR_FAILED)
        let info = ErrorInfo(try #require(e))
        nc_error_free(e)
        #expect(info.domain == NC_DOMAIN_TRANSPORT && info.code == 23, "\(info)")
        #expect(info.message.contains(file), "\(info)")
        #expect(!info.message.contains("a=1") && !info.message.contains("\t1"), "a cookie value in a message")
        #expect(!FileManager.default.fileExists(atPath: dir))
    }

    @Test func badCookieConfigurationsAreRefusedNamingTheKey() {
        let cases: [(String, String)] = [
            (#""cookies":{"enabled":"yes"}"#, "cookies.enabled"),
            (#""cookies":{"enabled":true,"jar":null}"#, "cookies.jar"),
            (#""cookies":{"file":"/tmp/x.txt"}"#, "cookies.file"),   // a file without enabled
            (#""cookies":{"enabled":true,"file":""}"#, "cookies.file"),
            (#""cookies":{"enabled":true,"file":"/no/such/dir/c.txt"}"#, "cookies.file"),
            (#""cookies":{"enabled":true,"file":"/tmp"}"#, "cookies.file"),   // a directory
            (#""cookies":true"#, "cookies")
        ]
        for (member, key) in cases {
            var c: OpaquePointer?
            var e: OpaquePointer?
            #expect(nc_client_new(config(member), &c, &e) == NC_ERR_INVALID_ARGUMENT, "\(member)")
            #expect(c == nil)
            let message = string(nc_error_message(e)) ?? ""
            #expect(message.contains("'\(key)'"), "\(member): \(message)")
            nc_error_free(e)
        }
    }

    /// libcurl's store has no bound; the jar keeps 180 cookies a domain, its newest,
    /// as browsers do (docs/cookies.md "Bounds"), and another host's are untouched.
    @Test func aDomainKeepsItsNewest180Cookies() throws {
        let client = try TestClient(config(Self.on))
        try set(client, "name=first&value=1")
        let other = try client.sync("http://localhost:\(server.port)/cookies/set?name=keep&value=1")
        #expect(other.error == nil, "\(other)")
        for r in 0..<4 {
            let o = try client.sync("/cookies/many?count=50&prefix=r\(r)_")
            #expect(o.error == nil && o.response?.status == 200, "\(o)")
        }
        let cookies = try jar(client)
        let mine = Set(cookies.filter { $0["domain"] as? String == "127.0.0.1" }.compactMap { $0["name"] as? String })
        #expect(mine.count == 180)
        // 201 were set: "first" and r0_0 … r0_19 were the oldest.
        #expect(!mine.contains("first") && !mine.contains("r0_19"))
        #expect(mine.contains("r0_20") && mine.contains("r3_49"))
        #expect(cookies.contains { $0["domain"] as? String == "localhost" && $0["name"] as? String == "keep" })
        // What is kept is still sent (libcurl sends at most 150 a request, in one header).
        let sent = try #require(try echoed(client)).components(separatedBy: "; ")
        #expect(sent.count == 150 && Set(sent.map { String($0.prefix { $0 != "=" }) }).isSubset(of: mine))
    }

    /// 3,000 in all: past it the domains holding the most give up their oldest,
    /// down to one common share (and what room is left); a domain with fewer keeps
    /// all of its own.
    @Test func theJarKeeps3000CookiesInAll() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/jar.txt"
        var text = ""
        for d in 0..<17 {
            for n in 0..<180 { text += "d\(d).test\tFALSE\t/\tFALSE\t0\tn\(n)\tv\n" }
        }
        for n in 0..<5 { text += "small.test\tFALSE\t/\tFALSE\t0\ts\(n)\tv\n" }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let client = try TestClient(config(#""cookies":{"enabled":true,"file":"\#(file)"}"#))
        let cookies = try jar(client)
        // 17 × 180 + 5 = 3,065: the largest share that fits is 176 (17 × 176 + 5 =
        // 2,997); the room for 3 more goes to 3 of the domains holding the most (all
        // hold 180: d0, d1 and d10 by name).
        #expect(cookies.count == 3000)
        var byDomain: [String: Set<String>] = [:]
        for c in cookies { byDomain[c["domain"] as? String ?? "", default: []].insert(c["name"] as? String ?? "") }
        #expect(byDomain["small.test"]?.count == 5)
        for d in 0..<17 {
            let names = byDomain["d\(d).test"] ?? []
            let keeps = [0, 1, 10].contains(d) ? 177 : 176
            #expect(
                names.count == keeps && !names.contains("n2") && names.contains("n\(180 - keeps)")
                    && !names.contains("n\(179 - keeps)") && names.contains("n179"), "d\(d)")
        }
        // The file written at close holds what the jar keeps.
        #expect(nc_client_cookies_flush(client.handle, nil) == NC_OK)
        let saved = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").filter {
            !$0.hasPrefix("#")
        }
        #expect(saved.count == 3000)
    }

    @Test func badArgumentsAreRefused() {
        var p: UnsafeMutablePointer<CChar>? = nil
        #expect(nc_client_cookies_json(nil, &p) == NC_ERR_INVALID_ARGUMENT)
        #expect(p == nil)
        #expect(nc_client_cookies_clear(nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_cookies_flush(nil, nil) == NC_ERR_INVALID_ARGUMENT)
        nc_string_free(nil)
    }
}

/// A new empty directory under the system's temporary directory.
func temporaryDirectory() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/nc-cookies-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    return String(cString: made)
}
