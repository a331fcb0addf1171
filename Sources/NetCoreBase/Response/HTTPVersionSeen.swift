import CCurlShim

/// The HTTP version a response came in, as libcurl negotiated it
/// (CURLINFO_HTTP_VERSION): what `nc_response_http_version()`, Python's
/// `r.http_version` and Swift's `Response.httpVersion` say, in httpx's spelling.
public enum HTTPVersionSeen: UInt8, Sendable {
    case http1_0 = 10
    case http1_1 = 11
    case http2 = 20
    case http3 = 30

    /// nil for libcurl's 0 (none) or a version this library does not know.
    init?(curl: Int) {
        switch curl {
        case CURL_HTTP_VERSION_1_0: self = .http1_0
        case CURL_HTTP_VERSION_1_1: self = .http1_1
        case CURL_HTTP_VERSION_2_0: self = .http2
        case CURL_HTTP_VERSION_3: self = .http3
        default: return nil
        }
    }

    /// "HTTP/1.0", "HTTP/1.1", "HTTP/2" or "HTTP/3", a static C string.
    public var cString: UnsafePointer<CChar> {
        switch self {
        case .http1_0: return HTTPVersionSeen.texts.0
        case .http1_1: return HTTPVersionSeen.texts.1
        case .http2: return HTTPVersionSeen.texts.2
        case .http3: return HTTPVersionSeen.texts.3
        }
    }

    /// The same text as a Swift string.
    public var text: String { String(cString: cString) }

    /// Made once, never freed: the C API hands them out as static strings.
    nonisolated(unsafe) private static let texts = (
        staticCString("HTTP/1.0"), staticCString("HTTP/1.1"), staticCString("HTTP/2"), staticCString("HTTP/3")
    )
}

private func staticCString(_ s: String) -> UnsafePointer<CChar> {
    let bytes = Array(s.utf8CString)
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    p.initialize(from: bytes, count: bytes.count)
    return UnsafePointer(p)
}

extension Response {
    /// The HTTP version the answer came in ("HTTP/1.1", "HTTP/2", …); nil when it
    /// came from the cache without a network exchange.
    public var httpVersion: HTTPVersionSeen? { completionInfo.httpVersion }
}
