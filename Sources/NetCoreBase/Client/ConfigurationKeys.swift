/// Every key of the JSON configuration (docs/configuration.md), with what it
/// accepts, its default and the `Configuration` property it sets: the one table
/// the parser (Configuration+Parsing.swift), `Configuration.validate()` and the
/// defaults of `Configuration`, `Configuration.Limits` and `EnvelopeSchema` read.
/// Tests/NetCoreTests/ConfigurationDocsTests.swift checks docs/configuration.md
/// against it both ways.
///
/// The raw value is the key's path: a key inside a section is "section.key".
/// Cases are in the order the reference lists them; "Known: …" messages use it.
enum ConfigKey: String, CaseIterable, Sendable {
    case baseURL = "base_url"
    case environments
    case environment
    case headers
    case credentialHeaders = "credential_headers"
    case compression
    case coalesce
    case timeoutMs = "timeout_ms"
    case connectTimeoutMs = "connect_timeout_ms"
    case idleTimeoutMs = "idle_timeout_ms"
    case deadlineMs = "deadline_ms"
    case envelope
    case limits
    case callbacks
    case retry, cache, endpoints
    case commonParams = "common_params"
    case signing
    case messages
    case stubs

    case envelopeCode = "envelope.code"
    case envelopeOkCodes = "envelope.ok_codes"
    case envelopeSuccess = "envelope.success"
    case envelopeStatus = "envelope.status"
    case envelopeOkStatus = "envelope.ok_status"
    case envelopeMessage = "envelope.message"
    case envelopeData = "envelope.data"
    case envelopeTraceID = "envelope.trace_id"
    case envelopeAuthExpiredCodes = "envelope.auth_expired_codes"

    case limitsMaxConnectionsPerHost = "limits.max_connections_per_host"
    case limitsMaxResponseBytes = "limits.max_response_bytes"
    case limitsMaxRedirects = "limits.max_redirects"
    case limitsMaxHeaderCount = "limits.max_header_count"
    case limitsMaxHeaderBytes = "limits.max_header_bytes"

    // TLS, proxy and HTTP version (TLSOptions.swift, ProxyOptions.swift, docs/tls.md).
    case tls, proxy
    case httpVersion = "http_version"
    case tlsCAFile = "tls.ca_file"
    case tlsCAPath = "tls.ca_path"
    case tlsClientCert = "tls.client_cert"
    case tlsClientKey = "tls.client_key"
    case tlsPinnedPublicKeys = "tls.pinned_public_keys"
    case tlsMinVersion = "tls.min_version"
    case proxyURL = "proxy.url"
    case proxyNoProxy = "proxy.no_proxy"
    // Reachability (Features/Reachability/).
    case reachability
    case reachabilityMode = "reachability.mode"
    case reachabilityWaitForNetworkMs = "reachability.wait_for_network_ms"
    // The token and its refresh (NetClient+Adapters.swift, Features/Auth/).
    case auth
    case authToken = "auth.token"
    case authMaxRefreshesPerMinute = "auth.max_refreshes_per_minute"
    // The response cache (Features/Cache/).
    case cacheMemoryBytes = "cache.memory_bytes"
    case cacheDir = "cache.dir"
    case cacheDiskBytes = "cache.disk_bytes"
    case cachePartition = "cache.partition"
    case cacheShared = "cache.shared"
    /// Deprecated (0.4): `"private": b` is `"shared": !b`.
    case cachePrivate = "cache.private"
    // The cookie jar (Features/Cookies/, docs/cookies.md).
    case cookies
    case cookiesEnabled = "cookies.enabled"
    case cookiesFile = "cookies.file"
    // Log lines to standard error from the start (Features/Events/Logging.swift).
    case log
    case logLevel = "log.level"

