import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// Where a redirect leads, resolved with libcurl's URL parser. libnetcore follows
/// redirects itself (not CURLOPT_FOLLOWLOCATION) so that it can drop every
/// credential header, not only the two libcurl knows, when the origin changes.
struct Redirect {
    /// Statuses that carry a Location to follow.
    static func follows(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }

    let url: String
    let crossOrigin: Bool

    enum Failure: Error {
        case malformed(String)
        case scheme(String)
    }

    /// Resolves `location` (absolute or relative) against `current`.
    static func resolve(_ location: String, from current: UnsafePointer<CChar>) -> Result<Redirect, Failure> {
        guard let from = curl_url(), let to = curl_url() else { return .failure(.malformed(location)) }
        defer { curl_url_cleanup(from); curl_url_cleanup(to) }
        guard curl_url_set(from, CURLUPART_URL, current, 0) == CURLUE_OK,
            curl_url_set(to, CURLUPART_URL, current, 0) == CURLUE_OK,
            curl_url_set(to, CURLUPART_URL, location, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK,
            let resolved = part(to, CURLUPART_URL)
        else {
            return .failure(.malformed(location))
        }
        let scheme = part(to, CURLUPART_SCHEME)?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { return .failure(.scheme(scheme)) }
        func origin(_ u: OpaquePointer) -> [String?] {
            [
                part(u, CURLUPART_SCHEME)?.lowercased(), part(u, CURLUPART_HOST)?.lowercased(),
                part(u, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT))
            ]
        }
        return .success(Redirect(url: resolved, crossOrigin: origin(from) != origin(to)))
    }

    private static func part(_ u: OpaquePointer, _ what: CURLUPart, flags: UInt32 = 0) -> String? {
        var out: UnsafeMutablePointer<CChar>? = nil
        guard curl_url_get(u, what, &out, flags) == CURLUE_OK, let out else { return nil }
        defer { curl_free(out) }
        return String(cString: out)
    }
}
