/// Building a configuration in Swift instead of JSON. Every parameter has the
/// default of the JSON key it mirrors (docs/configuration.md), so
/// `Configuration(baseURL: nil)` equals `Configuration()`.
///
/// ```swift
/// let config = Configuration(baseURL: "https://api.example.com/v1",
///                            headers: ["User-Agent": "shop/2.3"],
///                            envelope: EnvelopeSchema(),      // {"code":0,"msg":…,"data":…}
///                            timeoutMs: 10_000)
/// let client = try NetClient(configuration: config)
/// ```
extension Configuration {
    public init(baseURL: String?,
                environments: [String: String] = [:],
                environment: String? = nil,
                headers: HeaderFields = HeaderFields(),
                credentialHeaders: [String] = [],
                compression: Bool = true,
                envelope: EnvelopeSchema? = nil,
                timeoutMs: Int64 = 15_000,
                connectTimeoutMs: Int64 = 5_000,
                limits: Limits = Limits(),
                callbacks: CallbackMode = .loop) {
        self.init()
        self.baseURL = baseURL
        self.environments = environments
        self.environment = environment
        self.headers = headers
        self.credentialHeaders = credentialHeaders
        self.compression = compression
        self.envelope = envelope
        self.timeoutMs = timeoutMs
        self.connectTimeoutMs = connectTimeoutMs
        self.limits = limits
        self.callbacks = callbacks
    }
}

extension Configuration.Limits {
    /// Limits with the JSON "limits" defaults; see each property.
    public init(maxConnectionsPerHost: Int = 8,
                maxResponseBytes: Int = 104_857_600,
                maxRedirects: Int = 10,
                maxHeaderCount: Int = 100,
                maxHeaderBytes: Int = 65_536) {
        self.init()
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxResponseBytes = maxResponseBytes
        self.maxRedirects = maxRedirects
        self.maxHeaderCount = maxHeaderCount
        self.maxHeaderBytes = maxHeaderBytes
    }
}

extension EnvelopeSchema {
    /// A schema with the JSON "envelope" defaults. The three shapes of DESIGN.md §1:
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
    public init(codeField: String? = "code",
                okCodes: [String]? = nil,
                successField: String? = nil,
                statusField: String? = nil,
                okStatuses: [String] = [],
                messageField: String? = "msg",
                dataField: String? = "data",
                traceIDField: String? = "traceId",
                authExpiredCodes: [String] = []) {
        self.init()
        self.codeField = codeField
        self.okCodes = okCodes ?? (successField == nil ? ["0"] : [])
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
