/// The cookie jar of a client made with "cookies": {"enabled": true}
/// (Features/Cookies/CookieJar.swift, docs/cookies.md). On a client without one,
/// `cookies` is empty and clearing or saving does nothing.
extension NetClient {
    /// Every unexpired cookie in the jar: at most 180 of one domain and 3,000 in all
    /// (the jar's bounds, enforced first). Cookies are credentials: show them to no log.
    public var cookies: [Cookie] { cookieJar?.cookies() ?? [] }

    /// Forgets every cookie; requests sent from now on carry none until a server
    /// sets one again. The file, if any, is rewritten at the next save or shutdown.
    public func clearCookies() { cookieJar?.clear() }

    /// Writes the jar to "cookies.file" now (atomically, mode 0600). Nothing
    /// without a file. Throws TRANSPORT 23 naming the file when it cannot be written.
    public func saveCookies() throws(NetError) { try cookieJar?.save() }
}
