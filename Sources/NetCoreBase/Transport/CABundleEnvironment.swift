#if canImport(Glibc)
import Glibc
#endif

/// The CA bundle the process environment names, read once when the client is
/// created, as the proxy variables are (ProxyEnvironment.swift): `CURL_CA_BUNDLE`
/// (the curl tool's variable, which requests honours too), else `SSL_CERT_FILE`
/// (OpenSSL's, which httpx, Go and Node honour). An empty variable counts as unset.
///
/// It is trusted only when the configuration's "tls" names no `ca_file` and no
/// `ca_path` (the configuration wins; an endpoint's own `tls.ca_file` too), and
/// then in place of the system store, as a configured `ca_file` is: it narrows
/// trust to the bundle named, never adds to it. The file is not checked when the
/// client is made (an HTTP-only client is not refused for it): an https request
/// whose bundle cannot be read fails with TRANSPORT 77, whose advice names these
/// variables (docs/tls.md). Changing the environment later does not affect a
/// client already made.
struct CABundleEnvironment: Sendable, Equatable {
    /// The variable the path came from ("CURL_CA_BUNDLE" or "SSL_CERT_FILE").
    let variable: String
    /// The CA bundle file (CURLOPT_CAINFO).
    let path: String

    /// The variables in the order they are looked up.
    static let variables = ["CURL_CA_BUNDLE", "SSL_CERT_FILE"]

    /// The first variable set, nil when none is. `lookup` returns a variable's
    /// value (nil when unset); the default reads the process environment.
    static func read(lookup: (String) -> String? = ProxyEnvironment.variable) -> CABundleEnvironment? {
        for name in variables {
            if let value = lookup(name), !value.isEmpty { return CABundleEnvironment(variable: name, path: value) }
        }
        return nil
    }
}
