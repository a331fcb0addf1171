extension Configuration {
    /// "cookies": the client's cookie jar (Features/Cookies/CookieJar.swift,
    /// docs/cookies.md). Off by default: cookies are credentials, and a client that
    /// did not ask for them sends none back and keeps none.
    public struct Cookies: Sendable, Equatable {
        /// Keep the cookies servers set and send them back per their domain, path
        /// and Secure rules (libcurl's cookie engine). Default false.
        public var enabled: Bool = ConfigKey.cookiesEnabled.defaultBoolean
        /// A Netscape-format cookie file: loaded when the client is made (a missing
        /// file is an empty jar), written atomically (temp file + rename, mode 0600)
        /// when the client is freed and on a flush. Needs `enabled`. Default nil.
        public var file: String? = nil
        /// Cookies off (the default): no jar, no file.
        public init() {}

        /// Why these settings are refused, for the JSON form and for `validate()`;
        /// nil when they are fine. The file itself is checked when the client is made.
        var problem: (json: String, swift: String)? {
            if let file {
                if file.isEmpty || file.utf8.contains(0) {
                    return (
                        "Configuration key 'cookies.file' must be a non-empty path or null.",
                        "cookies.file must be a non-empty path or nil."
                    )
                }
                // A file without a jar would be silently ignored: refused instead.
                if !enabled {
                    return (
                        "Configuration key 'cookies.file' needs 'cookies.enabled': true.",
                        "cookies.file needs cookies.enabled = true."
                    )
                }
            }
            return nil
        }
    }
}