    /// The table.
    var spec: ConfigKeySpec {
        switch self {
        case .baseURL:
            return .init(.url, .none, "baseURL", "joined with request paths when no environment is selected")
        case .environments:
            return .init(.urlMap, .emptyMap, "environments", "named base URLs")
        case .environment:
            return .init(.name, .none, "environment", "the selected environment, a key of environments")
        case .headers:
            return .init(.headerMap, .emptyMap, "headers", "default headers of every request")
        case .credentialHeaders:
            return .init(
                .headerNames, .list([]), "credentialHeaders", "extra headers dropped on a redirect to another origin")
        case .compression:
            return .init(
                .boolean, .boolean(true), "compression", "ask for every encoding libcurl decodes and decompress")
        case .coalesce:
            return .init(
                .boolean, .boolean(true), "coalesce", "identical GET/HEAD requests in flight share one transfer")
        case .timeoutMs:
            return .init(
                .integer(0...Int64(Int32.max)), .integer(0), "timeoutMs",
                "total time per attempt (its redirects included), ms; 0 = no limit")
        case .connectTimeoutMs:
            return .init(
                .integer(0...Int64(Int32.max)), .integer(10_000), "connectTimeoutMs",
                "time to connect, ms; 0 = libcurl's default")
        case .idleTimeoutMs:
            return .init(
                .integer(0...Int64(Int32.max)), .integer(15_000), "idleTimeoutMs",
                "longest stretch without a byte sent or received (waiting for the answer included), ms; 0 = none")
        case .deadlineMs:
            return .init(
                .integer(0...Int64(Int32.max)), .integer(0), "deadlineMs",
                "time for all attempts of a request and the waits between them, ms; 0 = none")
        case .envelope:
            return .init(
                .section(optional: true), .none, "envelope", "how to read the business envelope; null = raw mode")
        case .limits:
            return .init(.section(optional: false), .section, "limits", "safety limits")
        case .callbacks:
            return .init(
                .choice(Configuration.CallbackMode.allCases.map(\.rawValue)), .text("loop"), "callbacks",
                "where completion callbacks run")
        case .retry:
            return .init(.object, .none, "retry", "retry policy (RetryPolicy.swift); absent = one attempt")
        case .cache:
            return .init(
                .section(optional: true), .none, "cache", "the response cache (memory, disk); absent or null = none")
        case .endpoints:
            return .init(.endpointMap, .emptyMap, "endpoints", "named endpoints: name → {method, path, encoding, …}")
        case .commonParams:
            return .init(.object, .none, "commonParams", "parameters added to every request (a JSON object)")
        case .messages:
            return .init(.object, .none, "messages", "texts for people by error key: {\"TRANSPORT.28\": …}")
        case .signing:
            return .init(.object, .none, "signing", "HMAC-SHA256 request signing: {secret, header, timestamp_header}")
        case .stubs:
            return .init(
                .object, .none, "stubs", "canned answers, recording and replay: {routes, dir, mode, record}")

        case .envelopeCode:
            return .init(.fieldName, .text("code"), "envelope.codeField", "field with the business code")
        case .envelopeOkCodes:
            return .init(
                .codes, .list(["0"]), "envelope.okCodes", "codes meaning success, as text; [] when success is set")
        case .envelopeSuccess:
            return .init(.fieldName, .none, "envelope.successField", "field that must be true")
        case .envelopeStatus:
            return .init(.fieldName, .none, "envelope.statusField", "field whose value must be in ok_status")
        case .envelopeOkStatus:
            return .init(.codes, .list([]), "envelope.okStatuses", "status values meaning success")
        case .envelopeMessage:
            return .init(.fieldName, .text("msg"), "envelope.messageField", "field with the message")
        case .envelopeData:
            return .init(
                .fieldName, .text("data"), "envelope.dataField", "field with the business data; \"\" = the whole body")
        case .envelopeTraceID:
            return .init(.fieldName, .text("traceId"), "envelope.traceIDField", "field with the trace id")
        case .envelopeAuthExpiredCodes:
            return .init(.codes, .list([]), "envelope.authExpiredCodes", "codes meaning the login expired")

        case .limitsMaxConnectionsPerHost:
            return .init(
                .integer(0...100_000), .integer(8), "limits.maxConnectionsPerHost", "connections per host; 0 = no limit"
            )
        case .limitsMaxResponseBytes:
            return .init(
                .integer(1...Int64.max), .integer(104_857_600), "limits.maxResponseBytes", "largest body accepted")
        case .limitsMaxRedirects:
            return .init(
                .integer(Configuration.Limits.maxRedirectsRange), .integer(10), "limits.maxRedirects",
                "redirects followed; 0 = none")
        case .limitsMaxHeaderCount:
            return .init(.integer(1...100_000), .integer(100), "limits.maxHeaderCount", "header lines in one response")
        case .limitsMaxHeaderBytes:
            return .init(
                .integer(256...(64 << 20)), .integer(65_536), "limits.maxHeaderBytes", "header bytes in one response")

        case .tls:
            return .init(.section(optional: false), .section, "tls", "trust anchors, pins, client certificate")
        case .proxy:
            return .init(.section(optional: false), .section, "proxy", "the proxy; wins over the environment's")
        case .httpVersion:
            return .init(
                .choice(Configuration.HTTPVersion.allCases.map(\.rawValue)),
                .text(Configuration.HTTPVersion.http1_1.rawValue), "httpVersion",
                "HTTP version asked for")
        case .tlsCAFile:
            return .init(.path, .none, "tls.caFile", "PEM file of the CAs to trust instead of the system store")
        case .tlsCAPath:
            return .init(.path, .none, "tls.caPath", "hashed directory of CAs to trust instead of the system store")
        case .tlsClientCert:
            return .init(.path, .none, "tls.clientCert", "PEM client certificate (and key, unless client_key)")
        case .tlsClientKey:
            return .init(.path, .none, "tls.clientKey", "PEM private key of client_cert")
        case .tlsPinnedPublicKeys:
            return .init(.pins, .list([]), "tls.pinnedPublicKeys", "\"sha256//…\" public-key pins")
        case .tlsMinVersion:
            return .init(
                .choice(TLSOptions.Version.allCases.map(\.rawValue)), .text(TLSOptions.Version.v1_2.rawValue),
                "tls.minVersion", "lowest TLS version")
        case .proxyURL:
            return .init(.proxyURL, .none, "proxy.url", "proxy for every request; \"\" = none")
        case .proxyNoProxy:
            return .init(.name, .none, "proxy.noProxy", "hosts that go direct")
        case .reachability:
            return .init(
                .section(optional: false), .section, "reachability", "fail fast when no route leaves the machine")
        case .reachabilityMode:
            return .init(
                .choice(ReachabilityMode.allCases.map(\.name)), .text("auto"), "reachability.mode",
                "auto: the routing table decides; online / offline: forced")
        case .reachabilityWaitForNetworkMs:
            return .init(
                .integer(0...Int64(Int32.max)), .integer(0), "reachability.waitForNetworkMs",
                "how long an unreachable request waits for the network, ms; 0 = fail at once")
        case .auth:
            return .init(.section(optional: false), .section, "auth", "the bearer token and its refresh")
        case .authToken:
            return .init(.name, .none, "auth.token", "bearer token sent from the start (as nc_client_set_token)")
        case .authMaxRefreshesPerMinute:
            return .init(
                .integer(0...1000), .integer(3), "auth.maxRefreshesPerMinute",
                "token refreshes allowed a minute; past it an expiry is the answer")
        case .cacheMemoryBytes:
            return .init(
                .integer(0...Int64.max), .integer(8_388_608), "cache.memoryBytes",
                "bound of the in-memory store, bytes; 0 = none")
        case .cacheDir:
            return .init(.name, .none, "cache.dir", "directory of the on-disk store; null = none")
        case .cacheDiskBytes:
            return .init(
                .integer(0...Int64.max), .integer(104_857_600), "cache.diskBytes", "bound of the on-disk store, bytes")
        case .cachePartition:
            return .init(
                .name, .none, "cache.partition",
                "a named partition for every answer (survives a token change); null = by the credentials sent")
        case .cacheShared:
            return .init(
                .boolean, .boolean(false), "cache.isShared",
                "shared-cache rules: no answer to a credentialed request unless public, nothing Cache-Control: private")
        case .cachePrivate:
            // No default of its own: absent, "shared" (or its default) decides.
            return .init(.boolean, .none, "cache.isPrivate", "deprecated: \"private\": b is \"shared\": !b")
        case .cookies:
            return .init(.section(optional: false), .section, "cookies", "the client's cookie jar (off by default)")
        case .cookiesEnabled:
            // Off: cookies are credentials, kept only when the app asks (docs/cookies.md).
            return .init(.boolean, .boolean(false), "cookies.enabled", "keep cookies and send them back")
        case .cookiesFile:
            return .init(
                .name, .none, "cookies.file", "Netscape cookie file loaded at creation, written at free and on flush")
        case .log:
            return .init(.section(optional: false), .section, "log", "log lines to standard error from the start")
        case .logLevel:
            return .init(
                .choice(LogLevel.allCases.map(\.name)), .text(LogLevel.off.name), "log.level",
                "lines of this level and more severe go to stderr (nc_client_set_log_handler replaces it)")
        }
    }

