/// The client's proxy ("proxy", docs/configuration.md): a configured URL wins over
/// the environment's proxy variables (ProxyEnvironment.swift), which are only
/// read when `url` is nil.
public struct ProxyOptions: Sendable, Equatable {
    /// The proxy for every http and https request (`http://host:port`,
    /// `https://…`, `socks5h://…`, …; credentials as `http://user:pass@host:port`).
    /// "" = no proxy, whatever the environment says. Default nil: the environment's.
    public var url: String? = nil
    /// Hosts that go direct: comma-separated host names, domains, IP addresses or
    /// `*` (libcurl's CURLOPT_NOPROXY syntax). Replaces the environment's
    /// `no_proxy`. Default nil: the environment's, when the proxy comes from there.
    public var noProxy: String? = nil

    /// An explicit proxy (`url`, nil: the environment's) and the hosts that bypass it (`noProxy`).
    public init(url: String? = nil, noProxy: String? = nil) {
        self.url = url
        self.noProxy = noProxy
    }

    /// Schemes libcurl accepts for a proxy (CURLOPT_PROXY).
    static let schemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// Why `url` cannot be a proxy URL, or nil when it can ("" can: no proxy).
    static func problem(url: String) -> String? {
        if url.isEmpty { return nil }
        let ok =
            schemes.contains { url.lowercased().hasPrefix("\($0)://") && url.count > $0.count + 3 }
            && HTTPValidation.isURLText(url)
        return ok
            ? nil
            : "must be a proxy URL (\(schemes.map { "\($0)://" }.joined(separator: ", ")) followed by a host), "
                + "or \"\" for none; got \"\(url)\"."
    }

    /// Why `noProxy` cannot be a host list (it holds control characters), or nil.
    static func problem(noProxy: String) -> String? {
        noProxy.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            ? "must be a comma-separated host list without control characters." : nil
    }
}
