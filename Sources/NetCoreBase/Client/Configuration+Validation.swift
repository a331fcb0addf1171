/// The checks the JSON parser applies, for configurations built in Swift.
/// `NetClient(configuration:)` runs them, so a bad value never reaches a request.
extension Configuration {
    /// Throws a CLIENT `invalidConfig` error naming the property (e.g.
    /// "limits.maxRedirects") when a value would be refused in JSON: URLs that are
    /// not absolute http(s), an unknown environment, header names that are not
    /// tokens, values with CR/LF/controls, numbers outside the ranges of the table
    /// of keys (ConfigurationKeys.swift), an envelope without a success condition.
    public func validate() throws(NetError) {
        func fail(_ message: String) -> NetError { .invalidConfig("Configuration.\(message)") }
        func check(_ value: Int64, _ name: String, _ range: ClosedRange<Int64>) throws(NetError) {
            guard range.contains(value) else {
                throw fail("\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(value).")
            }
        }

        if let baseURL, !HTTPValidation.isBaseURL(baseURL) {
            throw fail("baseURL must be an absolute http:// or https:// URL without spaces, got \"\(baseURL)\".")
        }
        for (name, url) in environments where !HTTPValidation.isBaseURL(url) {
            throw fail(
                "environments[\"\(name)\"] must be an absolute http:// or https:// URL without spaces, got \"\(url)\".")
        }
        if let environment, environments[environment] == nil {
            throw fail("environment names \"\(environment)\", which is not in environments.")
        }
        for (name, value) in headers {
            guard HTTPValidation.isToken(name) else {
                throw fail("headers: \"\(name)\" is not a header name (an HTTP token).")
            }
            guard HTTPValidation.isHeaderValue(value) else {
                throw fail("headers[\"\(name)\"] contains CR, LF or another control character.")
            }
        }
        for name in credentialHeaders where !HTTPValidation.isToken(name) {
            throw fail("credentialHeaders: \"\(name)\" is not a header name (an HTTP token).")
        }
        if let (name, why) = TLSChecks.firstProblem(tls, names: { "tls.\(Self.swiftName($0))" }) {
            throw fail("\(name) \(why)")
        }
        if let url = proxy.url, let why = ProxyOptions.problem(url: url) { throw fail("proxy.url \(why)") }
        if let hosts = proxy.noProxy, let why = ProxyOptions.problem(noProxy: hosts) {
            throw fail("proxy.noProxy \(why)")
        }
        // Every integer key, in table order, against the table's range.
        for key in ConfigKey.allCases {
            guard let range = key.spec.range, let value = integerValue(of: key) else { continue }
            try check(value, key.spec.swiftName, range)
        }

        if let problem = retry?.problem() { throw fail(problem) }
        if let dir = cache?.dir, dir.isEmpty || dir.utf8.contains(0) {
            throw fail("cache.dir must be a directory path or nil, got \"\".")
        }
        if let partition = cache?.partition {
            if partition.isEmpty || partition.utf8.contains(0) {
                throw fail("cache.partition must be a non-empty string or nil, got \"\".")
            }
            if cache?.isShared == true {
                throw fail("cache.partition cannot be used with cache.isShared (a shared cache keeps no partitions).")
            }
        }
        if let why = cookies.problem { throw fail(why.swift) }

        if let envelope {
            let fields: [(ConfigKey, String?)] = [
                (.envelopeCode, envelope.codeField), (.envelopeSuccess, envelope.successField),
                (.envelopeStatus, envelope.statusField), (.envelopeMessage, envelope.messageField),
                (.envelopeData, envelope.dataField), (.envelopeTraceID, envelope.traceIDField)
            ]
            for (key, field) in fields where field?.isEmpty == true {
                throw fail("\(key.spec.swiftName) must be a field name or nil, got \"\".")
            }
            if envelope.statusField != nil && envelope.okStatuses.isEmpty {
                throw fail("envelope.okStatuses must list at least one value when envelope.statusField is set.")
            }
            if !envelope.checksCode && envelope.successField == nil && envelope.statusField == nil {
                throw fail(
                    "envelope has no success condition: set codeField with non-empty okCodes, successField, or statusField with okStatuses."
                )
            }
        }
    }

    /// The value of an integer key; nil for the other keys. Exhaustive, so a key
    /// added to the table is placed here too.
    func integerValue(of key: ConfigKey) -> Int64? {
        switch key {
        case .timeoutMs: return timeoutMs
        case .connectTimeoutMs: return connectTimeoutMs
        case .idleTimeoutMs: return idleTimeoutMs
        case .deadlineMs: return deadlineMs
        case .limitsMaxConnectionsPerHost: return Int64(limits.maxConnectionsPerHost)
        case .limitsMaxResponseBytes: return Int64(limits.maxResponseBytes)
        case .limitsMaxRedirects: return Int64(limits.maxRedirects)
        case .limitsMaxHeaderCount: return Int64(limits.maxHeaderCount)
        case .limitsMaxHeaderBytes: return Int64(limits.maxHeaderBytes)
        case .reachabilityWaitForNetworkMs: return reachability.waitForNetworkMs
        case .authMaxRefreshesPerMinute: return auth.maxRefreshesPerMinute
        case .cacheMemoryBytes: return cache?.memoryBytes
        case .cacheDiskBytes: return cache?.diskBytes
        case .baseURL, .environments, .environment, .headers, .credentialHeaders, .compression, .coalesce,
            .envelope, .limits, .callbacks, .retry, .cache, .endpoints, .commonParams, .signing, .messages, .stubs,
            .envelopeCode, .envelopeOkCodes, .envelopeSuccess, .envelopeStatus, .envelopeOkStatus,
            .envelopeMessage, .envelopeData, .envelopeTraceID, .envelopeAuthExpiredCodes,
            .tls, .proxy, .httpVersion, .tlsCAFile, .tlsCAPath, .tlsClientCert, .tlsClientKey,
            .tlsPinnedPublicKeys, .tlsMinVersion, .proxyURL, .proxyNoProxy, .reachability, .reachabilityMode,
            .auth, .authToken, .cacheDir, .cachePartition, .cacheShared, .cachePrivate, .cookies, .cookiesEnabled,
            .cookiesFile, .log, .logLevel:
            return nil
        }
    }

    /// The Swift name of a TLS option ("caFile"), for messages.
    static func swiftName(_ field: TLSChecks.TLSField) -> String {
        switch field {
        case .caFile: return "caFile"
        case .caPath: return "caPath"
        case .clientCert: return "clientCert"
        case .clientKey: return "clientKey"
        case .pinnedPublicKeys: return "pinnedPublicKeys"
        }
    }

    /// This configuration, after `validate()`.
    public func validated() throws(NetError) -> Configuration {
        try validate()
        return self
    }
}
