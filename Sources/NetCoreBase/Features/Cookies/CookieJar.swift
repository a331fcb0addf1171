import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// A client's cookie jar: libcurl's cookie engine in a share object every easy
/// handle of the client attaches to (CurlShare.swift), so a cookie set by a
/// response on the transfer thread is sent by the next request from a
/// synchronous send's lane too. libcurl does the matching (domain, host-only,
/// path, Secure, expiry) when a request is sent and the parsing of Set-Cookie on
/// every response, redirect hops included (each hop is a transfer of its own).
///
/// Made only when "cookies": {"enabled": true}: a client without a jar has no
/// share, no control handle, and its handles set no cookie option.
///
/// The file ("cookies.file", Netscape format as libcurl reads and writes it):
/// - loaded once, when the client is made (CURLOPT_COOKIEFILE + COOKIELIST
///   "RELOAD" on the control handle); a missing file is an empty jar;
/// - written when the client is freed and on `save()` (nc_client_cookies_flush),
///   never during transfers: a crash loses what changed since the last save,
///   which an app that cares bounds by flushing after a login;
/// - written by us rather than by CURLOPT_COOKIEJAR so it is atomic and private:
///   a temporary file beside it, created 0600 (O_EXCL), written, fsync'd and
///   renamed over the old one — a reader sees the old jar or the new one, never
///   half of one, and no other user can read the credentials in it.
/// Session cookies (no Expires / Max-Age) are written too, as libcurl's own jar
/// does: an app's login session is usually one, and the file is the app's.
///
/// Bounds, as browsers keep them (RFC 6265 §6.1 asks for at least 50 cookies a
/// domain and 3,000 in all; Chrome and Firefox keep 180 a domain): libcurl's
/// store has none, so a server setting cookies of ever new names would grow it for
/// the life of the client, and every request's walk over it to pick what it
/// sends. `enforceBounds` evicts past `maxPerDomain` and `maxCookies`, the oldest
/// first; the share runs it as Set-Cookie lines arrive (CurlShare.received), and
/// loading the file, `cookies()` and `save()` run it too, so neither ever shows more.
final class CookieJar: @unchecked Sendable {
    let share: CurlShare
    let file: String?
    /// An easy handle that never transfers: the way to the share's cookies
    /// (CURLINFO_COOKIELIST, CURLOPT_COOKIELIST). Used under `lock` only.
    private let control: UnsafeMutableRawPointer
    private let lock = Lock()

    /// Makes the jar and loads `file` into it. Throws CLIENT invalidConfig naming
    /// "cookies.file" when the file exists but cannot be read, or its directory
    /// does not exist (it could never be written).
    init(file: String?) throws(NetError) {
        CurlGlobal.ensureInitialized()
        guard let share = CurlShare(cookies: true), let control = curl_easy_init() else {
            throw NetError.internalError("libcurl could not make the cookie jar (out of memory).")
        }
        self.share = share
        self.control = control
        self.file = file
        share.attach(control)
        share.boundsCheck = { [weak self] in self?.enforceBounds() ?? 0 }
        guard let file else { return }
        if let why = CookieJar.problem(file) {
            throw NetError.invalidConfig("Configuration key 'cookies.file' names '\(file)', which \(why).")
        }
        let path = CString(file)
        _ = ncshim_easy_setopt_ptr(control, CURLOPT_COOKIEFILE, path.pointer)
        _ = ncshim_easy_setopt_ptr(control, CURLOPT_COOKIELIST, CookieJar.reload.pointer)
        enforceBounds()   // a file may hold more than the bounds allow
    }

    /// Cookies kept for one domain, and in all (see the type's comment).
    static let maxPerDomain = 180
    static let maxCookies = 3000

    deinit {
        // Before the share goes (CurlShare's lifetime rule).
        curl_easy_cleanup(control)
    }

    private static let reload = CString("RELOAD")
    private static let all = CString("ALL")

