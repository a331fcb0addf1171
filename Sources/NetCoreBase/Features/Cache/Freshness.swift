import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// What a response's headers say about caching it (RFC 9111, the parts a private
/// client cache needs): whether it may be stored, for how long it is fresh, and its
/// validators. Read in one pass over the header lines, comparing only names that
/// can matter (a response with ten headers costs ten first-letter checks).
struct Freshness {
    /// Cache-Control directives.
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var isPrivate = false
    /// `public` and `s-maxage` (RFC 9111 §5.2.2.9–10): with `must-revalidate`,
    /// what lets a shared cache store an answer to a credentialed request.
    var isPublic = false
    var sMaxAge: Int64? = nil
    var maxAge: Int64? = nil
    /// Age, in seconds.
    var age: Int64 = 0
    /// Expires and Date (Unix seconds; an unreadable Expires: 0, already expired),
    /// in any of HTTP-date's three forms (HTTPDate).
    var expires: Int64? = nil
    var date: Int64? = nil
    /// Validators, sent back as If-None-Match / If-Modified-Since. Only whether
    /// they are there: the entry keeps the header lines, where they are read when
    /// a revalidation needs them (CacheEntry.conditionalHeaders).
    var hasETag = false
    var hasLastModified = false
    /// Lower-cased header names `Vary` lists; `varyAll` for "*" (never stored).
    var vary: [String] = []
    var varyAll = false

    init(_ headers: HeaderStore) {
        headers.forEachLine { name, value in
            guard let first = name.first, let base = name.baseAddress else { return }
            func named(_ w: StaticString) -> Bool {
                name.count == w.utf8CodeUnitCount
                    && ncascii_equal_n(
                        UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                        UnsafeRawPointer(w.utf8Start).assumingMemoryBound(to: CChar.self), name.count) != 0
            }
            switch first | 0x20 {
            case UInt8(ascii: "c"):
                if named("cache-control") { readCacheControl(value) }
            case UInt8(ascii: "e"):
                if named("etag") {
                    hasETag = true
                } else if named("expires") {
                    expires = HTTPDate.seconds(value) ?? 0
                }
            case UInt8(ascii: "d"):
                if named("date") { date = HTTPDate.seconds(value) }
            case UInt8(ascii: "a"):
                if named("age") { age = Freshness.seconds(value[...]) ?? 0 }
            case UInt8(ascii: "l"):
                if named("last-modified") { hasLastModified = true }
            case UInt8(ascii: "v"):
                if named("vary") { readVary(String(decoding: value, as: UTF8.self)) }
            default:
                break
            }
        }
    }

    /// The directives of one Cache-Control value, read in place (no strings made).
    private mutating func readCacheControl(_ value: UnsafeBufferPointer<UInt8>) {
        var i = 0
        let n = value.count
        while i < n {
            while i < n && (value[i] == 0x20 || value[i] == 0x09 || value[i] == 0x2C) { i += 1 }
            let start = i
            while i < n && value[i] != 0x2C { i += 1 }
            var end = i
            while end > start && (value[end - 1] == 0x20 || value[end - 1] == 0x09) { end -= 1 }
            let item = UnsafeBufferPointer(rebasing: value[start..<end])
            func word(_ w: StaticString, exact: Bool) -> Bool {
                let k = w.utf8CodeUnitCount
                guard exact ? item.count == k : item.count >= k else { return false }
                for j in 0..<k where item[j] | 0x20 != w.utf8Start[j] | 0x20 { return false }
                return true
            }
            if word("no-store", exact: true) {
                noStore = true
            } else if word("no-cache", exact: false) {
                noCache = true
            } else if word("must-revalidate", exact: true) || word("proxy-revalidate", exact: true) {
                mustRevalidate = true
            } else if word("private", exact: false) {
                isPrivate = true
            } else if word("public", exact: true) {
                isPublic = true
            } else if word("s-maxage=", exact: false) {
                var digits = item[9...]
                if digits.first == 0x22 { digits = digits.dropFirst() }
                sMaxAge = Freshness.seconds(digits) ?? 0
            } else if word("max-age=", exact: false) {
                var digits = item[8...]
                if digits.first == 0x22 { digits = digits.dropFirst() }   // a quoted value
                // Unreadable: stale at once (RFC 9111 §4.2.1).
                maxAge = Freshness.seconds(digits) ?? 0
            }
        }
    }

    /// Leading decimal seconds of `bytes`, capped; nil without digits.
    static func seconds(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        var v: Int64 = 0
        var digits = 0
        for b in bytes {
            guard b >= 0x30 && b <= 0x39 else { break }
            v = min(v &* 10 &+ Int64(b - 0x30), Int64(Int32.max))
            digits += 1
        }
        return digits > 0 ? v : nil
    }

    private mutating func readVary(_ text: String) {
        for part in text.split(separator: ",") {
            let name = part.trimmingASCIISpaces().lowercased()
            if name == "*" { varyAll = true }
            if !name.isEmpty, !vary.contains(name) { vary.append(name) }
        }
    }

    /// Why an answer with these headers may not be stored at all, if it may not
    /// (`shared`: the cache applies shared-cache rules, "cache.shared"); nil: it may.
    /// Whether the request carried credentials is the caller's to add.
    func refusal(shared: Bool) -> CacheStats.SkipReason? {
        if noStore { return .noStore }
        if varyAll { return .varyStar }
        if shared && isPrivate { return .sharedPrivate }
        return nil
    }

    /// A shared cache may store this answer to a request that carried credentials
    /// (RFC 9111 §3.5): it says `public`, `s-maxage` or `must-revalidate`.
    var sharedMayStoreCredentialed: Bool { isPublic || sMaxAge != nil || mustRevalidate }

    /// Until when (Unix ms) an answer received at `nowMs` is fresh: max-age (less
    /// Age; a shared cache takes s-maxage first), else Expires − Date, else not at
    /// all (no heuristic freshness: an answer without either is stored for
    /// revalidation and offline use only). no-cache: never fresh.
    func freshUntil(nowMs: Int64, shared: Bool = false) -> Int64 {
        if noCache { return nowMs }
        var lifetime: Int64 = 0
        if shared, let sMaxAge {
            lifetime = sMaxAge &- age
        } else if let maxAge {
            lifetime = maxAge &- age
        } else if let expires {
            lifetime = expires &- (date ?? nowMs / 1000)
        }
        guard lifetime > 0 else { return nowMs }
        return nowMs &+ min(lifetime, Int64(Int32.max)) &* 1000
    }
}

/// The wall clock in Unix milliseconds (stored answers outlive the process, so
/// freshness is measured on the wall clock, not the monotonic one).
func wallClockMs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) &* 1000 &+ Int64(ts.tv_nsec) / 1_000_000
}
