import CCurlShim
import Synchronization

/// A libcurl share object easy handles attach to (ncshare.c: curl_share with lock
/// functions, since handles attached to one share run on several threads at once).
/// Every share holds TLS sessions and DNS answers; a client's cookie jar has a share
/// of its own that holds its cookie store besides.
///
/// - `CurlShare.process`: the one share of every client without a cookie jar. A
///   connection to a host any client of the process reached before resumes that TLS
///   session (an abbreviated handshake: no certificate sent or verified again) and
///   skips the name lookup while libcurl keeps the answer (60 s,
///   CURLOPT_DNS_CACHE_TIMEOUT's default). libcurl reuses a session only for the
///   same host, port and scheme and the same TLS settings (`Curl_ssl_config_matches`:
///   CA file and path, verification, pinned key, client certificate, versions,
///   ciphers), so a client never resumes a session another client's settings
///   would not have made. libcurl 7.88 keeps 8 sessions in a share (the least
///   recently used goes).
/// - a cookie jar's share (`CurlShare(cookies: true)`, CookieJar.swift): cookies stay
///   the client's own, and since an easy handle attaches to one share, so do its
///   sessions and DNS answers (shared by its transfer thread and synchronous sends).
///
/// What a share costs a request on a kept-alive connection: one lock and unlock of
/// its DNS mutex (libcurl prunes the DNS cache at the end of each transfer,
/// `Curl_hostcache_prune`; without a DNS share it walks the multi handle's cache
/// instead, unlocked). Sessions are looked up and stored only when a connection is made.
///
/// Lifetime: every EasyHandle attached holds the share strongly and is cleaned
/// up (curl_easy_cleanup, in its deinit) before it lets go, so curl_share_cleanup
/// in this deinit never finds a handle still attached. The process share is never
/// freed.
final class CurlShare: @unchecked Sendable {
    let raw: OpaquePointer
    /// Holds the cookie store (a cookie jar's share).
    let keepsCookies: Bool

    /// The share of every client without a cookie jar: nil only when libcurl could
    /// not make it (out of memory), and then nothing is shared.
    static let process: CurlShare? = {
        CurlGlobal.ensureInitialized()
        return CurlShare(cookies: false)
    }()

    init?(cookies: Bool) {
        guard let s = ncshare_new(cookies ? 1 : 0) else { return nil }
        raw = s
        keepsCookies = cookies
    }

    deinit { ncshare_free(raw) }

    /// What keeps the cookie store within its bounds (CookieJar.enforceBounds,
    /// installed once by the jar before any transfer runs): returns how many
    /// cookies it kept. Libcurl's store itself has no bound; a server that sets
    /// cookies of ever new names would grow it, and the time every request takes
    /// to pick the cookies it sends, for the life of the client.
    nonisolated(unsafe) var boundsCheck: (@Sendable () -> Int)?

    /// Set-Cookie lines received since the last check, and how many more start
    /// the next one: a quarter of what the jar kept then, at least 64, so the
    /// checks' reading of the whole store costs O(1) a line however large the jar
    /// (each cookie a check evicts costs libcurl one walk of the store besides).
    private let sinceCheck = Atomic<Int>(0)
    private let checkAfter = Atomic<Int>(64)

    /// Counts `n` Set-Cookie lines received (EasyHandle.reportSetCookies, at the end
    /// of each hop on its handle) and runs `boundsCheck` when enough have arrived.
    /// Called on the thread that drives the transfer, outside any libcurl call.
    func received(setCookies n: Int) {
        let seen = sinceCheck.add(n, ordering: .relaxed).newValue
        guard seen >= checkAfter.load(ordering: .relaxed), let check = boundsCheck else { return }
        sinceCheck.store(0, ordering: .relaxed)
        checkAfter.store(max(64, check() / 4), ordering: .relaxed)
    }

    /// Changes of the cookie store seen so far: Set-Cookie lines (counted by each
    /// handle's header callback as it is handed one, ncsink.c) and clears. Only
    /// grows; the response cache compares it before and after a request.
    var changes: UInt64 { UInt64(ncshare_changes(raw)) }

    /// Counts a change made without a response (the jar cleared).
    func noteChange() { ncshare_note_change(raw) }

    /// Attaches `easy` (at its creation, once): its TLS sessions and DNS answers are
    /// the share's; for a cookie jar's share its cookies too, and CURLOPT_COOKIEFILE ""
    /// turns libcurl's cookie engine on for it without a file (a file is loaded once
    /// for the whole client, CookieJar.swift).
    func attach(_ easy: UnsafeMutableRawPointer) {
        ncshare_attach(raw, easy)   // CURLOPT_SHARE, and sessions kept as copies (ncshare.c)
        if keepsCookies { _ = ncshim_easy_setopt_ptr(easy, CURLOPT_COOKIEFILE, CurlGlobal.empty) }
    }
}
