import CJansson

extension Configuration {
    /// Parses the JSON configuration. Unknown keys and wrong types are errors that
    /// name the key (e.g. "limits.max_redirects"), never silently ignored.
    public static func parse(json text: String) -> Result<Configuration, NetError> {
        let root: JSONValue
        switch JSONValue.parse(text) {
        case .success(let v): root = v
        case .failure(let f):
            return .failure(.invalidConfig("The configuration is not valid JSON (line \(f.line), column \(f.column): \(f.reason))."))
        }
        do {
            return .success(try ConfigReader().read(root.raw))
        } catch let error as ConfigError {
            return .failure(.invalidConfig(error.message))
        } catch {
            return .failure(.invalidConfig("The configuration could not be read."))
        }
    }
}

struct ConfigError: Error {
    var message: String
}

/// Walks the configuration object key by key.
private struct ConfigReader {
    func read(_ root: UnsafeMutablePointer<json_t>) throws -> Configuration {
        guard root.pointee.type == JSON_OBJECT else {
            throw ConfigError(message: "The configuration must be a JSON object, got \(JSON.typeName(root)).")
        }
        var config = Configuration()
        for (key, value) in JSON.members(root) {
            switch key {
            case "base_url":
                config.baseURL = try optionalURL(value, key)
            case "environments":
                config.environments = try environments(value)
            case "environment":
                config.environment = try optionalString(value, key)
            case "headers":
                config.headers = try headers(value)
            case "credential_headers":
                config.credentialHeaders = try headerNames(value, key)
            case "timeout_ms":
                config.timeoutMs = Int64(try integer(value, key, in: 0...Int(Int32.max)))
            case "connect_timeout_ms":
                config.connectTimeoutMs = Int64(try integer(value, key, in: 0...Int(Int32.max)))
            case "compression":
                config.compression = try boolean(value, key)
            case "envelope":
                config.envelope = value.pointee.type == JSON_NULL ? nil : try envelope(value)
            case "limits":
                config.limits = try limits(value)
            case "callbacks":
                let mode = try string(value, key)
                guard let parsed = Configuration.CallbackMode(rawValue: mode) else {
                    throw ConfigError(message: "Configuration key 'callbacks' must be \"loop\" or \"queue\", got \"\(mode)\".")
                }
                config.callbacks = parsed
            case "common_params":
                config.commonParams = try Configuration.parseCommonParams(value)
            case "signing":
                config.signing = try Configuration.parseSigning(value)
            case "retry", "cache", "endpoints":
                throw ConfigError(message: "Configuration key '\(key)' is not supported by libnetcore \(NetCoreVersion.string) yet; remove it.")
            default:
                throw ConfigError(message: "Unknown configuration key '\(key)'. Check the spelling against docs/configuration.md.")
            }
        }
        if let env = config.environment, config.environments[env] == nil {
            throw ConfigError(message: "Configuration key 'environment' names \"\(env)\", which is not in 'environments'.")
        }
        return config
    }

    // MARK: sections

    func environments(_ value: UnsafeMutablePointer<json_t>) throws -> [String: String] {
        try requireObject(value, "environments")
        var out: [String: String] = [:]
        for (name, url) in JSON.members(value) {
            out[name] = try url_(url, "environments.\(name)")
        }
        return out
    }

    func headers(_ value: UnsafeMutablePointer<json_t>) throws -> HeaderFields {
        try requireObject(value, "headers")
        var out = HeaderFields()
        for (name, v) in JSON.members(value) {
            let key = "headers.\(name)"
            guard HTTPValidation.isToken(name) else {
                throw ConfigError(message: "Configuration key '\(key)': a header name must be an HTTP token (letters, digits, !#$%&'*+-.^_`|~).")
            }
            let text = try string(v, key)
            guard HTTPValidation.isHeaderValue(text) else {
                throw ConfigError(message: "Configuration key '\(key)': the value contains CR, LF or another control character.")
            }
            out.set(name, text)
        }
        return out
    }

    func headerNames(_ value: UnsafeMutablePointer<json_t>, _ key: String) throws -> [String] {
        guard value.pointee.type == JSON_ARRAY else {
            throw ConfigError(message: "Configuration key '\(key)' must be an array of header names, got \(JSON.typeName(value)).")
        }
        var out: [String] = []
        for i in 0..<json_array_size(value) {
            guard let item = json_array_get(value, i), let name = JSON.string(item), HTTPValidation.isToken(name) else {
                throw ConfigError(message: "Configuration key '\(key)' must list header names (HTTP tokens); item \(i) is not.")
            }
            out.append(name)
        }
        return out
    }

    func limits(_ value: UnsafeMutablePointer<json_t>) throws -> Configuration.Limits {
        try requireObject(value, "limits")
        var out = Configuration.Limits()
        for (key, v) in JSON.members(value) {
            let full = "limits.\(key)"
            switch key {
            case "max_connections_per_host": out.maxConnectionsPerHost = try integer(v, full, in: 0...100_000)
            case "max_response_bytes": out.maxResponseBytes = try integer(v, full, in: 1...Int(Int64.max))
            case "max_redirects": out.maxRedirects = try integer(v, full, in: 0...100)
            case "max_header_count": out.maxHeaderCount = try integer(v, full, in: 1...100_000)
            case "max_header_bytes": out.maxHeaderBytes = try integer(v, full, in: 256...(64 << 20))
            default:
                throw ConfigError(message: "Unknown configuration key '\(full)'. Known: max_connections_per_host, max_response_bytes, max_redirects, max_header_count, max_header_bytes.")
            }
        }
        return out
    }

