import CCurlShim
import Synchronization

/// A libcurl share object the easy handles of one client attach to (ncshare.c:
/// curl_share with lock functions, since the transfer thread and synchronous
/// sends' lanes use handles on different threads at once). What it shares is
/// libcurl's cookie store; it exists only for a client that keeps cookies, so a
/// client without one attaches nothing and pays nothing.
///
/// Lifetime: every EasyHandle attached holds the share strongly and is cleaned
/// up (curl_easy_cleanup, in its deinit) before it lets go, so curl_share_cleanup
/// in this deinit never finds a handle still attached.
final class CurlShare: @unchecked Sendable {
    let raw: OpaquePointer

    init?() {
        guard let s = ncshare_new_cookies() else { return nil }
        raw = s
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

    /// Attaches `easy` (at its creation, once): its cookies are the share's, and
    /// CURLOPT_COOKIEFILE "" turns libcurl's cookie engine on for it without a file
    /// (a file is loaded once for the whole client, CookieJar.swift).
    func attach(_ easy: UnsafeMutableRawPointer) {
        _ = ncshim_easy_setopt_ptr(easy, CURLOPT_SHARE, UnsafeRawPointer(ncshare_handle(raw)))
        _ = ncshim_easy_setopt_ptr(easy, CURLOPT_COOKIEFILE, CurlGlobal.empty)
    }
}
