// The response cache through the C API (netcore.h "Response cache", docs/caching.md)
// against the mock server's /cache/* routes (Tests/Support/mock_routes_cache.py),
// which count each key's requests, conditional requests and 304s.
import CNetCore
import Foundation
import MockServerSupport
import NetCoreBase
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The mock server's counters of `key` on /cache/resource.
private func cacheCount(_ key: String) -> (requests: Int, conditional: Int, notModified: Int) {
    guard let o = try? fetch("{}", MockServer.shared.url("/cache/count?key=\(key)")),
        let obj = foundationJSON(o.response?.dataJSON) as? [String: Any]
    else { return (-1, -1, -1) }
    return (obj["requests"] as? Int ?? -1, obj["conditional"] as? Int ?? -1, obj["not_modified"] as? Int ?? -1)
}

private func resource(_ key: String, _ query: String = "max_age=3600") -> String {
    "/cache/resource?key=\(key)&\(query)"
}

/// A client with a cache ("cache": `cache`) and the default envelope.
private func cacheClient(_ cache: String = "{}", _ extra: String...) throws -> TestClient {
    let members = [#""cache":\#(cache)"#, #""coalesce":false"#] + extra
    return try TestClient(config(base: MockServer.shared.baseURL, envelope: Envelope.a, members.joined(separator: ",")))
}

private func request(_ path: String, _ policy: Int32, _ build: (Request) -> Void = { _ in }) throws -> Request {
    let r = try Request("GET", path)
    #expect(nc_request_set_cache_policy(r.handle, policy) == NC_OK)
    build(r)
    return r
}

private func statsObject(_ client: TestClient) -> [String: Any] {
    var buf = [CChar](repeating: 0, count: Int(NC_CACHE_STATS_FULL_MAX))
    var n = 0
    guard nc_client_cache_stats_json(client.handle, &buf, buf.count, &n) == NC_OK else { return [:] }
    let text = String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return (foundationJSON(text) as? [String: Any]) ?? [:]
}

/// The counters (the numbers at the top of the stats).
private func stats(_ client: TestClient) -> [String: Int] {
    statsObject(client).compactMapValues { $0 as? Int }
}

/// The stats' "skipped": answers not stored, by reason.
private func skipped(_ client: TestClient) -> [String: Int] {
    (statsObject(client)["skipped"] as? [String: Any])?.compactMapValues { $0 as? Int } ?? [:]
}

/// The data's "n" (which request of the key the server answered).
private func n(_ o: Outcome?) -> Int? { o?.response?.object?["n"] as? Int }

/// A temporary directory, removed with its files.
private final class TempDir {
    let path: String
    init() {
        var template = Array("/tmp/nc-cache-test-XXXXXX".utf8CString)
        path =
            template.withUnsafeMutableBufferPointer { p -> String? in
                guard let base = p.baseAddress, let made = mkdtemp(base) else { return nil }
                return String(cString: made)
            } ?? "/tmp/nc-cache-test-fallback-\(getpid())"
    }
    var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".nce") }
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// What a cached callback and the completion received, in order.
final class CacheOrder: @unchecked Sendable {
    private let lock = NSCondition()
    private var _log: [(kind: String, fromCache: Int32, notModified: Int32, n: Int?, error: Bool)] = []
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    func add(_ kind: String, _ r: OpaquePointer?, _ e: OpaquePointer?) {
        let info = r.map { ResponseInfo($0) }
        let entry = (
            kind, nc_response_from_cache(r), nc_response_not_modified(r), info?.object?["n"] as? Int, e != nil
        )
        lock.withLock {
            _log.append(entry)
            lock.broadcast()
        }
    }
    var log: [(kind: String, fromCache: Int32, notModified: Int32, n: Int?, error: Bool)] { lock.withLock { _log } }
    func wait(_ count: Int) -> Bool { waitUntil { self.log.count >= count } }
}

private let cachedFn: nc_complete_fn = { r, e, ud in
    Unmanaged<CacheOrder>.fromOpaque(ud!).takeUnretainedValue().add("cached", r, e)
}
private let finalFn: nc_complete_fn = { r, e, ud in
    Unmanaged<CacheOrder>.fromOpaque(ud!).takeUnretainedValue().add("final", r, e)
}

/// The lines a log handler received.
final class LineLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _lines: [String] = []
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    func add(_ line: String) { lock.withLock { _lines.append(line) } }
    var lines: [String] { lock.withLock { _lines } }
}

private let lineLogFn: nc_event_fn = { text, len, ud in
    guard let ud, let text else { return }
    Unmanaged<LineLog>.fromOpaque(ud).takeUnretainedValue().add(
        String(decoding: UnsafeRawBufferPointer(start: text, count: len), as: UTF8.self))
}