    func envelope(_ value: UnsafeMutablePointer<json_t>) throws -> EnvelopeSchema {
        try requireObject(value, "envelope")
        var out = EnvelopeSchema()
        var okCodesGiven = false
        for (key, v) in JSON.members(value) {
            let full = "envelope.\(key)"
            switch key {
            case "code": out.codeField = try fieldName(v, full)
            case "ok_codes": out.okCodes = try codes(v, full); okCodesGiven = true
            case "success": out.successField = try fieldName(v, full)
            case "status": out.statusField = try fieldName(v, full)
            case "ok_status": out.okStatuses = try codes(v, full)
            case "message": out.messageField = try fieldName(v, full)
            case "data": out.dataField = try fieldName(v, full)
            case "trace_id": out.traceIDField = try fieldName(v, full)
            case "auth_expired_codes": out.authExpiredCodes = try codes(v, full)
            default:
                throw ConfigError(message: "Unknown configuration key '\(full)'. Known: code, ok_codes, success, status, ok_status, message, data, trace_id, auth_expired_codes.")
            }
        }
        // With a success flag, the code is reported but is not a condition unless
        // ok_codes says so: {"success":true,"code":2001} is a success.
        if out.successField != nil && !okCodesGiven { out.okCodes = [] }
        if out.statusField != nil && out.okStatuses.isEmpty {
            throw ConfigError(message: "Configuration key 'envelope.ok_status' must list at least one value when 'envelope.status' is set.")
        }
        if !out.checksCode && out.successField == nil && out.statusField == nil {
            throw ConfigError(message: "Configuration key 'envelope' has no success condition: set 'code' with non-empty 'ok_codes', 'success', or 'status' with 'ok_status'.")
        }
        return out
    }

    // MARK: scalars

    func requireObject(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws {
        guard v.pointee.type == JSON_OBJECT else {
            throw ConfigError(message: "Configuration key '\(key)' must be an object, got \(JSON.typeName(v)).")
        }
    }

    func string(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> String {
        guard let s = JSON.string(v) else {
            throw ConfigError(message: "Configuration key '\(key)' must be a string, got \(JSON.typeName(v)).")
        }
        guard !s.utf8.contains(0) else {
            throw ConfigError(message: "Configuration key '\(key)' contains a NUL character.")
        }
        return s
    }

    func boolean(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> Bool {
        switch v.pointee.type {
        case JSON_TRUE: return true
        case JSON_FALSE: return false
        default: throw ConfigError(message: "Configuration key '\(key)' must be true or false, got \(JSON.typeName(v)).")
        }
    }

    func optionalString(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> String? {
        v.pointee.type == JSON_NULL ? nil : try string(v, key)
    }

    func fieldName(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> String? {
        guard let name = try optionalString(v, key) else { return nil }
        guard !name.isEmpty else {
            throw ConfigError(message: "Configuration key '\(key)' must be a field name or null, got \"\".")
        }
        return name
    }

    func url_(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> String {
        let s = try string(v, key)
        guard HTTPValidation.isBaseURL(s) else {
            throw ConfigError(message: "Configuration key '\(key)' must be an absolute http:// or https:// URL without spaces, got \"\(s)\".")
        }
        return s
    }

    func optionalURL(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> String? {
        v.pointee.type == JSON_NULL ? nil : try url_(v, key)
    }

    func integer(_ v: UnsafeMutablePointer<json_t>, _ key: String, in range: ClosedRange<Int>) throws -> Int {
        guard v.pointee.type == JSON_INTEGER else {
            throw ConfigError(message: "Configuration key '\(key)' must be an integer, got \(JSON.typeName(v)).")
        }
        let n = json_integer_value(v)
        guard n >= Int64(range.lowerBound), n <= Int64(range.upperBound) else {
            throw ConfigError(message: "Configuration key '\(key)' must be between \(range.lowerBound) and \(range.upperBound), got \(n).")
        }
        return Int(n)
    }

    /// An array of codes (integers or strings), kept as text.
    func codes(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> [String] {
        guard v.pointee.type == JSON_ARRAY else {
            throw ConfigError(message: "Configuration key '\(key)' must be an array of integers or strings, got \(JSON.typeName(v)).")
        }
        var out: [String] = []
        for i in 0..<json_array_size(v) {
            guard let item = json_array_get(v, i),
                  item.pointee.type == JSON_INTEGER || item.pointee.type == JSON_STRING,
                  let text = JSON.scalarText(item) else {
                throw ConfigError(message: "Configuration key '\(key)' must be an array of integers or strings; item \(i) is not.")
            }
            out.append(text)
        }
        return out
    }
}
