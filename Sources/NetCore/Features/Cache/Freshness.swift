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
    var maxAge: Int64? = nil
    /// Expires, Date (Unix seconds; Expires unreadable: already expired) and Age.
    var expires: Int64? = nil
    var date: Int64? = nil
    var age: Int64 = 0
    /// Validators, sent back as If-None-Match / If-Modified-Since.
    var etag: String? = nil
    var lastModified: String? = nil
    /// Lower-cased header names `Vary` lists; `varyAll` for "*" (never stored).
    var vary: [String] = []
    var varyAll = false

    init(_ headers: HeaderStore) {
        let n = headers.count
        var i = 0
        while i < n {
            defer { i += 1 }
            guard let (name, value) = headers.entry(i) else { continue }
            switch UInt8(bitPattern: name[0]) | 0x20 {
            case UInt8(ascii: "c"):
                if strcasecmp(name, "cache-control") == 0 { readCacheControl(String(cString: value)) }
            case UInt8(ascii: "e"):
                if strcasecmp(name, "etag") == 0 {
                    etag = String(cString: value)
                } else if strcasecmp(name, "expires") == 0 {
                    expires = Freshness.httpDate(value) ?? 0
                }
            case UInt8(ascii: "d"):
                if strcasecmp(name, "date") == 0 { date = Freshness.httpDate(value) }
            case UInt8(ascii: "a"):
                if strcasecmp(name, "age") == 0 { age = max(Int64(String(cString: value)) ?? 0, 0) }
            case UInt8(ascii: "l"):
                if strcasecmp(name, "last-modified") == 0 { lastModified = String(cString: value) }
            case UInt8(ascii: "v"):
                if strcasecmp(name, "vary") == 0 { readVary(String(cString: value)) }
            default:
                break
            }
        }
    }

    private mutating func readCacheControl(_ text: String) {
        for part in text.split(separator: ",") {
            let item = part.trimmingASCIISpaces().lowercased()
            if item == "no-store" {
                noStore = true
            } else if item.hasPrefix("no-cache") {
                noCache = true
            } else if item == "must-revalidate" || item == "proxy-revalidate" {
                mustRevalidate = true
            } else if item.hasPrefix("private") {
                isPrivate = true
            } else if item.hasPrefix("max-age=") {
                let digits = item.dropFirst(8).filter { $0 != "\"" }
                // Unreadable: stale at once (RFC 9111 §4.2.1).
                maxAge = max(Int64(digits) ?? 0, 0)
            }
        }
    }

    private mutating func readVary(_ text: String) {
        for part in text.split(separator: ",") {
            let name = part.trimmingASCIISpaces().lowercased()
            if name == "*" { varyAll = true }
            if !name.isEmpty, !vary.contains(name) { vary.append(name) }
        }
    }

    /// May an answer with these headers be stored at all (`privateCache`: the
    /// client's cache is declared private)?
    func storable(privateCache: Bool) -> Bool {
        !noStore && !varyAll && (privateCache || !isPrivate)
    }

    /// Until when (Unix ms) an answer received at `nowMs` is fresh: max-age (less
    /// Age), else Expires − Date, else not at all (no heuristic freshness: an answer
    /// without either is stored for revalidation and offline use only). no-cache:
    /// never fresh.
    func freshUntil(nowMs: Int64) -> Int64 {
        if noCache { return nowMs }
        var lifetime: Int64 = 0
        if let maxAge {
            lifetime = maxAge &- age
        } else if let expires {
            lifetime = expires &- (date ?? nowMs / 1000)
        }
        guard lifetime > 0 else { return nowMs }
        return nowMs &+ min(lifetime, Int64(Int32.max)) &* 1000
    }

    /// An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") as Unix seconds; nil if it
    /// is not one (the obsolete forms are not read: Expires then means expired).
    static func httpDate(_ text: UnsafePointer<CChar>) -> Int64? {
        httpDate(String(cString: text))
    }

    static func httpDate(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3]), (1970...9999).contains(year)
        else { return nil }
        let hms = parts[4].split(separator: ":")
        guard hms.count == 3, let h = Int(hms[0]), let m = Int(hms[1]), let sec = Int(hms[2]),
            (0...23).contains(h), (0...59).contains(m), (0...60).contains(sec)
        else { return nil }
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(month)
        t.tm_mday = Int32(day)
        t.tm_hour = Int32(h)
        t.tm_min = Int32(m)
        t.tm_sec = Int32(sec)
        return Int64(timegm(&t))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` as an IMF-fixdate (If-Modified-Since is sent as the server wrote
    /// Last-Modified; this is for tests and messages).
    static func httpDate(seconds: Int64) -> String {
        var t = tm()
        var s = time_t(seconds)
        gmtime_r(&s, &t)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &t)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingASCIISpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}

/// The wall clock in Unix milliseconds (stored answers outlive the process, so
/// freshness is measured on the wall clock, not the monotonic one).
func wallClockMs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) &* 1000 &+ Int64(ts.tv_nsec) / 1_000_000
}
