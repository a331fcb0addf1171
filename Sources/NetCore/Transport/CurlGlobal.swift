import CCurlShim

/// Process-wide libcurl state: curl_global_init once, and the constant strings
/// every easy handle is given.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    static func ensureInitialized() { _ = initialized }

    private static let protocolsText = CString("http,https")
    private static let emptyText = CString("")
    static var protocols: UnsafePointer<CChar> { protocolsText.pointer }
    static var empty: UnsafePointer<CChar> { emptyText.pointer }
}
