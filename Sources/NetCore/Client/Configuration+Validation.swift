/// The checks the JSON parser applies, for configurations built in Swift.
/// `NetClient(configuration:)` runs them, so a bad value never reaches a request.
extension Configuration {
    /// Throws a CLIENT `invalidConfig` error naming the property (e.g.
    /// "limits.maxRedirects") when a value would be refused in JSON: URLs that are
    /// not absolute http(s), an unknown environment, header names that are not
    /// tokens, values with CR/LF/controls, out-of-range numbers, an envelope
    /// without a success condition.
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
            throw fail("environments[\"\(name)\"] must be an absolute http:// or https:// URL without spaces, got \"\(url)\".")
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
        try check(timeoutMs, "timeoutMs", 0...Int64(Int32.max))
        try check(connectTimeoutMs, "connectTimeoutMs", 0...Int64(Int32.max))
        try check(Int64(limits.maxConnectionsPerHost), "limits.maxConnectionsPerHost", 0...100_000)
        try check(Int64(limits.maxResponseBytes), "limits.maxResponseBytes", 1...Int64.max)
        try check(Int64(limits.maxRedirects), "limits.maxRedirects", 0...100)
        try check(Int64(limits.maxHeaderCount), "limits.maxHeaderCount", 1...100_000)
        try check(Int64(limits.maxHeaderBytes), "limits.maxHeaderBytes", 256...(64 << 20))

        if let envelope {
            let fields = [("codeField", envelope.codeField), ("successField", envelope.successField),
                          ("statusField", envelope.statusField), ("messageField", envelope.messageField),
                          ("dataField", envelope.dataField), ("traceIDField", envelope.traceIDField)]
            for (name, field) in fields where field?.isEmpty == true {
                throw fail("envelope.\(name) must be a field name or nil, got \"\".")
            }
            if envelope.statusField != nil && envelope.okStatuses.isEmpty {
                throw fail("envelope.okStatuses must list at least one value when envelope.statusField is set.")
            }
            if !envelope.checksCode && envelope.successField == nil && envelope.statusField == nil {
                throw fail("envelope has no success condition: set codeField with non-empty okCodes, successField, or statusField with okStatuses.")
            }
        }
    }

    /// This configuration, after `validate()`.
    public func validated() throws(NetError) -> Configuration {
        try validate()
        return self
    }
}
