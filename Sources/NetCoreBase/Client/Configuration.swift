/// A client's configuration, parsed from the JSON of nc_client_new() (see
/// docs/configuration.md). The defaults come from the table of keys
/// (ConfigurationKeys.swift); each is also written next to its value.
public struct Configuration: Sendable {
    /// Base URL used when no environment is selected. Default none (absolute URLs only).
    public var baseURL: String? = nil
    /// Named base URLs ("dev", "prod", …). Default none.
    public var environments: [String: String] = [:]
    /// The selected environment's name. Default none.
    public var environment: String? = nil
    /// Headers sent with every request (a request's own header wins). Default none;
    /// without a `User-Agent` here or on the request, `HeaderFields.defaultUserAgent`
    /// is sent.
    public var headers = HeaderFields()
    /// Extra header names treated as credentials: like Authorization, Cookie and
    /// Proxy-Authorization (always), dropped on a redirect to another origin. Default [].
    public var credentialHeaders: [String] = ConfigKey.credentialHeaders.defaultList
    /// Total time allowed per attempt (its redirects included), ms; 0 = no limit.
    /// Default 0: a download or stream that keeps moving is never cut off (as
    /// URLSession's resource timeout, requests and httpx); `idleTimeoutMs` catches a stall.
    public var timeoutMs: Int64 = ConfigKey.timeoutMs.defaultInteger
    /// Time allowed to connect, ms; 0 = libcurl's default (300 s). Default 10000.
    public var connectTimeoutMs: Int64 = ConfigKey.connectTimeoutMs.defaultInteger
    /// Longest stretch without a byte sent or received, ms — waiting for the first
    /// byte of the answer included; 0 = none. Default 15000 (URLSession's
    /// request timeout, OkHttp's read timeout). Measured by the library in
    /// milliseconds (Transport/IdleWatch.swift), not libcurl's low-speed check.
    public var idleTimeoutMs: Int64 = ConfigKey.idleTimeoutMs.defaultInteger
    /// Time for all the attempts of a request and the waits between them, ms from
    /// the start of its first attempt; 0 = none. Default 0.
    public var deadlineMs: Int64 = ConfigKey.deadlineMs.defaultInteger
    /// The retry policy ("retry", RetryPolicy.swift); nil = one attempt. Default nil.
    public var retry: RetryPolicy? = nil
    /// Ask for compressed responses — Accept-Encoding lists every encoding the
    /// libcurl loaded decodes: "gzip, deflate", then "br" and "zstd" when it is built
    /// with them — and decompress them. A request's own Accept-Encoding header wins.
    /// Default true.
    public var compression: Bool = ConfigKey.compression.defaultBoolean
    /// Identical GET/HEAD requests in flight at once share one transfer, each
    /// caller getting its own completion (NetClient+Coalescing.swift); off per
    /// request with `RequestFlags.noCoalesce`. Default true.
    public var coalesce: Bool = ConfigKey.coalesce.defaultBoolean
    /// Envelope schema; nil = raw mode. Default nil (key absent or null).
    public var envelope: EnvelopeSchema? = nil
    /// Response and redirect limits ("limits"); defaults in `Limits`.
    public var limits = Limits()
    /// Where completion callbacks run. Default `.loop`.
    public var callbacks: CallbackMode = .loop
    /// Named endpoints (discrete APIs) requests may name instead of a method and
    /// path; more are defined at run time with `NetClient.define(_:)`. Default none.
    public var endpoints = EndpointCatalog()
    /// Parameters added to every request ("common_params"; a request's own of the
    /// same name wins): a JSON object, nil for none. Default nil.
    public var commonParams: JSONValue? = nil
    /// HMAC-SHA256 request signing ("signing", Signing.swift); nil = off. Default nil.
    public var signing: Signing? = nil
    /// Texts for people by error key ("messages", Features/ErrorHandling/Messages.swift);
    /// nil = none. Default nil.
    public var messages: MessageTable? = nil
    /// Canned answers, recording and replay ("stubs", Features/Stubs); nil: none
    /// (the client's hops all go to libcurl).
    public var stubs: Stubs? = nil
    /// CAs to trust, public-key pins, client certificate, lowest TLS version
    /// ("tls", TLSOptions.swift). Default: the system CA store, no pins, TLS 1.2+.
    public var tls = TLSOptions()
    /// The proxy ("proxy"); a configured URL wins over the environment's variables.
    /// Default: the environment's (ProxyEnvironment.swift).
    public var proxy = ProxyOptions()
    /// The HTTP version asked for ("http_version"). Default `.http1_1`.
    public var httpVersion: HTTPVersion = .http1_1
    /// Fail fast when no route leaves the machine ("reachability", Features/Reachability/).
    public var reachability = Reachability()
    /// The bearer token and its refresh ("auth", TokenRefresher.swift).
    public var auth = Auth()
    /// The response cache ("cache", Features/Cache); nil, the default: none.
    public var cache: Cache? = nil
    /// The cookie jar ("cookies", Configuration+Cookies.swift). Default: off.
    public var cookies = Cookies()
    /// Log lines to standard error from the start ("log"). Default: none.
    public var log = Log()

    /// The "log" object: what the client writes to standard error from the moment it
    /// is made (LogHandler.standardError), until a log handler replaces it.
    public struct Log: Sendable {
        /// Lines of this level and more severe are written. Default `.off`: none.
        public var level = LogLevel(name: ConfigKey.logLevel.defaultText ?? "off") ?? .off
        /// Nothing written (`level` `.off`).
        public init() {}
    }

