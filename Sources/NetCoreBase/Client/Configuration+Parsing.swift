import CJansson

extension Configuration {
    /// Parses the JSON configuration. Unknown keys and wrong types are errors that
    /// name the key (e.g. "limits.max_redirects"), never silently ignored.
    public static func parse(json text: String) -> Result<Configuration, NetError> {
        let root: JSONValue
        switch JSONValue.parse(text) {
        case .success(let v): root = v
        case .failure(let f):
            return .failure(
                .invalidConfig("The configuration is not valid JSON (line \(f.line), column \(f.column): \(f.reason)).")
            )
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

extension Configuration {
    /// An endpoint's "envelope" object (Endpoint.parse): the same keys, defaults and
    /// checks as the top-level "envelope"; `label` names the key in messages
    /// ("Configuration key 'endpoints.x.envelope'").
    static func parseEnvelope(_ value: UnsafeMutablePointer<json_t>, label: String) -> Result<EnvelopeSchema, NetError>
    {
        do {
            return .success(try ConfigReader().envelope(value))
        } catch let error as ConfigError {
            let prefix = "Configuration key 'envelope"
            var message = error.message
            if message.hasPrefix(prefix) { message = String(label.dropLast()) + message.dropFirst(prefix.count) }
            return .failure(.invalidArgument(message))
        } catch {
            return .failure(.invalidArgument("\(label) could not be read."))
        }
    }
}

struct ConfigError: Error {
    var message: String
}

/// Walks the configuration object key by key. Which keys exist, their types and
/// ranges come from the table (ConfigurationKeys.swift); `apply` binds each key to
/// its property.
private struct ConfigReader {
    func read(_ root: UnsafeMutablePointer<json_t>) throws -> Configuration {
        guard root.pointee.type == JSON_OBJECT else {
            throw ConfigError(message: "The configuration must be a JSON object, got \(JSON.typeName(root)).")
        }
        var config = Configuration()
        try applyMembers(of: root, in: nil, to: &config)
        if let env = config.environment, config.environments[env] == nil {
            throw ConfigError(
                message: "Configuration key 'environment' names \"\(env)\", which is not in 'environments'.")
        }
        return config
    }

    /// Applies every member of `object`, the value of `section` (nil: the top level).
    func applyMembers(
        of object: UnsafeMutablePointer<json_t>, in section: ConfigKey?,
        to config: inout Configuration
    ) throws {
        for (name, value) in JSON.members(object) {
            guard let key = ConfigKey.named(name, in: section) else { throw unknown(name, in: section) }
            try apply(key, value, to: &config)
        }
    }

    /// What the keys of "cache" say together: "private" (deprecated) and "shared"
    /// must not contradict each other, and a named partition means nothing to a
    /// shared cache.
    func checkCacheSection(_ object: UnsafeMutablePointer<json_t>, _ cache: Configuration.Cache?) throws {
        var given: [String: Bool] = [:]
        for (name, value) in JSON.members(object) where name == "private" || name == "shared" {
            given[name] = value.pointee.type == JSON_TRUE
        }
        if let p = given["private"], let s = given["shared"], p == s {
            throw ConfigError(
                message:
                    "Configuration keys 'cache.private' (deprecated) and 'cache.shared' disagree: \"private\": \(p) means \"shared\": \(!p). Give 'cache.shared' only."
            )
        }
        if let cache, cache.isShared, cache.partition != nil {
            throw ConfigError(
                message:
                    "Configuration key 'cache.partition' cannot be used with 'cache.shared': true (a shared cache keeps no partitions)."
            )
        }
    }

    func unknown(_ name: String, in section: ConfigKey?) -> ConfigError {
        guard let section else {
            return ConfigError(
                message: "Unknown configuration key '\(name)'. Check the spelling against docs/configuration.md.")
        }
        let known = ConfigKey.keys(in: section).map(\.name).joined(separator: ", ")
        return ConfigError(message: "Unknown configuration key '\(section.path).\(name)'. Known: \(known).")
    }

    /// Reads one key's value into its property. Exhaustive: a key added to the
    /// table does not compile until it is read here.
    func apply(_ key: ConfigKey, _ value: UnsafeMutablePointer<json_t>, to config: inout Configuration) throws {
        let path = key.path
        switch key {
        case .baseURL: config.baseURL = try optionalURL(value, path)
        case .environments: config.environments = try environments(value)
        case .environment: config.environment = try optionalString(value, path)
        case .headers: config.headers = try headers(value)
        case .credentialHeaders: config.credentialHeaders = try headerNames(value, path)
        case .compression: config.compression = try boolean(value, path)
        case .coalesce: config.coalesce = try boolean(value, path)
        case .timeoutMs: config.timeoutMs = try integer(value, key)
        case .connectTimeoutMs: config.connectTimeoutMs = try integer(value, key)
        case .idleTimeoutMs: config.idleTimeoutMs = try integer(value, key)
        case .deadlineMs: config.deadlineMs = try integer(value, key)
        case .retry: config.retry = try Configuration.parseRetry(value)
        case .envelope: config.envelope = value.pointee.type == JSON_NULL ? nil : try envelope(value)
        case .limits:
            try requireObject(value, path)
            config.limits = Configuration.Limits()
            try applyMembers(of: value, in: .limits, to: &config)
        case .callbacks:
            let mode = try choice(value, key)
            config.callbacks = Configuration.CallbackMode(rawValue: mode) ?? config.callbacks
        case .endpoints: config.endpoints = try endpoints(value)
        case .commonParams: config.commonParams = try Configuration.parseCommonParams(value)
        case .signing: config.signing = try Configuration.parseSigning(value)
        case .messages:
            if value.pointee.type == JSON_NULL {
                config.messages = nil
            } else {
                do throws(NetError) {
                    config.messages = try MessageTable.parse(value, label: "Configuration key 'messages'")
                } catch {
                    throw ConfigError(message: error.message)
                }
            }
        case .stubs:
            if value.pointee.type == JSON_NULL {
                config.stubs = nil
            } else {
                do throws(NetError) {
                    config.stubs = try Configuration.Stubs.parse(value)
                } catch {
                    throw ConfigError(message: error.message)
                }
            }
        case .cache:
            if value.pointee.type == JSON_NULL {
                config.cache = nil
            } else {
                try requireObject(value, path)
                config.cache = Configuration.Cache()
                try applyMembers(of: value, in: .cache, to: &config)
                try checkCacheSection(value, config.cache)
            }
        case .cacheMemoryBytes: config.cache?.memoryBytes = try integer(value, key)
        case .cacheDiskBytes: config.cache?.diskBytes = try integer(value, key)
        case .cacheShared: config.cache?.isShared = try boolean(value, path)
        // The deprecated alias: "private": b is "shared": !b (checkCacheSection
        // refuses the two when they disagree).
        case .cachePrivate: config.cache?.isShared = !(try boolean(value, path))
        case .cachePartition:
            let name = try optionalString(value, path)
            if let name, name.isEmpty || name.utf8.contains(0) {
                throw ConfigError(message: "Configuration key '\(path)' must be a non-empty string or null, got \"\".")
            }
            config.cache?.partition = name
        case .cacheDir:
            let dir = try optionalString(value, path)
            if let dir, dir.isEmpty || dir.utf8.contains(0) {
                throw ConfigError(message: "Configuration key '\(path)' must be a directory path or null, got \"\".")
            }
            config.cache?.dir = dir

        // Inside "envelope" (see envelope(_:), which starts from EnvelopeSchema()).
        case .envelopeCode: config.envelope?.codeField = try fieldName(value, path)
        case .envelopeOkCodes: config.envelope?.okCodes = try codes(value, path)
        case .envelopeSuccess: config.envelope?.successField = try fieldName(value, path)
        case .envelopeStatus: config.envelope?.statusField = try fieldName(value, path)
        case .envelopeOkStatus: config.envelope?.okStatuses = try codes(value, path)
        case .envelopeMessage: config.envelope?.messageField = try fieldName(value, path)
        // "" is the whole body (an envelope whose data is not one field).
        case .envelopeData: config.envelope?.dataField = try fieldName(value, path, allowingEmpty: true)
        case .envelopeTraceID: config.envelope?.traceIDField = try fieldName(value, path)
        case .envelopeAuthExpiredCodes: config.envelope?.authExpiredCodes = try codes(value, path)

        case .limitsMaxConnectionsPerHost: config.limits.maxConnectionsPerHost = Int(try integer(value, key))
        case .limitsMaxResponseBytes: config.limits.maxResponseBytes = Int(try integer(value, key))
        case .limitsMaxRedirects: config.limits.maxRedirects = Int(try integer(value, key))
        case .limitsMaxHeaderCount: config.limits.maxHeaderCount = Int(try integer(value, key))
        case .limitsMaxHeaderBytes: config.limits.maxHeaderBytes = Int(try integer(value, key))

        // TLS, proxy, HTTP version (TLSOptions.swift, ProxyOptions.swift).
        case .tls:
            try requireObject(value, path)
            config.tls = TLSOptions()
            try applyMembers(of: value, in: .tls, to: &config)
            // Files are checked once every member is known (client_key needs client_cert).
            if let (name, why) = TLSChecks.firstProblem(config.tls, names: { "tls.\(ConfigKey.tlsName($0))" }) {
                throw ConfigError(message: "Configuration key '\(name)' \(why)")
            }
        case .proxy:
            try requireObject(value, path)
            config.proxy = ProxyOptions()
            try applyMembers(of: value, in: .proxy, to: &config)
        case .httpVersion:
            config.httpVersion = Configuration.HTTPVersion(rawValue: try choice(value, key)) ?? config.httpVersion
        case .tlsCAFile: config.tls.caFile = try optionalString(value, path)
        case .tlsCAPath: config.tls.caPath = try optionalString(value, path)
        case .tlsClientCert: config.tls.clientCert = try optionalString(value, path)
        case .tlsClientKey: config.tls.clientKey = try optionalString(value, path)
        case .tlsPinnedPublicKeys: config.tls.pinnedPublicKeys = try strings(value, path)
        case .tlsMinVersion:
            config.tls.minVersion = TLSOptions.Version(rawValue: try choice(value, key)) ?? config.tls.minVersion
        case .proxyURL:
            let url = try optionalString(value, path)
            if let url, let why = ProxyOptions.problem(url: url) {
                throw ConfigError(message: "Configuration key '\(path)' \(why)")
            }
            config.proxy.url = url
        case .proxyNoProxy:
            let hosts = try optionalString(value, path)
            if let hosts, let why = ProxyOptions.problem(noProxy: hosts) {
                throw ConfigError(message: "Configuration key '\(path)' \(why)")
            }
            config.proxy.noProxy = hosts
        case .reachability:
            try requireObject(value, path)
            config.reachability = Configuration.Reachability()
            try applyMembers(of: value, in: .reachability, to: &config)
        case .reachabilityMode:
            config.reachability.mode = ReachabilityMode(name: try choice(value, key)) ?? config.reachability.mode
        case .reachabilityWaitForNetworkMs: config.reachability.waitForNetworkMs = try integer(value, key)
        case .auth:
            try requireObject(value, path)
            config.auth = Configuration.Auth()
            try applyMembers(of: value, in: .auth, to: &config)
        case .authToken:
            let token = try optionalString(value, path)
            if let token, token.isEmpty || !HTTPValidation.isHeaderValue(token) {
                // The value is never echoed: it is a secret.
                throw ConfigError(
                    message:
                        "Configuration key 'auth.token' must be a non-empty string without CR, LF or control characters, or null."
                )
            }
            config.auth.token = token
        case .authMaxRefreshesPerMinute: config.auth.maxRefreshesPerMinute = try integer(value, key)
        case .cookies:
            try requireObject(value, path)
            config.cookies = Configuration.Cookies()
            try applyMembers(of: value, in: .cookies, to: &config)
            if let why = config.cookies.problem { throw ConfigError(message: why.json) }
        case .cookiesEnabled: config.cookies.enabled = try boolean(value, path)
        case .cookiesFile: config.cookies.file = try optionalString(value, path)
        case .log:
            try requireObject(value, path)
            config.log = Configuration.Log()
            try applyMembers(of: value, in: .log, to: &config)
        case .logLevel: config.log.level = LogLevel(name: try choice(value, key)) ?? config.log.level
        }
    }

    /// An array of strings.
    func strings(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> [String] {
        guard v.pointee.type == JSON_ARRAY else {
            throw ConfigError(
                message: "Configuration key '\(key)' must be an array of strings, got \(JSON.typeName(v)).")
        }
        var out: [String] = []
        for i in 0..<json_array_size(v) {
            guard let item = json_array_get(v, i), let text = JSON.string(item), !text.utf8.contains(0) else {
                throw ConfigError(message: "Configuration key '\(key)' must be an array of strings; item \(i) is not.")
            }
            out.append(text)
        }
        return out
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
                throw ConfigError(
                    message:
                        "Configuration key '\(key)': a header name must be an HTTP token (letters, digits, !#$%&'*+-.^_`|~)."
                )
            }
            let text = try string(v, key)
            guard HTTPValidation.isHeaderValue(text) else {
                throw ConfigError(
                    message: "Configuration key '\(key)': the value contains CR, LF or another control character.")
            }
            out.set(name, text)
        }
        return out
    }

    func headerNames(_ value: UnsafeMutablePointer<json_t>, _ key: String) throws -> [String] {
        guard value.pointee.type == JSON_ARRAY else {
            throw ConfigError(
                message: "Configuration key '\(key)' must be an array of header names, got \(JSON.typeName(value)).")
        }
        var out: [String] = []
        for i in 0..<json_array_size(value) {
            guard let item = json_array_get(value, i), let name = JSON.string(item), HTTPValidation.isToken(name) else {
                throw ConfigError(
                    message: "Configuration key '\(key)' must list header names (HTTP tokens); item \(i) is not.")
            }
            out.append(name)
        }
        return out
    }

    /// The "envelope" object: the defaults of EnvelopeSchema, then each member.
    func envelope(_ value: UnsafeMutablePointer<json_t>) throws -> EnvelopeSchema {
        try requireObject(value, "envelope")
        var config = Configuration()
        config.envelope = EnvelopeSchema()
        try applyMembers(of: value, in: .envelope, to: &config)
        guard var out = config.envelope else { return EnvelopeSchema() }
        // With a success flag, the code is reported but is not a condition unless
        // ok_codes says so: {"success":true,"code":2001} is a success.
        let okCodesGiven = json_object_get(value, ConfigKey.envelopeOkCodes.name) != nil
        if out.successField != nil && !okCodesGiven { out.okCodes = [] }
        if out.statusField != nil && out.okStatuses.isEmpty {
            throw ConfigError(
                message:
                    "Configuration key 'envelope.ok_status' must list at least one value when 'envelope.status' is set."
            )
        }
        if !out.checksCode && out.successField == nil && out.statusField == nil {
            throw ConfigError(
                message:
                    "Configuration key 'envelope' has no success condition: set 'code' with non-empty 'ok_codes', 'success', or 'status' with 'ok_status'."
            )
        }
        return out
    }

    /// The "endpoints" object: name → spec, each checked as nc_client_define_endpoint() does.
    func endpoints(_ value: UnsafeMutablePointer<json_t>) throws -> EndpointCatalog {
        try requireObject(value, "endpoints")
        var catalog = EndpointCatalog()
        for (name, spec) in JSON.members(value) {
            guard Endpoint.isValidName(name) else {
                throw ConfigError(
                    message:
                        "Configuration key 'endpoints' has an endpoint name that is empty or has control characters.")
            }
            do throws(NetError) {
                catalog.define(
                    try Endpoint.parse(name: name, spec: spec) { key in
                        "Configuration key 'endpoints.\(name)\(key.isEmpty ? "" : ".")\(key)'"
                    })
            } catch {
                throw ConfigError(message: error.message)
            }
        }
        return catalog
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
        default:
            throw ConfigError(message: "Configuration key '\(key)' must be true or false, got \(JSON.typeName(v)).")
        }
    }

    func optionalString(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> String? {
        v.pointee.type == JSON_NULL ? nil : try string(v, key)
    }

    func fieldName(_ v: UnsafeMutablePointer<json_t>, _ key: String, allowingEmpty: Bool = false) throws -> String? {
        guard let name = try optionalString(v, key) else { return nil }
        guard !name.isEmpty || allowingEmpty else {
            throw ConfigError(message: "Configuration key '\(key)' must be a field name or null, got \"\".")
        }
        return name
    }

    func url_(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> String {
        let s = try string(v, key)
        guard HTTPValidation.isBaseURL(s) else {
            throw ConfigError(
                message:
                    "Configuration key '\(key)' must be an absolute http:// or https:// URL without spaces, got \"\(s)\"."
            )
        }
        return s
    }

    func optionalURL(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> String? {
        v.pointee.type == JSON_NULL ? nil : try url_(v, key)
    }

    /// An integer in the key's range (the table's).
    func integer(_ v: UnsafeMutablePointer<json_t>, _ key: ConfigKey) throws -> Int64 {
        guard v.pointee.type == JSON_INTEGER else {
            throw ConfigError(message: "Configuration key '\(key.path)' must be an integer, got \(JSON.typeName(v)).")
        }
        let n = json_integer_value(v)
        let range = key.spec.range ?? Int64.min...Int64.max
        guard range.contains(n) else {
            throw ConfigError(
                message:
                    "Configuration key '\(key.path)' must be between \(range.lowerBound) and \(range.upperBound), got \(n)."
            )
        }
        return n
    }

    /// One of the key's choices (the table's), e.g. "loop" or "queue".
    func choice(_ v: UnsafeMutablePointer<json_t>, _ key: ConfigKey) throws -> String {
        let text = try string(v, key.path)
        var choices: [String] = []
        if case .choice(let listed) = key.spec.type { choices = listed }
        guard choices.contains(text) else {
            let options = choices.map { "\"\($0)\"" }.joined(separator: " or ")
            throw ConfigError(message: "Configuration key '\(key.path)' must be \(options), got \"\(text)\".")
        }
        return text
    }

    /// An array of codes (integers or strings), kept as text.
    func codes(_ v: UnsafeMutablePointer<json_t>, _ key: String) throws -> [String] {
        guard v.pointee.type == JSON_ARRAY else {
            throw ConfigError(
                message: "Configuration key '\(key)' must be an array of integers or strings, got \(JSON.typeName(v)).")
        }
        var out: [String] = []
        for i in 0..<json_array_size(v) {
            guard let item = json_array_get(v, i),
                item.pointee.type == JSON_INTEGER || item.pointee.type == JSON_STRING,
                let text = JSON.scalarText(item)
            else {
                throw ConfigError(
                    message: "Configuration key '\(key)' must be an array of integers or strings; item \(i) is not.")
            }
            out.append(text)
        }
        return out
    }
}
