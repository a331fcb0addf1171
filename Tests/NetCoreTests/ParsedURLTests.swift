import Glibc
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// libcurl gets each request's URL already parsed (CURLOPT_CURLU, held by the
/// prepared request); pooled easy handles go from one URL to the next.
@Suite struct ParsedURLTests {
    let server = MockServer.shared

    /// The request line's target the server saw (/echo's "raw_path"), as JSON text.
    func target(_ r: Response?) -> String? {
        guard let text = r?.body.text, let key = text.range(of: #""raw_path":"#) else { return nil }
        let rest = text[key.upperBound...].drop { $0 == " " }.dropFirst()
        return String(rest.prefix { $0 != "\"" })
    }

    func send(_ c: NetClient, _ r: Request) async -> (Response?, NetError?) {
        do throws(NetError) { return (try await c.send(r), nil) } catch { return (nil, error) }
    }

    @Test func eachSendReachesItsOwnURLOnReusedHandles() async throws {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let again = try Request(method: "GET", target: "/echo?same=1")
        // One request sent again (its prepared request and parsed URL reused) between
        // new ones, through the loop's handle pool and through a sync lane.
        for i in 0..<6 {
            let (r1, e1) = try c.sendSync(again).get()
            #expect(e1 == nil)
            #expect(target(r1) == "/echo?same=1")
            let (r2, e2) = await send(c, try Request(method: "GET", target: "/echo?i=\(i)"))
            #expect(e2 == nil)
            #expect(target(r2) == "/echo?i=\(i)")
            let (r3, e3) = await send(c, again)
            #expect(e3 == nil)
            #expect(target(r3) == "/echo?same=1")
            let (r4, _) = try c.sendSync(try Request(method: "GET", target: "/echo?j=\(i)")).get()
            #expect(target(r4) == "/echo?j=\(i)")
        }
    }

    @Test func aURLLibcurlRefusesIsTransport3AndTheClientCarriesOn() async throws {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let bad = try Request(method: "GET", target: "http://127.0.0.1:99999/x")
        for _ in 0..<2 {
            let (r, e) = await send(c, bad)
            #expect(r == nil)
            #expect(e?.domain == .transport)
            #expect(e?.code == 3)
            #expect(
                e?.message
                    == "GET http://127.0.0.1:99999/x failed: URL using bad/illegal format or missing URL. See libcurl error 3."
            )
            #expect(e?.attempts == 0)   // nothing was sent
            let (rs, es) = try c.sendSync(bad).get()
            #expect(rs == nil && es?.code == 3 && es?.attempts == 0)
            let (ok, e2) = await send(c, try Request(method: "GET", target: "/echo?after=bad"))
            #expect(e2 == nil)
            #expect(target(ok) == "/echo?after=bad")
        }
    }
}