    /// Why `file` cannot serve as the jar's file, or nil.
    static func problem(_ file: String) -> String? {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            var st = stat()
            let regular = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
            close(fd)
            return regular ? nil : "is not a regular file"
        }
        let err = errno
        guard err == ENOENT else { return "cannot be read: \(String(cString: strerror(err)))" }
        // Missing: fine (an empty jar), if it can be created later.
        let dir = file.lastIndex(of: "/").map { $0 == file.startIndex ? "/" : String(file[..<$0]) } ?? "."
        var st = stat()
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            return "is in a directory that does not exist ('\(dir)')"
        }
        return nil
    }

    /// Every cookie libcurl holds now, expired ones included, the bounds not
    /// enforced (the response cache's look at the jar, CachePartition.swift).
    func allCookies() -> [Cookie] { lines().compactMap(Cookie.init(netscapeBytes:)) }

    /// Every unexpired cookie, in libcurl's order, the bounds enforced first (in
    /// the same locked pass: what is listed is what was kept).
    func cookies() -> [Cookie] { keptLines().compactMap(Cookie.init(netscapeBytes:)) }

    /// Evicts the cookies past the bounds and returns how many unexpired ones the
    /// jar keeps (`keptLines`).
    @discardableResult
    func enforceBounds(perDomain: Int = CookieJar.maxPerDomain, total: Int = CookieJar.maxCookies) -> Int {
        keptLines(perDomain: perDomain, total: total).count
    }

    /// Evicts the cookies past the bounds and returns the Netscape lines of the
    /// unexpired ones kept, in libcurl's order, as libcurl's bytes: a line is never
    /// made UTF-8 on its way back to libcurl (an eviction) or to the file (a save),
    /// so a cookie whose name, value or domain is not UTF-8 keeps its bytes (its
    /// listing, `Cookie`, shows U+FFFD for them). "Oldest" is libcurl's order within
    /// a domain, first listed first: libcurl 7.88 lists a domain's cookies in the
    /// order they were first set (one set again keeps its place, as RFC 6265 §5.3
    /// keeps its creation time); libcurl 8.11 and later move a cookie set again to
    /// the end, so there the oldest is the one least recently set.
    /// - A domain holding more than `perDomain` loses its oldest.
    /// - Then, when more than `total` remain, the domains holding the most lose
    ///   their oldest down to one common share `s`: each keeps min(its count, s),
    ///   with `s` the largest that fits, and what room is left (less than one more
    ///   each for the domains above `s`) goes one cookie each to the domains holding
    ///   the most. A domain with fewer than `s` keeps all of its own, so one
    ///   server's flood does not evict another's session; with more than `total`
    ///   domains, some must keep none.
    /// A cookie is evicted by setting it again, same name, domain and path, with an
    /// expiry in the past: libcurl drops it at its next look at the store.
    func keptLines(perDomain: Int = CookieJar.maxPerDomain, total: Int = CookieJar.maxCookies) -> [[UInt8]] {
        lock.withLock {
            let now = Int64(time(nil))
            var live: [[UInt8]] = []
            var byDomain: [String: [Int]] = [:]   // indexes into `live`, oldest first
            for line in unlockedLines() {
                guard let c = Cookie(netscapeBytes: line), !c.isExpired(now: now) else { continue }
                byDomain[c.domain.lowercased(), default: []].append(live.count)
                live.append(line)
            }
            let quota = CookieJar.quotas(byDomain.mapValues(\.count), perDomain: perDomain, total: total)
            var evicted = Set<Int>()
            for (domain, indexes) in byDomain {
                let keep = quota[domain] ?? indexes.count
                for i in indexes.prefix(max(indexes.count - keep, 0)) { evicted.insert(i) }
            }
            guard !evicted.isEmpty else { return live }
            for i in evicted.sorted() { evict(live[i]) }
            return live.indices.filter { !evicted.contains($0) }.map { live[$0] }
        }
    }

    /// How many cookies each domain keeps, given how many it holds (see
    /// `keptLines`). Pure: tested on its own.
    static func quotas(_ counts: [String: Int], perDomain: Int, total: Int) -> [String: Int] {
        let capped = counts.mapValues { min($0, max(perDomain, 0)) }
        let limit = max(total, 0)
        func kept(_ share: Int) -> Int { capped.values.reduce(0) { $0 + min($1, share) } }
        guard kept(max(perDomain, 0)) > limit else { return capped }
        // The largest common share that fits (kept() only grows with it).
        var low = 0, high = max(perDomain, 0)
        while low < high {
            let mid = (low + high + 1) / 2
            if kept(mid) <= limit { low = mid } else { high = mid - 1 }
        }
        var quota = capped.mapValues { min($0, low) }
        // The room left, one more each to the domains holding the most (ties by
        // name, so the answer does not depend on a dictionary's order).
        var room = limit - kept(low)
        let above = capped.filter { $0.value > low }.sorted {
            $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
        }
        for (domain, _) in above where room > 0 {
            quota[domain, default: 0] += 1
            room -= 1
        }
        return quota
    }

    /// How many unexpired cookies the store holds now, bounds not enforced first
    /// (tests: what the share's checks alone keep).
    var storedCount: Int {
        let now = Int64(time(nil))
        return lines().lazy.compactMap(Cookie.init(netscapeBytes:)).filter { !$0.isExpired(now: now) }.count
    }

    /// Sets the cookie of Netscape `line` (libcurl's bytes) again, expired (under `lock`).
    private func evict(_ line: [UInt8]) {
        var fields = line.split(separator: 0x09, maxSplits: 6, omittingEmptySubsequences: false).map(Array.init)
        guard fields.count >= 6 else { return }
        fields[4] = Array("1".utf8)
        var expired = Array(fields.joined(separator: [0x09]))
        expired.append(0)
        _ = expired.withUnsafeBufferPointer { ncshim_easy_setopt_ptr(control, CURLOPT_COOKIELIST, $0.baseAddress) }
        share.noteChange()
    }

    /// libcurl's Netscape lines of every cookie in the jar, as its bytes.
    private func lines() -> [[UInt8]] { lock.withLock { unlockedLines() } }

    /// `lines()` for a caller that holds `lock`.
    private func unlockedLines() -> [[UInt8]] {
        do {
            var raw: UnsafeMutableRawPointer? = nil
            guard ncshim_easy_getinfo_ptr(control, CURLINFO_COOKIELIST, &raw) == CURLE_OK, let raw else { return [] }
            let list = raw.assumingMemoryBound(to: curl_slist.self)
            defer { curl_slist_free_all(list) }
            var out: [[UInt8]] = []
            var node: UnsafeMutablePointer<curl_slist>? = list
            while let n = node {
                if let data = n.pointee.data {
                    out.append(Array(UnsafeRawBufferPointer(start: data, count: strlen(data))))
                }
                node = n.pointee.next
            }
            return out
        }
    }

    /// Forgets every cookie (the file keeps its contents until the next save).
    func clear() {
        lock.withLock { _ = ncshim_easy_setopt_ptr(control, CURLOPT_COOKIELIST, CookieJar.all.pointer) }
        share.noteChange()
    }

    /// Writes the jar to its file (atomically, mode 0600); nothing without a file.
    /// Throws TRANSPORT 23 (CURLE_WRITE_ERROR, as an output file that cannot be
    /// written) naming the file and the system's reason.
    func save() throws(NetError) {
        guard let file else { return }
        var text = Array(
            "# Netscape HTTP Cookie File\n# Written by libnetcore \(NetCoreVersion.string). Do not edit while a client uses it.\n\n"
                .utf8)
        // The unexpired ones within the bounds (expired cookies are dropped, as
        // libcurl's own jar writer does), as libcurl's bytes.
        for line in keptLines() {
            text += line
            text.append(0x0A)
        }
        if let why = CookieJar.writeAtomically(text, to: file) {
            var e = NetError(
                domain: .transport, code: Int64(CURLE_WRITE_ERROR.rawValue),
                message:
                    "The cookie file '\(file)' could not be written: \(why). The previous file, if any, is unchanged.")
            e.attempts = 0
            throw e
        }
    }

    /// The last save, when the client shuts down: once (shutdown() and the client's
    /// deinit both call it; no request runs after the first), a failure ignored as
    /// there is no way to report it (nc_client_cookies_flush does).
    func saveAtClose() {
        let first: Bool = lock.withLock {
            defer { closed = true }
            return !closed
        }
        if first { try? save() }
    }
    /// saveAtClose() ran (guarded by `lock`).
    private var closed = false

    /// Temp file beside `path` (same filesystem, so rename is atomic), 0600, fsync'd,
    /// renamed over `path`. The reason on failure, with nothing left behind.
    static func writeAtomically(_ text: String, to path: String) -> String? {
        writeAtomically(Array(text.utf8), to: path)
    }

    static func writeAtomically(_ bytes: [UInt8], to path: String) -> String? {
        let temp = "\(path).tmp-\(getpid())-\(tempCounter.next())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        var failure: String? = nil
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < buffer.count {
                let n = write(fd, base + done, buffer.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                done += n
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        if close(fd) != 0 && failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil && rename(temp, path) != 0 { failure = String(cString: strerror(errno)) }
        if failure != nil { unlink(temp) }
        return failure
    }

    private static let tempCounter = Counter()

    /// Distinct temporary names for saves of several jars of one process at once.
    private final class Counter: @unchecked Sendable {
        private let lock = Lock()
        private var value = 0
        func next() -> Int {
            lock.withLock {
                value += 1; return value
            }
        }
    }
}
