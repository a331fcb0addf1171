/// How a request uses the client's response cache (docs/caching.md#policies). The raw values
/// are the C numbers (NC_CACHE_*); `name` is the endpoint spec's "cache" value.
///
/// Whatever the policy, a client with a cache stores every cacheable GET/HEAD
/// answer (Freshness.swift says which); the policy only decides whether the cache
/// is read, and when.
public enum CachePolicy: Int32, Sendable, CaseIterable {
    /// Never read the cache; requests are sent unconditionally. The default.
    case networkOnly = 0
    /// A fresh stored answer is served without a request; a stale one with a
    /// validator is revalidated (If-None-Match / If-Modified-Since; a 304 serves
    /// the stored body); otherwise the network.
    case cacheElseNetwork = 1
    /// The network first (conditional when an answer is stored); a transport
    /// failure, or the network unreachable, is answered from the cache.
    case networkElseCache = 2
    /// The stored answer (fresh or stale) goes to the request's cached callback
    /// first, then the network's answer to the completion (a 304: the stored body,
    /// `notModified`).
    case cacheThenNetwork = 3
    /// The cache alone: a miss completes with NC_CLIENT_NOT_CACHED, nothing sent.
    case cacheOnly = 4

    /// The name an endpoint spec gives ("cache": "cache_else_network").
    public var name: String {
        switch self {
        case .networkOnly: return "network_only"
        case .cacheElseNetwork: return "cache_else_network"
        case .networkElseCache: return "network_else_cache"
        case .cacheThenNetwork: return "cache_then_network"
        case .cacheOnly: return "cache_only"
        }
    }

    /// The policy named as in configuration and endpoints ("network_only", "cache_else_network", …); nil for an unknown name.
    public init?(name: String) {
        guard let found = CachePolicy.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }

    /// The names, for messages.
    static var names: String { allCases.map { "\"\($0.name)\"" }.joined(separator: ", ") }
}