    /// The "limits" object: connections per host, response and header sizes, redirects.
    public struct Limits: Sendable {
        /// CURLMOPT_MAX_HOST_CONNECTIONS; 0 = unlimited. Default 8.
        public var maxConnectionsPerHost = Int(truncatingIfNeeded: ConfigKey.limitsMaxConnectionsPerHost.defaultInteger)
        /// Largest body accepted; larger ones fail with NC_CLIENT_RESPONSE_TOO_LARGE. Default 100 MiB.
        public var maxResponseBytes = Int(truncatingIfNeeded: ConfigKey.limitsMaxResponseBytes.defaultInteger)
        /// The values "limits.max_redirects", an endpoint's or a request's redirect
        /// limit may take (a request also takes -1: the client's). Stated once here.
        public static let maxRedirectsRange: ClosedRange<Int64> = 0...100
        /// Redirects followed before NC_DOMAIN_TRANSPORT 47. Default 10.
        public var maxRedirects = Int(truncatingIfNeeded: ConfigKey.limitsMaxRedirects.defaultInteger)
        /// Header lines accepted in one response. Default 100.
        public var maxHeaderCount = Int(truncatingIfNeeded: ConfigKey.limitsMaxHeaderCount.defaultInteger)
        /// Total header bytes accepted in one response. Default 65536.
        public var maxHeaderBytes = Int(truncatingIfNeeded: ConfigKey.limitsMaxHeaderBytes.defaultInteger)
        /// The defaults of this section, as documented beside each value.
        public init() {}
    }

    /// "reachability": whether requests check the network before each attempt.
    public struct Reachability: Sendable {
        /// AUTO (the kernel's routing table decides), or forced ONLINE / OFFLINE. Default `.auto`.
        public var mode = ReachabilityMode(name: ConfigKey.reachabilityMode.defaultText ?? "auto") ?? .auto
        /// How long an unreachable request waits for the network (or a change of
        /// mode) before it fails, ms; 0 = it fails at once. Default 0.
        public var waitForNetworkMs: Int64 = ConfigKey.reachabilityWaitForNetworkMs.defaultInteger
        /// The defaults of this section, as documented beside each value.
        public init() {}
    }

    /// "auth": the bearer token sent from the start, and how many token refreshes a
    /// minute are allowed (TokenRefresher.swift).
    public struct Auth: Sendable {
        /// Sent as `Authorization: Bearer …` from the start (as `NetClient.setToken`). Default nil.
        public var token: String? = nil
        /// Refreshes allowed a minute; past it an expiry is the answer. Default 3.
        public var maxRefreshesPerMinute: Int64 = ConfigKey.authMaxRefreshesPerMinute.defaultInteger
        /// The defaults of this section, as documented beside each value.
        public init() {}
    }

    /// "cache": the response cache's stores, and how answers to credentialed
    /// requests are kept apart (Features/Cache, docs/caching.md).
    public struct Cache: Sendable {
        /// Bound of the in-memory store (LRU), bytes; 0 = no memory store. Default 8 MiB.
        public var memoryBytes: Int64 = ConfigKey.cacheMemoryBytes.defaultInteger
        /// Directory of the on-disk store (created, mode 0700); nil = none. Default nil.
        public var dir: String? = nil
        /// Bound of the on-disk store, bytes. Default 100 MiB.
        public var diskBytes: Int64 = ConfigKey.cacheDiskBytes.defaultInteger
        /// Every answer goes to the partition of this name (non-empty), whatever
        /// credentials the request carries, so a token refresh keeps the entries
        /// (`NetClient.setCachePartition` changes it). nil, the default: an answer
        /// to a credentialed request goes to the partition of a SHA-256 of the
        /// credentials it was sent with. Not with `isShared`.
        public var partition: String? = nil
        /// Shared-cache rules (RFC 9111 §3.5): an answer to a credentialed request is
        /// stored only when it says `public`, `s-maxage` or `must-revalidate`, and
        /// then for every user; `Cache-Control: private` never. Default false: the
        /// cache of one app, partitioned by credentials.
        public var isShared: Bool = ConfigKey.cacheShared.defaultBoolean
        /// Deprecated since 0.4: `isPrivate` is `!isShared` (a private cache is now
        /// the default, partitioned by credentials).
        @available(*, deprecated, renamed: "isShared", message: "isPrivate is !isShared")
        public var isPrivate: Bool {
            get { !isShared }
            set { isShared = !newValue }
        }
        /// The defaults of this section, as documented beside each value.
        public init() {}
    }

    /// Where completions run ("callbacks"): on the transfer thread (`loop`) or in `dispatch()` (`queue`).
    public enum CallbackMode: String, Sendable, CaseIterable {
        /// On the client's transfer thread.
        case loop
        /// Queued; the caller runs them with `dispatch()` when `fd` is readable.
        case queue
    }

    /// The defaults of this section, as documented beside each value.
    public init() {}

    /// Lower-cased names of every credential header.
    var credentialHeaderNames: Set<String> {
        Set(["authorization", "cookie", "proxy-authorization"] + credentialHeaders.map { $0.lowercased() })
    }

    /// The base URL in force: the selected environment's, else `baseURL`.
    var activeBaseURL: String? {
        if let environment, let url = environments[environment] { return url }
        return baseURL
    }
}