    /// The JSON name of a TLS option ("ca_file"), for messages.
    static func tlsName(_ field: TLSChecks.TLSField) -> String {
        switch field {
        case .caFile: return tlsCAFile.name
        case .caPath: return tlsCAPath.name
        case .clientCert: return tlsClientCert.name
        case .clientKey: return tlsClientKey.name
        case .pinnedPublicKeys: return tlsPinnedPublicKeys.name
        }
    }

    /// The key's path: "timeout_ms", "limits.max_redirects".
    var path: String { rawValue }

    /// The section holding the key (`.limits` for "limits.max_redirects"); nil at the top.
    var section: ConfigKey? {
        guard let dot = rawValue.firstIndex(of: ".") else { return nil }
        return ConfigKey(rawValue: String(rawValue[..<dot]))
    }

    /// The key's name inside its section ("max_redirects").
    var name: String {
        guard let dot = rawValue.firstIndex(of: ".") else { return rawValue }
        return String(rawValue[rawValue.index(after: dot)...])
    }

    /// The key called `name` in `section` (nil: the top level), if there is one.
    static func named(_ name: String, in section: ConfigKey?) -> ConfigKey? {
        let path = section.map { "\($0.rawValue).\(name)" } ?? name
        guard let key = ConfigKey(rawValue: path), key.section == section else { return nil }
        return key
    }

