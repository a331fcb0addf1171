import CCurlShim

/// Process-wide libcurl state: curl_global_init once (with memory functions that
/// note a failed allocation, ncalloc.h), and the constant strings every easy
/// handle is given.
enum CurlGlobal {
    private static let initialized: Bool = ncalloc_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    static func ensureInitialized() { _ = initialized }

    private static let protocolsText = CString("http,https")
    private static let emptyText = CString("")
    static var protocols: UnsafePointer<CChar> { protocolsText.pointer }
    static var empty: UnsafePointer<CChar> { emptyText.pointer }

    /// libcurl's built-in CA file and directory (CURLINFO_CAINFO / CURLINFO_CAPATH
    /// of a fresh handle: on Debian /etc/ssl/certs/ca-certificates.crt and
    /// /etc/ssl/certs), nil when it has none: what a handle is given back after a
    /// transfer that trusted only a configured CA (ConnectionSettings.swift).
    static let defaultCAFile: CString? = builtIn(CURLINFO_CAINFO)
    static let defaultCAPath: CString? = builtIn(CURLINFO_CAPATH)

    private static func builtIn(_ info: CURLINFO) -> CString? {
        ensureInitialized()
        guard let h = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(h) }
        var p: UnsafePointer<CChar>? = nil
        guard ncshim_easy_getinfo_str(h, info, &p) == CURLE_OK, let p else { return nil }
        return CString(String(cString: p))
    }
}
