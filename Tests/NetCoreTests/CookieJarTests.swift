import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

#if canImport(Glibc)
import Glibc
#endif

/// The Swift surface of the cookie jar (NetClient+Cookies.swift) and libcurl's
/// Netscape lines read as cookies; the rules themselves are tested through the
/// header (CAPITests/CookieTests.swift).
@Suite struct CookieJarTests {
    let server = MockServer.shared

    func client(cookies: Bool) throws -> NetClient {
        var config = Configuration(baseURL: server.baseURL, envelope: EnvelopeSchema())
        config.cookies.enabled = cookies
        return try NetClient(configuration: config)
    }

    func echoed(_ c: NetClient) async throws -> String? {
        let r = try await c.send(try Request(method: "GET", target: "/cookies/echo"))
        return try r.decode(Echo.self).cookie
    }

    struct Echo: Decodable { let cookie: String? }

    @Test func cookiesAreKeptListedAndClearedInSwift() async throws {
        let c = try client(cookies: true)
        _ = try await c.send(try Request(method: "GET", target: "/cookies/set?name=sid&value=v1&path=/&secure=1"))
        #expect(try await echoed(c) == "sid=v1")
        #expect(c.cookies == [Cookie(name: "sid", value: "v1", domain: "127.0.0.1", path: "/", secure: true)])
        c.clearCookies()
        #expect(c.cookies.isEmpty)
        #expect(try await echoed(c) == nil)
        try c.saveCookies()   // no file: nothing to do
    }

    @Test func offByDefault() async throws {
        #expect(Configuration().cookies.enabled == false)
        let c = try client(cookies: false)
        _ = try await c.send(try Request(method: "GET", target: "/cookies/set?name=sid&value=v1&path=/"))
        #expect(try await echoed(c) == nil)
        #expect(c.cookies.isEmpty)
    }

    @Test func aFileWithoutTheJarIsRefusedNamingTheProperty() {
        var config = Configuration()
        config.cookies.file = "/tmp/jar.txt"
        #expect(throws: NetError.self) { try config.validate() }
        do { try config.validate() } catch { #expect(error.message.contains("cookies.file")) }
    }

    @Test func theFileIsWrittenOnceWhenTheClientShutsDown() async throws {
        var template = Array("/tmp/nc-jar-XXXXXX".utf8CString)
        let dir = String(cString: try #require(mkdtemp(&template)))
        defer { rmdir(dir) }
        let file = dir + "/jar.txt"
        do {
            var config = Configuration(baseURL: server.baseURL, envelope: EnvelopeSchema())
            config.cookies.enabled = true
            config.cookies.file = file
            let c = try NetClient(configuration: config)
            _ = try await c.send(try Request(method: "GET", target: "/cookies/set?name=sid&value=v1&path=/"))
            #expect(access(file, F_OK) != 0)   // not during transfers
            c.shutdown()
            #expect(access(file, F_OK) == 0)   // at shutdown
            unlink(file)
        }
        // The client is gone: its deinit did not write the file a second time.
        #expect(access(file, F_OK) != 0)
    }

    @Test func netscapeLinesAreRead() throws {
        let c = try #require(Cookie(netscapeLine: "#HttpOnly_.example.com\tTRUE\t/a\tTRUE\t1700000000\tsid\tx=y"))
        #expect(
            c
                == Cookie(
                    name: "sid", value: "x=y", domain: "example.com", includeSubdomains: true, path: "/a",
                    secure: true, httpOnly: true, expires: 1_700_000_000))
        #expect(Cookie(netscapeLine: "h\tFALSE\t/\tFALSE\t0\tempty")?.value == "")
        #expect(Cookie(netscapeLine: "# Netscape HTTP Cookie File") == nil)
        #expect(Cookie(netscapeLine: "too\tfew") == nil)
        #expect(c.jsonText.contains(#""value":"x=y""#))
        #expect(Cookie.quoted("a\"b\\c\u{1}") == #""a\"b\\c\u0001""#)
    }

    /// A jar loaded from a Netscape file written here (lines in this order).
    func loadedJar(_ lines: [String]) throws -> (CookieJar, String) {
        var template = Array("/tmp/nc-jar-XXXXXX".utf8CString)
        let dir = String(cString: try #require(mkdtemp(&template)))
        let file = dir + "/jar.txt"
        let text = lines.joined(separator: "\n") + "\n"
        #expect(CookieJar.writeAtomically(text, to: file) == nil)
        return (try CookieJar(file: file), dir)
    }

    @Test func theBoundsEvictTheOldestOfTheDomainsHoldingTheMost() throws {
        func line(_ domain: String, _ name: String, httpOnly: Bool = false, expires: Int64 = 0) -> String {
            "\(httpOnly ? "#HttpOnly_" : "")\(domain)\tFALSE\t/\tFALSE\t\(expires)\t\(name)\tv"
        }
        // a.test: 5 (one HttpOnly, one spelled in capitals: the same domain), b.test: 2,
        // c.test: 4 and one expired, which counts for nothing.
        let (jar, dir) = try loadedJar(
            [
                line("a.test", "a0"), line("a.test", "a1", httpOnly: true), line("b.test", "b0"),
                line("c.test", "c0"), line("A.TEST", "a2"), line("c.test", "c1"), line("a.test", "a3"),
                line("c.test", "gone", expires: 1000), line("c.test", "c2"), line("b.test", "b1"),
                line("a.test", "a4"), line("c.test", "c3")
            ])
        defer {
            unlink(dir + "/jar.txt")
            rmdir(dir)
        }
        #expect(jar.storedCount == 11)
        // Four a domain: a0 goes. Then 4 + 2 + 4 = 10 > 7 in all: the largest common
        // share that fits is 2, so a.test and c.test keep their newest two, b.test both.
        #expect(jar.enforceBounds(perDomain: 4, total: 7) == 6)
        #expect(jar.storedCount == 6)
        let names = Set(jar.cookies().map(\.name))
        #expect(names == ["a3", "a4", "b0", "b1", "c2", "c3"])
        // Within the bounds nothing more goes.
        #expect(jar.enforceBounds(perDomain: 4, total: 7) == 6)
        #expect(jar.cookies().count == 6)
    }

    @Test func setCookieLinesTriggerTheBoundsCheckAsTheyArrive() async throws {
        let c = try client(cookies: true)
        let jar = try #require(c.cookieJar)
        // Checked after 64 lines or more: at 100 (kept 100) and at 200 (kept 180).
        for r in 0..<4 {
            _ = try await c.send(try Request(method: "GET", target: "/cookies/many?count=50&prefix=r\(r)_"))
        }
        #expect(jar.storedCount == CookieJar.maxPerDomain)
        // 50 more are not enough for the next check; 50 after them are.
        _ = try await c.send(try Request(method: "GET", target: "/cookies/many?count=50&prefix=r4_"))
        #expect(jar.storedCount == CookieJar.maxPerDomain + 50)
        _ = try await c.send(try Request(method: "GET", target: "/cookies/many?count=50&prefix=r5_"))
        #expect(jar.storedCount == CookieJar.maxPerDomain)
        // The newest were kept.
        let names = Set(c.cookies.map(\.name))
        #expect(names.contains("r5_49") && names.contains("r2_20") && !names.contains("r2_19"))
    }
}
