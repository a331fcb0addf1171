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
        #expect(freshness("Cache-Control: no-store\r\n").refusal(shared: false) == .noStore)
        #expect(freshness("Cache-Control: private\r\n").refusal(shared: true) == .sharedPrivate)
        #expect(freshness("Cache-Control: private\r\n").refusal(shared: false) == nil)
        #expect(freshness("Vary: *\r\n").refusal(shared: false) == .varyStar)
        // What lets a shared cache store an answer to a credentialed request (RFC 9111 §3.5).
        #expect(!freshness("Cache-Control: max-age=60\r\n").sharedMayStoreCredentialed)
        for cc in ["public, max-age=60", "s-maxage=30", "max-age=1, must-revalidate"] {
            #expect(freshness("Cache-Control: \(cc)\r\n").sharedMayStoreCredentialed, "\(cc)")
        }
        // s-maxage wins over max-age in a shared cache only.
        let s = freshness("Cache-Control: max-age=60, s-maxage=\"10\"\r\n")
        #expect(s.sMaxAge == 10 && s.freshUntil(nowMs: 0, shared: true) == 10_000)
        #expect(s.freshUntil(nowMs: 0) == 60_000)
        let e = freshness("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nExpires: Sun, 06 Nov 1994 08:50:37 GMT\r\n")
        #expect(e.freshUntil(nowMs: 0) == 60_000)
        #expect(freshness("Expires: soon\r\n").freshUntil(nowMs: 7) == 7)   // unreadable: expired
        // The obsolete forms are read too (they were taken for "expired" before).
        let old = freshness("Date: Friday, 06-Nov-26 08:49:37 GMT\r\nExpires: Fri Nov  6 08:50:37 2026\r\n")
        #expect(old.freshUntil(nowMs: 0) == 60_000)
    }

    /// Partitions (CachePartition.swift): a SHA-256, different per name and per
    /// credentials, in front of the key; the URL part stays (remove by prefix).
    @Test func partitionsAreHashesInFrontOfTheKey() throws {
        let key = CacheKey(method: "GET", url: "http://h/p?b=2&a=1")
        #expect(key.inPartition(nil) === key)
        let a = try #require(CachePartition.named("user-1"))
        let b = try #require(CachePartition.named("user-2"))
        #expect(a.id.count == 64 && a.id.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(a != b && a == CachePartition.named("user-1"))
        let inA = key.inPartition(a)
        #expect(inA.text == "p=\(a.id) GET http://h/p?a=1&b=2" && inA.url == key.url && inA.hash != key.hash)
        #expect(inA.hash != key.inPartition(b).hash)

        func values(_ headers: [(String, String)], auth: String? = nil, jar: String = "", cert: String? = nil)
            -> CredentialValues
        {
            var h = HeaderFields()
            for (n, v) in headers { h.set(n, v) }
            return CredentialValues(
                headers: h, names: ["authorization", "cookie", "x-api-key"], authorization: auth, jar: jar,
                clientCert: cert)
        }
        #expect(values([("Accept", "x")]).isEmpty)
        #expect(!values([], jar: "127.0.0.1\t/\ts=1").isEmpty && !values([], cert: "/c.pem").isEmpty)
        // Names are compared without case, lines sorted: the same credentials, one partition.
        let one = values([("X-Api-Key", "k"), ("Authorization", "Bearer t")])
        let two = values([("authorization", "Bearer t"), ("x-api-key", "k"), ("Accept", "y")])
        #expect(one.text == two.text && CachePartition.of(one) == CachePartition.of(two))
        // The client's token is what the attempt adds unless the request has its own.
        #expect(values([], auth: "Bearer t").text == values([("Authorization", "Bearer t")]).text)
        #expect(values([("Authorization", "Bearer mine")], auth: "Bearer t").text.contains("Bearer mine"))
        #expect(!values([("Authorization", "Bearer mine")], auth: "Bearer t").text.contains("Bearer t\n"))
        // Other values, another partition; a name never equals credentials.
        #expect(CachePartition.of(values([], auth: "Bearer t1")) != CachePartition.of(values([], auth: "Bearer t2")))
        #expect(CachePartition.of(values([], jar: "a")) != CachePartition.of(values([], jar: "b")))
        #expect(CachePartition.named("x") != CachePartition.of(values([("Cookie", "x")])))
    }

    /// The worst case of the stats' JSON fits the C API's buffer
    /// (NC_CACHE_STATS_FULL_MAX, 1024): every counter at Int64.max.
    @Test func theLargestStatsTextFitsItsBuffer() {
        var s = CacheStats()
        let m = Int64.max
        (s.hits, s.misses, s.stores, s.evictions, s.revalidations, s.notModified) = (m, m, m, m, m, m)
        (s.bytes, s.entries, s.diskBytes, s.memoryLimit, s.diskLimit) = (m, m, m, m, m)
        for r in CacheStats.SkipReason.allCases { s.skipped[r] = m }
        #expect(s.json.utf8.count < 1024, "\(s.json.utf8.count)")
        #expect(CacheStats().json.contains(#""skipped":{"status":0,"no_store":0,"vary_star":0,"#))
        for r in CacheStats.SkipReason.allCases { #expect("\(r.key)" == r.rawValue) }
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

    /// bytes(for:) on a client with a cache: the chunks arrive (the request is sent
    /// as network-only, its body never stored), whatever the request's policy.
    @Test func bytesForStreamsWithACache() async throws {
        let key = "s\(UInt64.random(in: 0..<UInt64.max))"
        let c = try client()
        var r = try Request(method: "GET", target: "/cache/resource?key=\(key)&max_age=3600&size=5000")
        r.cachePolicy = .cacheElseNetwork
        for _ in 0..<2 {
            var data: [UInt8] = []
            for try await chunk in c.bytes(for: r) { data += chunk }
            #expect(data.count > 5000, "\(data.count) bytes")
            #expect(String(decoding: data, as: UTF8.self).contains("\"key\":\"\(key)\""))
        }
        let stats = try #require(c.cacheStats)
        #expect(stats.stores == 0 && stats.hits == 0 && stats.skipped[.streamed] == 2, "\(stats)")
        // The same request without a body handler is stored as usual.
        let plain = try await c.send(r)
        #expect(!plain.fromCache && c.cacheStats?.stores == 1)
    }

    /// setCachePartition: answers stored under a name are found under it only.
    @Test func aNamedPartitionInSwift() async throws {
        let key = "s\(UInt64.random(in: 0..<UInt64.max))"
        let c = try client()
        #expect(c.cachePartition == nil)
        #expect(try c.setCachePartition("alice") && c.cachePartition == "alice")
        var r = try Request(method: "GET", target: "/cache/resource?key=\(key)&max_age=3600")
        r.cachePolicy = .cacheElseNetwork
        #expect(try await !c.send(r).fromCache)
        #expect(try await c.send(r).fromCache)
        try c.setCachePartition("bob")
        #expect(try await !c.send(r).fromCache)   // bob's own copy
        try c.setCachePartition(nil)
        r.cachePolicy = .cacheOnly
        await #expect(throws: NetError.self) { try await c.send(r) }   // nothing outside a partition
        #expect(throws: NetError.self) { try c.setCachePartition("") }
        let plain = try NetClient(configuration: Configuration(baseURL: server.baseURL))
        #expect(try plain.setCachePartition("x") == false)
        var shared = Configuration(baseURL: server.baseURL)
        shared.cache = Configuration.Cache()
        shared.cache?.isShared = true
        #expect(throws: NetError.self) { try NetClient(configuration: shared).setCachePartition("x") }
        shared.cache?.partition = "x"
        #expect(throws: NetError.self) { try NetClient(configuration: shared) }
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