@Suite struct CacheTests {
    @Test func freshAnswerIsServedWithoutARequestAndCounted() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        let first = client.sync(try request(resource(key), NC_CACHE_ELSE_NETWORK))
        #expect(first.succeeded && first.response?.fromCache == 0, "\(first)")
        let second = client.sync(try request(resource(key), NC_CACHE_ELSE_NETWORK))
        #expect(second.succeeded, "\(second)")
        #expect(second.response?.fromCache == 1)
        #expect(n(second) == 1)   // the first answer, served again
        #expect(cacheCount(key).requests == 1)
        let s = stats(client)
        #expect(s["hits"] == 1 && s["misses"] == 1 && s["stores"] == 1 && s["entries"] == 1, "\(s)")
        #expect((s["bytes"] ?? 0) > 0)
    }

    @Test func networkOnlyStoresButNeverReadsNorSendsConditionals() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        for _ in 0..<2 {
            let o = client.sync(try request(resource(key, "max_age=3600&etag=1"), NC_CACHE_NETWORK_ONLY))
            #expect(o.succeeded && o.response?.fromCache == 0, "\(o)")
        }
        #expect(cacheCount(key).requests == 2)
        #expect(cacheCount(key).conditional == 0)
        // Stored all the same: CACHE_ONLY finds it.
        let only = client.sync(try request(resource(key, "max_age=3600&etag=1"), NC_CACHE_ONLY))
        #expect(only.succeeded && only.response?.fromCache == 1 && n(only) == 2, "\(only)")
        #expect(cacheCount(key).requests == 2)
    }

    @Test func cacheOnlyMissIsNotCachedAndSendsNothing() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        let o = client.sync(try request(resource(key), NC_CACHE_ONLY))
        #expect(o.rc == NC_ERR_FAILED)
        #expect(o.error?.isClient(NC_CLIENT_NOT_CACHED) == true, "\(o)")
        #expect(o.error?.message.contains("CACHE_ONLY") == true)
        #expect(cacheCount(key).requests == 0)
        // Without any cache configured: NOT_CACHED too, naming the missing "cache".
        let plain = try TestClient(config())
        defer { plain.free() }
        let p = plain.sync(try request(resource(key), NC_CACHE_ONLY))
        #expect(p.error?.isClient(NC_CLIENT_NOT_CACHED) == true && p.error?.message.contains("\"cache\"") == true)
        #expect(cacheCount(key).requests == 0)
    }

    @Test func cacheOnlyMissesNeverCoalesceAndReachTheErrorHandler() throws {
        let key = uniqueKey()
        // Coalescing on (the default): identical CACHE_ONLY misses in flight must not
        // share a transfer — a shared one would be sent.
        let client = try TestClient(config(base: MockServer.shared.baseURL, envelope: Envelope.a, #""cache":{}"#))
        defer { client.free() }
        let handler = Collector()
        #expect(nc_client_set_error_handler(client.handle, collectFn, handler.userdata) == NC_OK)
        let collectors = (0..<5).map { _ in Collector() }
        for c in collectors {
            let r = try request(resource(key), NC_CACHE_ONLY)
            #expect(client.send(r, c, task: false).0 == NC_OK)
        }
        for c in collectors {
            #expect(c.wait())
            #expect(c.outcome?.error?.isClient(NC_CLIENT_NOT_CACHED) == true, "\(String(describing: c.outcome))")
        }
        #expect(waitUntil { handler.calls == 5 })
        #expect(cacheCount(key).requests == 0)
    }

    @Test func memoryIsBoundedInBytesAndEvictsTheLeastRecentlyUsed() throws {
        let keys = (0..<4).map { _ in uniqueKey() }
        // Each answer is about 1.3 kB (800 bytes of padding, headers, key, overhead).
        let client = try cacheClient(#"{"memory_bytes":3000}"#)
        defer { client.free() }
        for k in keys {
            #expect(client.sync(try request(resource(k, "max_age=3600&size=800"), NC_CACHE_ELSE_NETWORK)).succeeded)
        }
        let s = stats(client)
        #expect((s["evictions"] ?? 0) >= 2, "\(s)")
        #expect((s["bytes"] ?? 0) <= 3000 && (1...2).contains(s["entries"] ?? 0), "\(s)")
        let oldest = client.sync(try request(resource(keys[0], "max_age=3600&size=800"), NC_CACHE_ONLY))
        #expect(oldest.error?.isClient(NC_CLIENT_NOT_CACHED) == true, "\(oldest)")
        let newest = client.sync(try request(resource(keys[3], "max_age=3600&size=800"), NC_CACHE_ONLY))
        #expect(newest.succeeded && newest.response?.fromCache == 1)
    }

    @Test(arguments: ["etag=1", "lm=1"])
    func staleAnswerIsRevalidatedAndA304ServesTheStoredBody(validator: String) throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        let path = resource(key, "max_age=0&\(validator)")
        let first = client.sync(try request(path, NC_CACHE_ELSE_NETWORK))
        #expect(first.succeeded && first.response?.fromCache == 0)
        let second = client.sync(try request(path, NC_CACHE_ELSE_NETWORK))
        #expect(second.succeeded, "\(second)")
        #expect(second.response?.status == 200)   // the stored answer, not the 304
        #expect(second.response?.fromCache == 1)
        #expect(n(second) == 1)
        var r: OpaquePointer?
        var e: OpaquePointer?
        let third = try request(path, NC_CACHE_ELSE_NETWORK)
        #expect(nc_client_send_sync(client.handle, third.handle, &r, &e) == NC_OK)
        withExtendedLifetime(third) {}
        #expect(nc_response_not_modified(r) == 1 && nc_response_from_cache(r) == 1)
        nc_response_free(r)
        let count = cacheCount(key)
        #expect(count.requests == 3 && count.conditional == 2 && count.notModified == 2, "\(count)")
        let s = stats(client)
        #expect(s["revalidations"] == 2 && s["not_modified"] == 2, "\(s)")
    }

    @Test func aChangedResourceAnswers200AndReplacesTheStoredOne() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        let path = resource(key, "max_age=0&etag=1")
        #expect(client.sync(try request(path, NC_CACHE_ELSE_NETWORK)).succeeded)
        _ = try fetch("{}", MockServer.shared.url("/cache/bump?key=\(key)"))
        let changed = client.sync(try request(path, NC_CACHE_ELSE_NETWORK))
        #expect(changed.response?.fromCache == 0 && changed.response?.object?["version"] as? Int == 2, "\(changed)")
        let only = client.sync(try request(path, NC_CACHE_ONLY))
        #expect(only.response?.object?["version"] as? Int == 2)
    }

    @Test func noStoreAndVaryStarAreNeverStored() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        #expect(client.sync(try request(resource(key, "max_age=3600&cc=no-store"), NC_CACHE_ELSE_NETWORK)).succeeded)
        let o = client.sync(try request(resource(key, "max_age=3600&cc=no-store"), NC_CACHE_ONLY))
        #expect(o.error?.isClient(NC_CLIENT_NOT_CACHED) == true)
        #expect(client.sync(try request(resource(key, "max_age=3600&vary=*"), NC_CACHE_ELSE_NETWORK)).succeeded)
        #expect(client.sync(try request(resource(key, "max_age=3600&vary=*"), NC_CACHE_ONLY)).error != nil)
        #expect(stats(client)["stores"] == 0)
    }

    @Test func expiresGivesFreshnessWhenThereIsNoMaxAge() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        #expect(client.sync(try request(resource(key, "expires=3600"), NC_CACHE_ELSE_NETWORK)).succeeded)
        #expect(client.sync(try request(resource(key, "expires=3600"), NC_CACHE_ELSE_NETWORK)).response?.fromCache == 1)
        let past = uniqueKey()
        #expect(client.sync(try request(resource(past, "expires=-60"), NC_CACHE_ELSE_NETWORK)).succeeded)
        #expect(client.sync(try request(resource(past, "expires=-60"), NC_CACHE_ELSE_NETWORK)).response?.fromCache == 0)
        #expect(cacheCount(key).requests == 1 && cacheCount(past).requests == 2)
    }

    /// RFC 9110 §5.6.7: Expires and Date in the obsolete forms are read too (they
    /// were taken for "expired" before).
    @Test(arguments: ["rfc850", "asctime"])
    func expiresInAnObsoleteFormGivesFreshness(form: String) throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        let query = "expires=3600&date_form=\(form)"
        #expect(client.sync(try request(resource(key, query), NC_CACHE_ELSE_NETWORK)).succeeded)
        #expect(client.sync(try request(resource(key, query), NC_CACHE_ELSE_NETWORK)).response?.fromCache == 1)
        #expect(cacheCount(key).requests == 1)
    }

    @Test func theQueryIsSortedInTheKey() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        #expect(
            client.sync(try request("/cache/resource?key=\(key)&max_age=3600&z=1", NC_CACHE_ELSE_NETWORK)).succeeded)
        let o = client.sync(try request("/cache/resource?z=1&max_age=3600&key=\(key)", NC_CACHE_ELSE_NETWORK))
        #expect(o.response?.fromCache == 1)
        #expect(cacheCount(key).requests == 1)
    }

    @Test func varyKeepsTheVariantOfTheNamedHeader() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        let path = resource(key, "max_age=3600&vary=X-Lang")
        let en = client.sync(try request(path, NC_CACHE_ELSE_NETWORK) { $0.header("X-Lang", "en") })
        #expect(en.response?.object?["vary"] as? String == "en")
        let enAgain = client.sync(try request(path, NC_CACHE_ELSE_NETWORK) { $0.header("X-Lang", "en") })
        #expect(enAgain.response?.fromCache == 1)
        let fr = client.sync(try request(path, NC_CACHE_ELSE_NETWORK) { $0.header("X-Lang", "fr") })
        #expect(fr.response?.fromCache == 0 && fr.response?.object?["vary"] as? String == "fr", "\(fr)")
        #expect(cacheCount(key).requests == 2)
    }

    /// Since 0.4 an answer to a credentialed request is stored by default, in the
    /// partition of its credentials: found again with the same ones, never with
    /// others or none. "private": true (deprecated) is that default; "shared": true
    /// and "private": false store none of them (and no Cache-Control: private).
    @Test(arguments: ["{}", #"{"private":true}"#, #"{"shared":true}"#, #"{"private":false}"#])
    func credentialedAnswersArePartitionedUnlessShared(cache: String) throws {
        let shared = cache.contains("shared") || cache.contains("false")
        let client = try cacheClient(cache, #""credential_headers":["X-Api-Key"]"#)
        defer { client.free() }
        let auth = uniqueKey(), apiKey = uniqueKey(), token = uniqueKey(), basic = uniqueKey(), marked = uniqueKey()
        #expect(client.sync(try request(resource(auth), 1) { $0.header("Authorization", "Bearer t") }).succeeded)
        #expect(client.sync(try request(resource(apiKey), 1) { $0.header("X-Api-Key", "s") }).succeeded)
        #expect(client.sync(try request(resource(marked, "max_age=3600&cc=private"), 1)).succeeded)
        #expect(nc_client_set_token(client.handle, "tok") == NC_OK)
        #expect(client.sync(try request(resource(token), 1)).succeeded)
        #expect(nc_client_set_token(client.handle, nil) == NC_OK)
        #expect(nc_client_set_basic_auth(client.handle, "u", "p") == NC_OK)
        #expect(client.sync(try request(resource(basic), 1)).succeeded)
        #expect(nc_client_set_basic_auth(client.handle, nil, nil) == NC_OK)
        // With the same credentials: stored unless shared.
        let same: [(String, (Request) -> Void)] = [
            (auth, { $0.header("Authorization", "Bearer t") }), (apiKey, { $0.header("X-Api-Key", "s") })
        ]
        for (k, build) in same {
            let o = client.sync(try request(resource(k), NC_CACHE_ONLY, build))
            #expect((o.response?.fromCache == 1) == !shared, "\(cache), \(k): \(o)")
        }
        #expect(nc_client_set_token(client.handle, "tok") == NC_OK)
        #expect((client.sync(try request(resource(token), NC_CACHE_ONLY)).response?.fromCache == 1) == !shared)
        #expect(nc_client_set_token(client.handle, nil) == NC_OK)
        #expect(nc_client_set_basic_auth(client.handle, "u", "p") == NC_OK)
        #expect((client.sync(try request(resource(basic), NC_CACHE_ONLY)).response?.fromCache == 1) == !shared)
        #expect(nc_client_set_basic_auth(client.handle, nil, nil) == NC_OK)
        // With none, or others: never.
        for k in [auth, apiKey, token, basic] {
            #expect(client.sync(try request(resource(k), NC_CACHE_ONLY)).error?.isClient(NC_CLIENT_NOT_CACHED) == true)
            let other = client.sync(try request(resource(k), NC_CACHE_ONLY) { $0.header("Authorization", "Bearer x") })
            #expect(other.error?.isClient(NC_CLIENT_NOT_CACHED) == true, "\(cache), \(k): \(other)")
        }
        // Cache-Control: private without credentials: an app's cache keeps it.
        let m = client.sync(try request(resource(marked, "max_age=3600&cc=private"), NC_CACHE_ONLY))
        #expect((m.response?.fromCache == 1) == !shared, "\(m)")
        let s = stats(client), k = skipped(client)
        #expect(s["stores"] == (shared ? 0 : 5), "\(s)")
        #expect(k["shared_credentialed"] == (shared ? 4 : 0) && k["shared_private"] == (shared ? 1 : 0), "\(k)")
    }

    /// Two tokens never see each other's entries in memory: each gets its own copy,
    /// and going back to the first token finds the first copy.
    @Test func twoTokensNeverSeeEachOthersEntries() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        func get(_ policy: Int32 = NC_CACHE_ELSE_NETWORK) throws -> Outcome {
            client.sync(try request(resource(key), policy))
        }
        #expect(nc_client_set_token(client.handle, "alice") == NC_OK)
        let a1 = try get()
        #expect(a1.response?.fromCache == 0 && a1.response?.object?["auth"] as? String == "Bearer alice", "\(a1)")
        let a2 = try get()
        #expect(a2.response?.fromCache == 1 && n(a2) == 1)
        #expect(nc_client_set_token(client.handle, "bob") == NC_OK)
        let b1 = try get()
        #expect(b1.response?.fromCache == 0 && b1.response?.object?["auth"] as? String == "Bearer bob", "\(b1)")
        #expect(n(b1) == 2)
        let b2 = try get()
        #expect(b2.response?.fromCache == 1 && b2.response?.object?["auth"] as? String == "Bearer bob")
        #expect(nc_client_set_token(client.handle, "alice") == NC_OK)
        let a3 = try get(NC_CACHE_ONLY)
        #expect(a3.response?.fromCache == 1 && a3.response?.object?["auth"] as? String == "Bearer alice", "\(a3)")
        #expect(nc_client_set_token(client.handle, nil) == NC_OK)
        #expect(try get(NC_CACHE_ONLY).error?.isClient(NC_CLIENT_NOT_CACHED) == true)
        #expect(cacheCount(key).requests == 2)
        // nc_client_cache_remove matches every partition's entries.
        #expect(nc_client_cache_remove(client.handle, MockServer.shared.url("/cache/resource?key=\(key)")) == NC_OK)
        #expect(stats(client)["entries"] == 0)
    }

    /// On disk too: two clients with two tokens on one directory store two files,
    /// and neither reads the other's; a client with the first token reads the first.
    @Test func twoTokensOnOneDiskDirectoryNeverShareAnEntry() throws {
        let dir = TempDir()
        let key = uniqueKey()
        let cache = #"{"dir":"\#(dir.path)","memory_bytes":0}"#
        let alice = try cacheClient(cache, #""auth":{"token":"alice"}"#)
        let bob = try cacheClient(cache, #""auth":{"token":"bob"}"#)
        defer {
            alice.free()
            bob.free()
        }
        #expect(alice.sync(try request(resource(key), NC_CACHE_ELSE_NETWORK)).succeeded)
        #expect(dir.files.count == 1)
        let miss = bob.sync(try request(resource(key), NC_CACHE_ONLY))
        #expect(miss.error?.isClient(NC_CLIENT_NOT_CACHED) == true, "\(miss)")
        let own = bob.sync(try request(resource(key), NC_CACHE_ELSE_NETWORK))
        #expect(own.response?.fromCache == 0 && own.response?.object?["auth"] as? String == "Bearer bob")
        #expect(dir.files.count == 2)
        // Each file's key starts with its partition: a hash, not the token.
        for f in dir.files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/" + f))
            #expect(String(decoding: bytes, as: UTF8.self).contains("p="))
        }
        // A third client with alice's token reads alice's file.
        let again = try cacheClient(cache, #""auth":{"token":"alice"}"#)
        defer { again.free() }
        let o = again.sync(try request(resource(key), NC_CACHE_ONLY))
        #expect(o.response?.fromCache == 1 && o.response?.object?["auth"] as? String == "Bearer alice", "\(o)")
        #expect(cacheCount(key).requests == 2)
    }

    /// A named partition survives a token change (a refresh): the entry stored
    /// with the old token is served with the new one. Another name, or none, does
    /// not see it.
    @Test func aNamedPartitionKeepsItsEntriesAcrossATokenChange() throws {
        let key = uniqueKey()
        let client = try cacheClient(#"{"partition":"user-7"}"#, #""auth":{"token":"old"}"#)
        defer { client.free() }
        #expect(client.sync(try request(resource(key), NC_CACHE_ELSE_NETWORK)).succeeded)
        #expect(nc_client_set_token(client.handle, "new") == NC_OK)
        let after = client.sync(try request(resource(key), NC_CACHE_ELSE_NETWORK))
        #expect(after.response?.fromCache == 1 && n(after) == 1, "\(after)")
        #expect(after.response?.object?["auth"] as? String == "Bearer old")
        // Another user: another partition.
        #expect(nc_client_set_cache_partition(client.handle, "user-8") == NC_OK)
        #expect(client.sync(try request(resource(key), NC_CACHE_ONLY)).error?.isClient(NC_CLIENT_NOT_CACHED) == true)
        // Back to the credentials' hash: the new token has nothing stored either.
        #expect(nc_client_set_cache_partition(client.handle, nil) == NC_OK)
        #expect(client.sync(try request(resource(key), NC_CACHE_ONLY)).error?.isClient(NC_CLIENT_NOT_CACHED) == true)
        #expect(nc_client_set_cache_partition(client.handle, "user-7") == NC_OK)
        #expect(client.sync(try request(resource(key), NC_CACHE_ONLY)).response?.fromCache == 1)
        #expect(cacheCount(key).requests == 1)
        // Refusals change nothing.
        #expect(nc_client_set_cache_partition(nil, "x") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_set_cache_partition(client.handle, "") == NC_ERR_INVALID_ARGUMENT)
        #expect(client.sync(try request(resource(key), NC_CACHE_ONLY)).response?.fromCache == 1)
        let plain = try TestClient(config())
        defer { plain.free() }
        #expect(nc_client_set_cache_partition(plain.handle, "x") == NC_ERR_INVALID_STATE)
        let shared = try cacheClient(#"{"shared":true}"#)
        defer { shared.free() }
        #expect(nc_client_set_cache_partition(shared.handle, "x") == NC_ERR_INVALID_STATE)
        #expect(nc_client_set_cache_partition(shared.handle, nil) == NC_OK)
    }

    /// A shared cache: answers to credentialed requests only when they say public
    /// (then for every user, since a shared cache has no partitions).
    @Test func aSharedCacheStoresNoCredentialedAnswerUnlessPublic() throws {
        let plain = uniqueKey(), pub = uniqueKey()
        let client = try cacheClient(#"{"shared":true}"#, #""auth":{"token":"alice"}"#)
        defer { client.free() }
        #expect(client.sync(try request(resource(plain), NC_CACHE_ELSE_NETWORK)).succeeded)
        #expect(client.sync(try request(resource(plain), NC_CACHE_ELSE_NETWORK)).response?.fromCache == 0)
        #expect(client.sync(try request(resource(pub, "max_age=3600&cc=public"), 1)).succeeded)
        #expect(nc_client_set_token(client.handle, "bob") == NC_OK)
        let o = client.sync(try request(resource(pub, "max_age=3600&cc=public"), NC_CACHE_ONLY))
        #expect(o.response?.fromCache == 1 && o.response?.object?["auth"] as? String == "Bearer alice", "\(o)")
        #expect(stats(client)["stores"] == 1 && skipped(client)["shared_credentialed"] == 2, "\(skipped(client))")
    }

    /// Why an answer was not stored: counted by reason in "skipped", and a DEBUG
    /// log line says it (without a credential).
    @Test func skippedAnswersAreCountedAndLoggedAtDebug() throws {
        let client = try cacheClient(#"{"memory_bytes":1500}"#, #""auth":{"token":"secret-token"}"#)
        defer { client.free() }
        let lines = LineLog()
        #expect(nc_client_set_log_handler(client.handle, NC_LOG_DEBUG, lineLogFn, lines.userdata) == NC_OK)
        #expect(client.sync(try request(resource(uniqueKey(), "max_age=3600&cc=no-store"), 1)).succeeded)
        #expect(client.sync(try request(resource(uniqueKey(), "max_age=3600&vary=*"), 1)).succeeded)
        #expect(client.sync(try request(resource(uniqueKey(), "max_age=3600&size=3000"), 1)).succeeded)
        #expect(client.sync(try request("/status/404", 1)).error != nil)
        // An adapter that adds a credential the lookup could not see.
        let edit = HeaderEdit([("X-Session", "s1")])
        let changed = try cacheClient("{}", #""credential_headers":["X-Session"]"#)
        defer { changed.free() }
        #expect(nc_client_add_adapter(changed.handle, headerEditAdapter, edit.userdata) == NC_OK)
        let changedLines = LineLog()
        #expect(nc_client_set_log_handler(changed.handle, NC_LOG_DEBUG, lineLogFn, changedLines.userdata) == NC_OK)
        #expect(changed.sync(try request(resource(uniqueKey()), 1)).succeeded)
        withExtendedLifetime(edit) {}
        let k = skipped(client)
        #expect(
            k["no_store"] == 1 && k["vary_star"] == 1 && k["too_large"] == 1 && k["status"] == 1
                && k["credentials_changed"] == 0 && k["streamed"] == 0, "\(k)")
        #expect(stats(client)["stores"] == 0)
        #expect(skipped(changed)["credentials_changed"] == 1 && stats(changed)["stores"] == 0, "\(skipped(changed))")
        let notStored = lines.lines.filter { $0.contains("not stored in the cache") }
        for (reason, why) in [
            ("no_store", "Cache-Control: no-store"), ("vary_star", "Vary: *"), ("too_large", "memory_bytes"),
            ("status", "only a 200")
        ] {
            #expect(
                notStored.contains { $0.hasPrefix("DEBUG GET ") && $0.contains("(\(reason))") && $0.contains(why) },
                "\(reason): \(notStored)")
        }
        #expect(notStored.count == 4 && !lines.lines.contains { $0.contains("secret-token") }, "\(lines.lines)")
        #expect(changedLines.lines.contains { $0.contains("(credentials_changed)") }, "\(changedLines.lines)")
        // Not at INFO.
        let quiet = LineLog()
        #expect(nc_client_set_log_handler(client.handle, NC_LOG_INFO, lineLogFn, quiet.userdata) == NC_OK)
        #expect(client.sync(try request(resource(uniqueKey(), "max_age=3600&cc=no-store"), 1)).succeeded)
        #expect(!quiet.lines.contains { $0.contains("not stored") } && skipped(client)["no_store"] == 2)
    }

    /// The cookie jar's cookies for the host are credentials: an answer is kept in
    /// the partition of the cookies it was sent with.
    @Test func theCookieJarsCookiesPartitionTheCache() throws {
        let key = uniqueKey()
        let client = try cacheClient("{}", #""cookies":{"enabled":true}"#)
        defer { client.free() }
        let path = resource(key, "max_age=3600&set_cookie=sid%3Dalice")
        // Sent without a cookie (the answer sets one): stored in no partition.
        let first = client.sync(try request(path, NC_CACHE_ELSE_NETWORK))
        #expect(first.response?.fromCache == 0 && first.response?.object?["cookie"] == nil, "\(first)")
        // Now the jar holds sid=alice: another partition, so the network, with the cookie.
        let second = client.sync(try request(path, NC_CACHE_ELSE_NETWORK))
        #expect(second.response?.fromCache == 0 && second.response?.object?["cookie"] as? String == "sid=alice")
        let third = client.sync(try request(path, NC_CACHE_ELSE_NETWORK))
        #expect(third.response?.fromCache == 1 && third.response?.object?["cookie"] as? String == "sid=alice")
        // Without the cookie: the first copy, the one sent without any.
        #expect(nc_client_cookies_clear(client.handle) == NC_OK)
        let cleared = client.sync(try request(path, NC_CACHE_ONLY))
        #expect(cleared.response?.fromCache == 1 && n(cleared) == 1 && cleared.response?.object?["cookie"] == nil)
        #expect(stats(client)["stores"] == 2 && cacheCount(key).requests == 2)
    }

    // MARK: callbacks with a cache

    /// The progress callback fires on a client with a cache: for a network
    /// transfer (stored), and once, whole, for an answer served from the cache.
    @Test func progressFiresWithACache() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        for (policy, fromCache) in [(NC_CACHE_NETWORK_ONLY, Int32(0)), (NC_CACHE_ELSE_NETWORK, Int32(1))] {
            let log = ProgressLog()
            let r = try request(resource(key, "max_age=3600&size=20000"), policy)
            #expect(nc_request_set_progress(r.handle, progressFn, log.userdata) == NC_OK)
            let o = client.sync(r)
            #expect(o.succeeded && o.response?.fromCache == fromCache, "\(o)")
            let size = Int64(o.response?.body.count ?? 0)
            let calls = log.lock.withLock { log.calls }
            #expect(size > 20000 && !calls.isEmpty, "policy \(policy): \(calls)")
            let last = calls.last
            #expect(last.map { $0.down == $0.downTotal && $0.down > 20000 && $0.up == 0 } == true, "\(calls)")
            if fromCache == 1 {
                // Served without a transfer: one call, the stored body whole.
                #expect(calls == [.init(down: size, downTotal: size, up: 0, upTotal: 0)], "\(calls)")
            }
        }
        #expect(stats(client)["stores"] == 1 && cacheCount(key).requests == 1)
    }

    /// The body callback gets the body on a client with a cache, whatever the
    /// policy: such a request is sent as network-only and its body never stored.
    @Test(arguments: [NC_CACHE_NETWORK_ONLY, NC_CACHE_ELSE_NETWORK, NC_CACHE_THEN_NETWORK])
    func theBodyCallbackFiresWithACache(policy: Int32) throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        // Something stored for the URL already: still not served to a body callback.
        #expect(client.sync(try request(resource(key, "max_age=3600&size=50000"), 1)).succeeded)
        let chunks = ChunkLog()
        let r = try request(resource(key, "max_age=3600&size=50000"), policy)
        #expect(nc_request_set_body_callback(r.handle, chunkFn, chunks.userdata) == NC_OK)
        let o = client.sync(r)
        #expect(o.succeeded && o.response?.fromCache == 0 && o.response?.body.isEmpty == true, "\(o)")
        let body = chunks.lock.withLock { chunks.bytes }
        #expect(chunks.chunks >= 1 && body.count > 50000)
        #expect(String(decoding: body, as: UTF8.self).contains("\"n\":2"))
        #expect(cacheCount(key).requests == 2 && stats(client)["stores"] == 1 && skipped(client)["streamed"] == 1)
        // CACHE_ONLY with a body callback: nothing sent, nothing served.
        let only = try request(resource(key, "max_age=3600&size=50000"), NC_CACHE_ONLY)
        #expect(nc_request_set_body_callback(only.handle, chunkFn, chunks.userdata) == NC_OK)
        #expect(client.sync(only).error?.isClient(NC_CLIENT_NOT_CACHED) == true)
        #expect(cacheCount(key).requests == 2)
    }

    /// nc_client_cache_stats_json's largest text fits NC_CACHE_STATS_FULL_MAX, and
    /// its members without "skipped" (0.3's) fit NC_CACHE_STATS_MAX, unchanged.
    @Test func theStatsBuffersHoldTheLargestTexts() {
        var s = CacheStats()
        let m = Int64.max
        (s.hits, s.misses, s.stores, s.evictions, s.revalidations, s.notModified) = (m, m, m, m, m, m)
        (s.bytes, s.entries, s.diskBytes, s.memoryLimit, s.diskLimit) = (m, m, m, m, m)
        for r in CacheStats.SkipReason.allCases { s.skipped[r] = m }
        #expect(s.json.utf8.count < Int(NC_CACHE_STATS_FULL_MAX) && s.json.utf8.count >= Int(NC_CACHE_STATS_MAX))
        #expect(s.jsonWithoutSkipped.utf8.count < Int(NC_CACHE_STATS_MAX) && NC_CACHE_STATS_MAX == 512)
    }

    /// A buffer too small for the whole text but large enough for 0.3's members gets
    /// those (a program built against 0.3); smaller still, nothing.
    @Test func aSmallStatsBufferGetsTheMembersWithoutSkipped() throws {
        let client = try cacheClient()
        defer { client.free() }
        var full = [CChar](repeating: 0, count: Int(NC_CACHE_STATS_FULL_MAX))
        var n = 0
        #expect(nc_client_cache_stats_json(client.handle, &full, full.count, &n) == NC_OK)
        let whole = String(decoding: full.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(whole.contains("\"skipped\":{") && n < 512)
        var tight = [CChar](repeating: 0, count: n)   // one byte short of the whole text and its NUL
        var m = 0
        #expect(nc_client_cache_stats_json(client.handle, &tight, tight.count, &m) == NC_OK)
        let legacy = String(decoding: tight.prefix(m).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(
            !legacy.contains("skipped") && legacy.hasSuffix("}")
                && (foundationJSON(legacy) as? [String: Int])?.count == 11)
        var tiny = [CChar](repeating: 7, count: m)
        #expect(nc_client_cache_stats_json(client.handle, &tiny, tiny.count, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(tiny[0] == 7)
    }

    @Test func aStoredBusinessErrorIsServedAsThatError() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        let path = resource(key, "max_age=3600&code=7")
        let first = client.sync(try request(path, NC_CACHE_ELSE_NETWORK))
        #expect(first.error?.domain == NC_DOMAIN_API && first.error?.code == 7, "\(first)")
        let second = client.sync(try request(path, NC_CACHE_ELSE_NETWORK))
        #expect(second.rc == NC_ERR_FAILED)
        #expect(second.error?.domain == NC_DOMAIN_API && second.error?.code == 7, "\(second)")
        #expect(second.response?.fromCache == 1)
        #expect(cacheCount(key).requests == 1)
    }

    @Test(arguments: ["async", "sync", "queue"])
    func cacheThenNetworkDeliversTheStoredCopyFirstThenTheFreshOne(path mode: String) throws {
        let key = uniqueKey()
        let client = try cacheClient("{}", mode == "queue" ? #""callbacks":"queue""# : #""compression":true"#)
        defer { client.free() }
        let path = resource(key, "max_age=0&etag=1")
        // Nothing stored: no cached copy, one completion.
        let order0 = CacheOrder()
        try sendThenNetwork(client, path, order0, mode)
        #expect(order0.log.map(\.kind) == ["final"])
        // Stored: the copy, then the 304's answer (stored body, not modified).
        let order = CacheOrder()
        try sendThenNetwork(client, path, order, mode)
        let log = order.log
        #expect(log.map(\.kind) == ["cached", "final"], "\(log)")
        #expect(log.first?.fromCache == 1 && log.first?.n == 1)
        #expect(log.last?.fromCache == 1 && log.last?.notModified == 1 && log.last?.n == 1)
        // Changed on the server: the copy, then the new answer.
        _ = try fetch("{}", MockServer.shared.url("/cache/bump?key=\(key)"))
        let order2 = CacheOrder()
        try sendThenNetwork(client, path, order2, mode)
        #expect(order2.log.map(\.kind) == ["cached", "final"])
        #expect(order2.log.last?.fromCache == 0 && order2.log.last?.notModified == 0 && order2.log.last?.n == 3)
        #expect(cacheCount(key).conditional == 2)
    }

    private func sendThenNetwork(_ client: TestClient, _ path: String, _ order: CacheOrder, _ mode: String) throws {
        let r = try request(path, NC_CACHE_THEN_NETWORK)
        #expect(nc_request_set_cached_callback(r.handle, cachedFn, order.userdata) == NC_OK)
        switch mode {
        case "sync":
            var resp: OpaquePointer?
            var err: OpaquePointer?
            _ = nc_client_send_sync(client.handle, r.handle, &resp, &err)
            order.add("final", resp, err)
            nc_response_free(resp)
            nc_error_free(err)
        case "queue":
            #expect(nc_client_send(client.handle, r.handle, finalFn, order.userdata, nil) == NC_OK)
            let ok = waitUntil {
                _ = nc_client_dispatch(client.handle)
                return order.log.contains { $0.kind == "final" }
            }
            #expect(ok)
        default:
            #expect(nc_client_send(client.handle, r.handle, finalFn, order.userdata, nil) == NC_OK)
            #expect(waitUntil { order.log.contains { $0.kind == "final" } })
        }
    }

    @Test func networkElseCacheAnswersFromTheCacheWhenOfflineOrOnATransportFailure() throws {
        let key = uniqueKey()
        let client = try cacheClient("{}", #""reachability":{"mode":"online"}"#)
        defer { client.free() }
        let path = resource(key, "max_age=0")
        let first = client.sync(try request(path, NC_CACHE_NETWORK_ELSE_CACHE))
        #expect(first.succeeded && first.response?.fromCache == 0)
        // Forced offline: the stored answer at once, nothing sent.
        #expect(nc_client_set_reachability(client.handle, NC_REACH_OFFLINE) == NC_OK)
        let offline = client.sync(try request(path, NC_CACHE_NETWORK_ELSE_CACHE))
        #expect(offline.succeeded && offline.response?.fromCache == 1 && n(offline) == 1, "\(offline)")
        // NETWORK_ONLY still fails offline.
        let networkOnly = client.sync(try request(path, NC_CACHE_NETWORK_ONLY))
        #expect(networkOnly.error?.isClient(NC_CLIENT_UNREACHABLE) == true)
        #expect(cacheCount(key).requests == 1)
        // Online again, but the server drops the connection: the stored answer.
        #expect(nc_client_set_reachability(client.handle, NC_REACH_ONLINE) == NC_OK)
        _ = try fetch("{}", MockServer.shared.url("/cache/break?key=\(key)&on=1"))
        let broken = client.sync(try request(path, NC_CACHE_NETWORK_ELSE_CACHE))
        #expect(broken.succeeded && broken.response?.fromCache == 1, "\(broken)")
        let plain = client.sync(try request(path, NC_CACHE_NETWORK_ONLY))
        #expect(plain.error?.domain == NC_DOMAIN_TRANSPORT, "\(plain)")
        _ = try fetch("{}", MockServer.shared.url("/cache/break?key=\(key)&on=0"))
    }

    @Test func mustRevalidateIsNotServedStaleOffline() throws {
        let key = uniqueKey()
        let client = try cacheClient("{}", #""reachability":{"mode":"online"}"#)
        defer { client.free() }
        let path = resource(key, "max_age=0&cc=must-revalidate")
        #expect(client.sync(try request(path, NC_CACHE_NETWORK_ELSE_CACHE)).succeeded)
        #expect(nc_client_set_reachability(client.handle, NC_REACH_OFFLINE) == NC_OK)
        let o = client.sync(try request(path, NC_CACHE_NETWORK_ELSE_CACHE))
        #expect(o.error?.isClient(NC_CLIENT_UNREACHABLE) == true, "\(o)")
    }

    @Test func aDiskCacheSurvivesANewClientAndACorruptFileIsAMissThatIsRemoved() throws {
        let dir = TempDir()
        let key = uniqueKey(), other = uniqueKey()
        let cache = #"{"dir":"\#(dir.path)"}"#
        do {
            let client = try cacheClient(cache)
            defer { client.free() }
            #expect(client.sync(try request(resource(key), NC_CACHE_ELSE_NETWORK)).succeeded)
            #expect(client.sync(try request(resource(other), NC_CACHE_ELSE_NETWORK)).succeeded)
        }
        #expect(dir.files.count == 2)
        let restarted = try cacheClient(cache)
        defer { restarted.free() }
        let o = restarted.sync(try request(resource(key), NC_CACHE_ONLY))
        #expect(o.succeeded && o.response?.fromCache == 1 && n(o) == 1, "\(o)")
        #expect(cacheCount(key).requests == 1)
        // Corrupt every file (one byte of each body flipped), then read with a new client.
        for f in dir.files {
            let path = dir.path + "/" + f
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[bytes.count - 3] ^= 0x55
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        let third = try cacheClient(cache)
        defer { third.free() }
        let corrupt = third.sync(try request(resource(other), NC_CACHE_ONLY))
        #expect(corrupt.error?.isClient(NC_CLIENT_NOT_CACHED) == true, "\(corrupt)")
        #expect(dir.files.count == 1)   // `other`'s file is gone; `key`'s not read yet
        // A truncated file too.
        let last = dir.path + "/" + (dir.files.first ?? "")
        truncate(last, 10)
        #expect(third.sync(try request(resource(key), NC_CACHE_ONLY)).error != nil)
        #expect(dir.files.isEmpty)
    }

    @Test func diskIsBoundedByDiskBytes() throws {
        let dir = TempDir()
        let client = try cacheClient(#"{"dir":"\#(dir.path)","memory_bytes":0,"disk_bytes":6000}"#)
        defer { client.free() }
        for _ in 0..<8 {
            #expect(client.sync(try request(resource(uniqueKey(), "max_age=3600&size=1000"), 1)).succeeded)
        }
        let total = dir.files.reduce(0) { sum, f in
            sum + ((try? FileManager.default.attributesOfItem(atPath: dir.path + "/" + f)[.size] as? Int) ?? 0)
        }
        #expect(total <= 6000 && dir.files.count >= 2, "\(total) bytes in \(dir.files.count) files")
    }

    @Test func clearAndRemoveByPrefix() throws {
        let dir = TempDir()
        let a = uniqueKey(), b = uniqueKey()
        let client = try cacheClient(#"{"dir":"\#(dir.path)"}"#)
        defer { client.free() }
        #expect(client.sync(try request(resource(a), 1)).succeeded)
        #expect(client.sync(try request(resource(b), 1)).succeeded)
        let prefix = MockServer.shared.url("/cache/resource?key=\(a)")
        #expect(nc_client_cache_remove(client.handle, prefix) == NC_OK)
        #expect(client.sync(try request(resource(a), NC_CACHE_ONLY)).error?.isClient(NC_CLIENT_NOT_CACHED) == true)
        #expect(client.sync(try request(resource(b), NC_CACHE_ONLY)).succeeded)
        #expect(dir.files.count == 1)
        #expect(nc_client_cache_clear(client.handle) == NC_OK)
        #expect(client.sync(try request(resource(b), NC_CACHE_ONLY)).error?.isClient(NC_CLIENT_NOT_CACHED) == true)
        #expect(dir.files.isEmpty)
        #expect(stats(client)["entries"] == 0)
    }

    @Test func cacheHitEventsAndFromCacheInRequestEnd() throws {
        let key = uniqueKey()
        let client = try cacheClient()
        defer { client.free() }
        let log = EventLog()
        keptLogs.withLock { $0.append(log) }
        #expect(nc_client_set_event_handler(client.handle, eventLogFn, log.userdata) == NC_OK)
        #expect(client.sync(try request(resource(key), 1)).succeeded)
        #expect(log.of("cache_hit").isEmpty)
        #expect(client.sync(try request(resource(key), 1)).succeeded)
        #expect(log.waitFor("request_end", count: 2))
        let hits = log.of("cache_hit")
        #expect(hits.count == 1 && hits.first?["from_cache"] as? Bool == true, "\(log.events)")
        // The counters ride on the event: the hit is counted once it is served.
        let counters = hits.first?["cache"] as? [String: Any]
        #expect(counters?["stores"] as? Int == 1 && counters?["misses"] as? Int == 1, "\(String(describing: counters))")
        #expect((counters?["bytes"] as? Int ?? 0) > 0)
        #expect(log.of("request_end").last?["from_cache"] as? Bool == true)
        #expect(log.kinds.suffix(3) == ["request_start", "cache_hit", "request_end"], "\(log.kinds)")
    }

    @Test func endpointCachePolicyTakesEffect() throws {
        let key = uniqueKey()
        let client = try cacheClient(
            "{}", #""endpoints":{"res":{"path":"/cache/resource","cache":"cache_else_network"}}"#)
        defer { client.free() }
        for _ in 0..<2 {
            let r = try Request(endpoint: "res")
            r.params(#"{"key":"\#(key)","max_age":"3600"}"#)
            #expect(client.sync(r).succeeded)
        }
        #expect(cacheCount(key).requests == 1)
        // An unknown policy name is refused when the endpoint is defined.
        #expect(nc_client_define_endpoint(client.handle, "bad", #"{"path":"/x","cache":"sometimes"}"#) != NC_OK)
    }

    @Test func badArgumentsChangeNothing() throws {
        let r = try Request("GET", "/x")
        #expect(nc_request_set_cache_policy(r.handle, 5) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_cache_policy(r.handle, -1) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_cache_policy(nil, 1) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_cached_callback(nil, cachedFn, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_response_not_modified(nil) == 0)
        #expect(nc_client_cache_clear(nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_cache_remove(nil, "x") == NC_ERR_INVALID_ARGUMENT)
        let client = try cacheClient()
        defer { client.free() }
        #expect(nc_client_cache_remove(client.handle, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_client_cache_remove(client.handle, "") == NC_ERR_INVALID_ARGUMENT)
        var small = [CChar](repeating: 7, count: 8)
        var n = -1
        #expect(nc_client_cache_stats_json(client.handle, &small, small.count, &n) == NC_ERR_INVALID_ARGUMENT)
        #expect(n == -1 && small[0] == 7)
        let plain = try TestClient(config())
        defer { plain.free() }
        var buf = [CChar](repeating: 0, count: Int(NC_CACHE_STATS_FULL_MAX))
        #expect(nc_client_cache_stats_json(plain.handle, &buf, buf.count, nil) == NC_ERR_INVALID_STATE)
        #expect(nc_client_cache_clear(plain.handle) == NC_OK)
        // Config: wrong types and unknown keys are refused naming the key.
        for (json, needle) in [
            (#"{"cache":{"memory_bytes":"1"}}"#, "cache.memory_bytes"), (#"{"cache":{"ttl":1}}"#, "cache.ttl"),
            (#"{"cache":{"dir":""}}"#, "cache.dir"), (#"{"cache":{"private":1}}"#, "cache.private"),
            (#"{"cache":{"shared":"yes"}}"#, "cache.shared"), (#"{"cache":{"partition":""}}"#, "cache.partition"),
            (#"{"cache":{"partition":7}}"#, "cache.partition"),
            (#"{"cache":{"private":true,"shared":true}}"#, "cache.private"),
            (#"{"cache":{"shared":true,"partition":"a"}}"#, "cache.partition"),
            (#"{"cache":{"dir":"/proc/nonexistent/x"}}"#, "cache.dir"), (#"{"cache":3}"#, "cache")
        ] {
            var c: OpaquePointer?
            var e: OpaquePointer?
            #expect(nc_client_new(json, &c, &e) != NC_OK, "\(json)")
            #expect(
                string(nc_error_message(e))?.contains(needle) == true, "\(json): \(string(nc_error_message(e)) ?? "")")
            nc_error_free(e)
            nc_client_free(c)
        }
    }
}
