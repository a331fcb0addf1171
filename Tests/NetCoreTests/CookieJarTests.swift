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
}
