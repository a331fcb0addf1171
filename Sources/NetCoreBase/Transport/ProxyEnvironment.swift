#if canImport(Glibc)
import Glibc
#endif

/// The proxy settings of the process environment, read once when the client is
/// created (as Go's net/http does) rather than on every transfer.
///
/// libcurl, when no proxy option is set, looks the variables up for each transfer:
/// five `getenv` scans of the whole environment per request, more with a large
/// environment (bench/RESULTS.md, "Figures that justified code choices"). The client
/// reads them once and hands libcurl the outcome as CURLOPT_PROXY ("" meaning none)
/// and CURLOPT_NOPROXY, which libcurl parses and applies as it would the variables.
///
/// The variables and their precedence are libcurl's: `http_proxy` (lower case only:
/// `HTTP_PROXY` can be set by a web server's "Proxy:" request header in CGI) for
/// http URLs; `https_proxy`, then `HTTPS_PROXY`, for https; otherwise `all_proxy`,
/// then `ALL_PROXY`. Hosts matching `no_proxy` (else `NO_PROXY`) go direct. An empty
/// variable counts as unset. Changing the environment later does not affect a
/// client already made (README, "Proxies").
package struct ProxyEnvironment: Sendable {
    /// The proxy for http and for https URLs ("" for none).
    let http: CString
    let https: CString
    /// The no-proxy host list ("" for none).
    let noProxy: CString

    /// `lookup` returns a variable's value (nil when unset); the default reads the
    /// process environment.
    init(lookup: (String) -> String? = ProxyEnvironment.variable) {
        func first(_ names: String...) -> String? {
            for name in names {
                if let v = lookup(name), !v.isEmpty { return v }
            }
            return nil
        }
        let all = first("all_proxy", "ALL_PROXY")
        http = CString(first("http_proxy") ?? all ?? "")
        https = CString(first("https_proxy", "HTTPS_PROXY") ?? all ?? "")
        noProxy = CString(first("no_proxy", "NO_PROXY") ?? "")
    }

    /// The configured proxy ("proxy", ProxyOptions.swift) where it is set, the
    /// environment's otherwise: a configured `url` replaces every variable ("" =
    /// no proxy), and then only the configured `no_proxy` applies; a configured
    /// `no_proxy` alone replaces the environment's `no_proxy`.
    init(configured: ProxyOptions, lookup: (String) -> String? = ProxyEnvironment.variable) {
        if let url = configured.url {
            http = CString(url)
            https = http
            noProxy = CString(configured.noProxy ?? "")
            return
        }
        let environment = ProxyEnvironment(lookup: lookup)
        http = environment.http
        https = environment.https
        noProxy = configured.noProxy.map(CString.init) ?? environment.noProxy
    }

    static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The proxy for a URL of this scheme.
    func proxy(https isHTTPS: Bool) -> CString { isHTTPS ? https : http }
}
