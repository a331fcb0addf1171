import CCurlShim

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

    /// Attaches `easy` (at its creation, once): its cookies are the share's, and
    /// CURLOPT_COOKIEFILE "" turns libcurl's cookie engine on for it without a file
    /// (a file is loaded once for the whole client, CookieJar.swift).
    func attach(_ easy: UnsafeMutableRawPointer) {
        _ = ncshim_easy_setopt_ptr(easy, CURLOPT_SHARE, UnsafeRawPointer(ncshare_handle(raw)))
        _ = ncshim_easy_setopt_ptr(easy, CURLOPT_COOKIEFILE, CurlGlobal.empty)
    }
}
