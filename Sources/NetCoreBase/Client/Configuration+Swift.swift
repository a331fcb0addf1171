/// Building a configuration in Swift instead of JSON. Every parameter defaults to
/// the plain value's property, i.e. to the JSON key's default (the table in
/// ConfigurationKeys.swift, docs/configuration.md), so `Configuration(baseURL: nil)`
/// equals `Configuration()`.
///
/// ```swift
/// let config = Configuration(baseURL: "https://api.example.com/v1",
///                            headers: ["User-Agent": "shop/2.3"],
///                            envelope: EnvelopeSchema(),      // {"code":0,"msg":…,"data":…}
///                            timeoutMs: 10_000)
/// let client = try NetClient(configuration: config)
/// ```
///
/// A private CA, a pinned key, a client certificate, a proxy and HTTP/2
/// (docs/tls.md); there is no option that turns verification off:
///
/// ```swift
/// let config = Configuration(baseURL: "https://api.internal:8443",
///                            tls: TLSOptions(caFile: "/etc/shop/ca.pem",
///                                            clientCert: "/etc/shop/client.pem",
///                                            clientKey: "/etc/shop/client.key"),
///                            proxy: ProxyOptions(url: "http://proxy:3128", noProxy: "localhost"),
///                            httpVersion: .http2)
/// ```
extension Configuration {
    /// A configuration from Swift values; every argument defaults to the JSON key's default (docs/configuration.md).
    public init(
        baseURL: String?,
        environments: [String: String] = Configuration().environments,
        environment: String? = Configuration().environment,
        headers: HeaderFields = Configuration().headers,
        credentialHeaders: [String] = Configuration().credentialHeaders,
        compression: Bool = Configuration().compression,
        coalesce: Bool = Configuration().coalesce,
        envelope: EnvelopeSchema? = Configuration().envelope,
        timeoutMs: Int64 = Configuration().timeoutMs,
        connectTimeoutMs: Int64 = Configuration().connectTimeoutMs,
        limits: Limits = Limits(),
        callbacks: CallbackMode = Configuration().callbacks,
        tls: TLSOptions = Configuration().tls,
        proxy: ProxyOptions = Configuration().proxy,
        httpVersion: HTTPVersion = Configuration().httpVersion
    ) {
        self.init()
        self.baseURL = baseURL
        self.environments = environments
        self.environment = environment
        self.headers = headers
        self.credentialHeaders = credentialHeaders
        self.compression = compression
        self.coalesce = coalesce
        self.envelope = envelope
        self.timeoutMs = timeoutMs
        self.connectTimeoutMs = connectTimeoutMs
        self.limits = limits
        self.callbacks = callbacks
        self.tls = tls
        self.proxy = proxy
        self.httpVersion = httpVersion
    }
}

extension Configuration.Limits {
    /// Limits with the JSON "limits" defaults; see each property.
    public init(
        maxConnectionsPerHost: Int = Configuration.Limits().maxConnectionsPerHost,
        maxResponseBytes: Int = Configuration.Limits().maxResponseBytes,
        maxRedirects: Int = Configuration.Limits().maxRedirects,
        maxHeaderCount: Int = Configuration.Limits().maxHeaderCount,
        maxHeaderBytes: Int = Configuration.Limits().maxHeaderBytes
    ) {
        self.init()
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxResponseBytes = maxResponseBytes
        self.maxRedirects = maxRedirects
        self.maxHeaderCount = maxHeaderCount
        self.maxHeaderBytes = maxHeaderBytes
    }
}

extension EnvelopeSchema {
    /// A schema with the JSON "envelope" defaults. The three shapes of
    /// docs/contract.md#envelope-shapes:
    ///
    /// ```swift
    /// EnvelopeSchema()                                            // {"code":0,"msg","data"}
    /// EnvelopeSchema(successField: "success")                    // {"success":true,…,"traceId"}
    /// EnvelopeSchema(codeField: "errorCode", statusField: "status", okStatuses: ["OK"],
    ///                messageField: "errorMsg", dataField: "content")
    /// ```
    ///
    /// `okCodes: nil` applies the JSON rule: `["0"]`, or `[]` (the code is not a
    /// success condition) when `successField` is set.
    public init(
        codeField: String? = EnvelopeSchema().codeField,
        okCodes: [String]? = nil,
        successField: String? = EnvelopeSchema().successField,
        statusField: String? = EnvelopeSchema().statusField,
        okStatuses: [String] = EnvelopeSchema().okStatuses,
        messageField: String? = EnvelopeSchema().messageField,
        dataField: String? = EnvelopeSchema().dataField,
        traceIDField: String? = EnvelopeSchema().traceIDField,
        authExpiredCodes: [String] = EnvelopeSchema().authExpiredCodes
    ) {
        self.init()
        self.codeField = codeField
        self.okCodes = okCodes ?? (successField == nil ? self.okCodes : [])
        self.successField = successField
        self.statusField = statusField
        self.okStatuses = okStatuses
        self.messageField = messageField
        self.dataField = dataField
        self.traceIDField = traceIDField
        self.authExpiredCodes = authExpiredCodes
    }
}

/// `["User-Agent": "shop/2.3", "X-App-Version": "2.3.0"]`, in the written order
/// (a repeated name keeps the last value).
extension HeaderFields: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init()
        for (name, value) in elements { set(name, value) }
    }
}
