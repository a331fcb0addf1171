import CCurlShim

/// The header lines every request gets unless its headers — the client's
/// (configuration "headers", `setHeader`) or its own — carry one of that name,
/// compared without regard to case: `User-Agent`, and `Accept-Encoding` when
/// "compression" is on. Both are worked out once per process from the libcurl
/// loaded (curl_version_info) and appended to a request's list as they are: a
/// request pays one curl_slist_append each, never a format. (libcurl's own
/// CURLOPT_USERAGENT and CURLOPT_ACCEPT_ENCODING lines are formatted with aprintf on
/// every transfer; a line in the header list suppresses them.)
enum DefaultHeaders {
    /// The libcurl loaded: its version text and CURL_VERSION_* feature bits.
    private static let curl: (version: String, features: Int32) = {
        var features: Int32 = 0
        let version = String(cString: ncshim_curl_version(&features))
        return (version, features)
    }()

    /// `netcore/<version> libcurl/<version>`, e.g. "netcore/0.3.0 libcurl/7.88.1".
    static let userAgent = "netcore/\(NetCoreVersion.string) libcurl/\(curl.version)"
    static let userAgentLine = CString("User-Agent: " + userAgent)

    /// Every content encoding this libcurl decodes, as Accept-Encoding lists them:
    /// "gzip, deflate" with zlib, then "br" with brotli and "zstd" with zstd (Debian
    /// 12's libcurl: all four). Nil when it decodes none (no line is sent then).
    static let acceptEncoding: String? = {
        var names: [String] = []
        if curl.features & CURL_VERSION_LIBZ != 0 { names += ["gzip", "deflate"] }
        if curl.features & CURL_VERSION_BROTLI != 0 { names.append("br") }
        if curl.features & CURL_VERSION_ZSTD != 0 { names.append("zstd") }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }()
    static let acceptEncodingLine: CString? = acceptEncoding.map { CString("Accept-Encoding: " + $0) }
}