    /// The keys of a section, in table order.
    static func keys(in section: ConfigKey) -> [ConfigKey] {
        allCases.filter { $0.section == section }
    }

    // Typed defaults, for the stored properties of Configuration, Limits and
    // EnvelopeSchema. A test checks each key's default has its type's form.

    var defaultInteger: Int64 {
        if case .integer(let n) = spec.defaultValue { return n }
        return 0
    }

    var defaultBoolean: Bool {
        if case .boolean(let b) = spec.defaultValue { return b }
        return false
    }

    var defaultText: String? {
        if case .text(let s) = spec.defaultValue { return s }
        return nil
    }

    var defaultList: [String] {
        if case .list(let items) = spec.defaultValue { return items }
        return []
    }
}

/// One row of the table.
struct ConfigKeySpec: Sendable {
    /// What a key accepts in JSON.
    enum ValueType: Sendable, Equatable {
        /// An absolute http(s) URL without spaces, or null.
        case url
        /// An object of name → absolute http(s) URL.
        case urlMap
        /// A string, or null.
        case name
        /// An object of header name (HTTP token) → value without CR/LF/controls.
        case headerMap
        /// An array of header names (HTTP tokens).
        case headerNames
        case boolean
        /// An integer in the range.
        case integer(ClosedRange<Int64>)
        /// One of these strings.
        case choice([String])
        /// A non-empty field name, or null.
        case fieldName
        /// An array of integers or strings, kept as text.
        case codes
        /// An object of the keys "<path>.<name>" of the table (or null, if optional).
        case section(optional: Bool)
        /// Refused: not supported by this version.
        case reserved
        /// An object of endpoint name → endpoint spec (Endpoint.swift).
        case endpointMap
        /// An object read by the key's own parser (common_params, signing).
        case object
        /// A path to a file (or directory) this process can read, or null; checked
        /// when the client is made.
        case path
        /// An array of "sha256//<base64>" public-key pins.
        case pins
        /// A proxy URL (http, https, socks4, socks4a, socks5, socks5h), "" or null.
        case proxyURL
    }

    /// A key's default: what an absent key means.
    enum Default: Sendable, Equatable {
        /// No value (null).
        case none
        case integer(Int64)
        case boolean(Bool)
        case text(String)
        case list([String])
        /// An empty object.
        case emptyMap
        /// The defaults of the section's own keys.
        case section
    }

    let type: ValueType
    let defaultValue: Default
    /// The property it sets, as `Configuration.validate()` names it ("limits.maxRedirects").
    let swiftName: String
    let doc: String

    init(_ type: ValueType, _ defaultValue: Default, _ swiftName: String, _ doc: String) {
        self.type = type
        self.defaultValue = defaultValue
        self.swiftName = swiftName
        self.doc = doc
    }

    /// The accepted range of an integer key.
    var range: ClosedRange<Int64>? {
        if case .integer(let r) = type { return r }
        return nil
    }
}
