import Foundation
import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

#if canImport(Glibc)
import Glibc
#endif

/// The cache's pure parts (no server): the key, freshness, the memory store's
/// bound, the disk format's checks.
@Suite struct CachePartsTests {
    @Test func theKeySortsTheQueryAndDropsTheFragment() {
        #expect(CacheKey(method: "GET", url: "http://h/p?b=2&a=1#x").text == "GET http://h/p?a=1&b=2")
        #expect(CacheKey(method: "GET", url: "http://h/p?a=1").url == "http://h/p?a=1")
        #expect(CacheKey(method: "HEAD", url: "http://h/p").text == "HEAD http://h/p")
        #expect(
            CacheKey(method: "GET", url: "http://h/p?a=1&b=2").hash
                == CacheKey(method: "GET", url: "http://h/p?b=2&a=1").hash)
    }

    /// RFC 9110 §5.6.7: a recipient accepts all three forms of HTTP-date.
    @Test func httpDatesInTheirThreeForms() {
        let t: Int64 = 784_111_777   // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDate.seconds("Sun, 06 Nov 1994 08:49:37 GMT") == t)
        // RFC 850 with a four-digit year is read as written; a two-digit one by fullYear.
        #expect(HTTPDate.seconds("Sunday, 06-Nov-1994 08:49:37 GMT") == t)
        #expect(HTTPDate.seconds("Friday, 06-Nov-26 08:49:37 GMT") == t + 1_009_843_200)   // 2026 until 2076
        #expect(HTTPDate.seconds("Sun Nov  6 08:49:37 1994") == t)
        #expect(HTTPDate.seconds("sun nov  6 08:49:37 1994") == t)   // obsolete forms: any case
        #expect(HTTPDate.seconds("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.seconds("Tue, 29 Feb 2028 23:59:60 GMT") == 1_835_481_600)   // leap day, leap second
        for bad in [
            "0", "", "06 Nov 1994", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun Nov  6 08:49:37 99999",
            "Sunday, 06-Nov-94 08:49:37 PST", "Sun, 06 Nov 1994 08:49:37 GMT extra",
            "Tue, 31 Feb 2026 08:49:37 GMT", "Thu, 29 Feb 2100 00:00:00 GMT", "Sun, 31 Apr 1994 00:00:00 GMT"
        ] {
            #expect(HTTPDate.seconds(bad) == nil, "\(bad)")
        }
        #expect(HTTPDate.format(seconds: t) == "Sun, 06 Nov 1994 08:49:37 GMT")
        // RFC 850's two-digit year: this century unless more than 50 years ahead.
        let in2026: Int64 = 1_795_000_000   // 2026-11-18
        #expect(HTTPDate.fullYear(twoDigit: 94, now: in2026) == 1994)
        #expect(HTTPDate.fullYear(twoDigit: 26, now: in2026) == 2026)
        #expect(HTTPDate.fullYear(twoDigit: 76, now: in2026) == 2076)
        #expect(HTTPDate.fullYear(twoDigit: 77, now: in2026) == 1977)
        let in2051: Int64 = 2_557_000_000   // 2051-01-11
        #expect(HTTPDate.fullYear(twoDigit: 0, now: in2051) == 2100)
        #expect(HTTPDate.fullYear(twoDigit: 2, now: in2051) == 2002)
    }

    @Test func freshnessFromHeaders() {
        func freshness(_ lines: String) -> Freshness { Freshness(CacheEntry.headerStore(lines: lines).headers) }
        let f = freshness(
            "Cache-Control: max-age=60, must-revalidate\r\nAge: 10\r\nETag: \"v\"\r\nVary: Accept, X-A\r\n")
        #expect(
            f.maxAge == 60 && f.age == 10 && f.mustRevalidate && f.hasETag && !f.hasLastModified
                && f.vary == ["accept", "x-a"])
        #expect(f.freshUntil(nowMs: 1000) == 1000 + 50_000)
        #expect(freshness("Cache-Control: no-cache, max-age=60\r\n").freshUntil(nowMs: 5) == 5)
        #expect(!freshness("Cache-Control: no-store\r\n").storable(privateCache: true))
        #expect(!freshness("Cache-Control: private\r\n").storable(privateCache: false))
        #expect(freshness("Cache-Control: private\r\n").storable(privateCache: true))
        #expect(!freshness("Vary: *\r\n").storable(privateCache: true))
        let e = freshness("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nExpires: Sun, 06 Nov 1994 08:50:37 GMT\r\n")
        #expect(e.freshUntil(nowMs: 0) == 60_000)
        #expect(freshness("Expires: soon\r\n").freshUntil(nowMs: 7) == 7)   // unreadable: expired
        // The obsolete forms are read too (they were taken for "expired" before).
        let old = freshness("Date: Friday, 06-Nov-26 08:49:37 GMT\r\nExpires: Fri Nov  6 08:50:37 2026\r\n")
        #expect(old.freshUntil(nowMs: 0) == 60_000)
    }

    private func entry(_ key: String, body: Int) -> CacheEntry {
        let headers = CacheEntry.headerStore(lines: "ETag: \"e\"\r\nContent-Type: text/plain\r\n")
        let k = CacheKey(method: "GET", url: "http://h/\(key)")
        return CacheEntry(
            key: k.text, url: k.url, keyHash: k.hash, responseURL: CString(k.url), status: 200,
            headers: headers.headers, headerBytes: headers.bytes, body: NetBytes(String(repeating: "x", count: body)),
            storedAtMs: 1, freshUntilMs: 2, hasETag: true, hasLastModified: false, mustRevalidate: true,
            vary: [("x-a", "1"), ("x-b", nil)])
    }

    @Test func memoryStoreEvictsLeastRecentlyUsedWithinItsBytes() {
        let size = entry("a", body: 100).size
        var m = MemoryStore(limit: size * 3)
        for k in ["a", "b", "c"] { #expect(m.put(entry(k, body: 100)) == 0) }
        _ = m.get(CacheKey(method: "GET", url: "http://h/a"))   // a is now the most recent
        #expect(m.put(entry("d", body: 100)) == 1)
        #expect(m.get(CacheKey(method: "GET", url: "http://h/b")) == nil)
        #expect(m.get(CacheKey(method: "GET", url: "http://h/a")) != nil)
        #expect(m.bytes == size * 3 && m.count == 3)
        #expect(m.put(entry("huge", body: size * 4)) == 0 && m.count == 3)   // larger than the bound: not kept
        #expect(m.remove(urlPrefix: "http://h/") == 3 && m.bytes == 0)
    }

    /// The recency list links entries both ways: a cache that goes away frees its
    /// entries all the same (they kept each other alive once).
    @Test func aCacheFreesItsEntriesWhenItGoes() throws {
        weak var first: CacheEntry?
        weak var last: CacheEntry?
        do {
            let cache = try ResponseCache(Configuration.Cache())
            let entries = ["a", "b", "c"].map { entry($0, body: 10) }
            for e in entries { cache.store(e) }
            (first, last) = (entries.first, entries.last)
            #expect(first != nil && last != nil)
        }
        #expect(first == nil && last == nil)
    }

    @Test func diskFormatRoundTripsAndRefusesDamage() throws {
        let e = entry("a", body: 50)
        let bytes = DiskStore.encode(e)
        let back = try #require(DiskStore.decode(bytes))
        #expect(back.key == e.key && back.body.text == e.body.text && back.etag == "\"e\"" && back.mustRevalidate)
        #expect(back.vary.map(\.name) == ["x-a", "x-b"] && back.vary[0].value == "1" && back.vary[1].value == nil)
        #expect(back.headers.value("content-type") == "text/plain")
        for i in [0, 5, 30, bytes.count / 2, bytes.count - 1] {
            var damaged = bytes
            damaged[i] ^= 0x01
            #expect(DiskStore.decode(damaged) == nil, "byte \(i)")
        }
        for n in [0, 10, 24, bytes.count - 1] { #expect(DiskStore.decode(Array(bytes[0..<n])) == nil) }
    }
}

/// The Swift API against the mock server: `Request.cachePolicy`, `responses(for:)`,
/// `cacheStats` / `cacheClear`.
@Suite struct CacheSwiftTests {
    let server = MockServer.shared

    func client() throws -> NetClient {
        var config = Configuration(baseURL: server.baseURL, envelope: EnvelopeSchema())
        config.cache = Configuration.Cache()
        config.coalesce = false
        return try NetClient(configuration: config)
    }

    @Test func cachePolicyOnASwiftRequest() async throws {
        let key = "s\(UInt64.random(in: 0..<UInt64.max))"
        let c = try client()
        var r = try Request(method: "GET", target: "/cache/resource?key=\(key)&max_age=3600")
        r.cachePolicy = .cacheElseNetwork
        let first = try await c.send(r)
        let second = try await c.send(r)
        #expect(!first.fromCache && second.fromCache && !second.notModified)
        #expect(c.cacheStats?.hits == 1 && c.cacheStats?.stores == 1)
        #expect(c.cacheClear() && c.cacheStats?.entries == 0)
        r.cachePolicy = .cacheOnly
        await #expect(throws: NetError.self) { try await c.send(r) }
    }

    @Test func responsesYieldsTheStoredAnswerThenTheNetworks() async throws {
        let key = "s\(UInt64.random(in: 0..<UInt64.max))"
        let c = try client()
        let r = try Request(method: "GET", target: "/cache/resource?key=\(key)&max_age=0&etag=1")
        var seen: [(Bool, Bool)] = []
        for try await response in c.responses(for: r) { seen.append((response.fromCache, response.notModified)) }
        #expect(seen.map(\.0) == [false])   // nothing stored yet: the network's only
        seen = []
        for try await response in c.responses(for: r) { seen.append((response.fromCache, response.notModified)) }
        #expect(seen.count == 2)
        #expect(seen.first?.0 == true && seen.first?.1 == false)
        #expect(seen.last?.0 == true && seen.last?.1 == true)   // 304: the stored body, not modified
        #expect(CachePolicy(name: "cache_then_network") == .cacheThenNetwork && CachePolicy(name: "x") == nil)
    }
}
