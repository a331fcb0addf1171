import CJansson

/// One entry of a client's endpoint catalog: a named, discrete API ("user.get")
/// with its method, path template ("/users/{id}"), parameter encoding and the
/// request settings it defaults to. Defined in the configuration ("endpoints") or
/// at run time (`NetClient.define(_:)`, nc_client_define_endpoint()).
///
/// `retry` is merged over the client's retry policy for requests naming it, and
/// `group` is the cancellation group of those that name none; `cache` is the cache
/// policy (`CachePolicy.name`) of those that set none (docs/configuration.md#endpoints).
public struct Endpoint: Sendable, Equatable {
    /// The catalog name ("user.get"): non-empty, no control characters.
    public let name: String
    /// Upper-cased HTTP method token. Default "GET".
    public let method: String
    /// Path joined to the base URL (or an absolute http(s) URL) with `{name}`
    /// placeholders filled from the request's params.
    public let path: String
    /// How the params left after filling the placeholders are encoded. Default:
    /// query for GET/HEAD/DELETE/OPTIONS, form otherwise.
    public let encoding: ParameterEncoding
    /// Headers of this endpoint (a request's own header of the same name wins;
    /// these win over the client's defaults).
    public let headers: HeaderFields
    /// Total timeout, ms (0 = none); nil = the client's timeout_ms.
    public let timeoutMs: Int64?
    /// Connect timeout, ms (0 = libcurl's default); nil = the client's connect_timeout_ms.
    public let connectTimeoutMs: Int64?
    /// Idle (inactivity) timeout, ms (0 = none); nil = the client's idle_timeout_ms.
    public let idleTimeoutMs: Int64?
    /// Envelope validation on/off; nil = the client's. `false` also for
    /// `"envelope": null` (raw); `true` when `envelopeSchema` is set.
    public let envelope: Bool?
    /// This endpoint's own envelope rules ("envelope": {…}, the keys of the
    /// client's "envelope", starting from the same defaults), in place of the
    /// client's for its requests; nil: the client's.
    public let envelopeSchema: EnvelopeSchema?
    /// Flags every request naming this endpoint carries, with its own
    /// ("flags": ["skip_error_handler", "no_retry", …]).
    public let flags: RequestFlags
    /// The parameter declarations ("params", "additional_params"), checked before
    /// anything is sent (ParamRules.swift); nil: none declared.
    public let params: ParamRules?
    /// The "retry" value: `false` (one attempt) or an object merged over the
    /// client's policy (a request's own retry override is merged over it).
    public let retry: Retry?
    /// The cache policy name (`CachePolicy.name`) of requests that set none.
    public let cache: String?
    /// The cancellation group of requests naming this endpoint and no group of their own.
    public let group: String?
    /// The CA file and pins of this endpoint's requests, in place of the client's
    /// ("tls": {"ca_file", "pinned_public_keys"}); nil: the client's.
    public let tls: EndpointTLS?

    /// An endpoint's "retry": `false` or an object (kept as compact JSON text).
    public enum Retry: Sendable, Equatable {
        case disabled
        case policy(json: String)
    }

    /// The placeholder names of `path`, in order ("/users/{id}/posts/{post}" → ["id", "post"]).
    let placeholders: [String]

    /// Checks every value as the JSON form does; a bad one throws
    /// `NetError.invalidArgument` naming it.
    public init(
        name: String, method: String = "GET", path: String, encoding: ParameterEncoding = .default,
        headers: HeaderFields = HeaderFields(), timeoutMs: Int64? = nil, envelope: Bool? = nil,
        retry: Retry? = nil, cache: String? = nil, group: String? = nil, tls: EndpointTLS? = nil,
        connectTimeoutMs: Int64? = nil, idleTimeoutMs: Int64? = nil, envelopeSchema: EnvelopeSchema? = nil,
        flags: RequestFlags = [], params: ParamRules? = nil
    ) throws(NetError) {
        func fail(_ why: String) -> NetError { .invalidArgument("Endpoint '\(name)': \(why)") }
        guard Endpoint.isValidName(name) else {
            throw NetError.invalidArgument("An endpoint name must be non-empty, without control characters.")
        }
        guard HTTPValidation.isToken(method) else { throw fail("method must be an HTTP token such as GET or POST.") }
        guard HTTPValidation.isURLText(path) else {
            throw fail("path must be non-empty, without spaces, CR, LF or control characters.")
        }
        if HTTPValidation.hasScheme(path) && !HTTPValidation.isAbsoluteHTTP(path) {
            throw fail("path may only be an http:// or https:// URL.")
        }
        guard let placeholders = Endpoint.placeholders(in: path) else {
            throw fail("path has an unbalanced '{' or '}', or an empty placeholder: write '{name}'.")
        }
        for (header, value) in headers {
            guard HTTPValidation.isToken(header) else { throw fail("header '\(header)' is not an HTTP token.") }
            guard HTTPValidation.isHeaderValue(value) else {
                throw fail("header '\(header)' contains CR, LF or another control character.")
            }
        }
        for (key, ms) in [("timeout_ms", timeoutMs), ("connect_timeout_ms", connectTimeoutMs), ("idle_timeout_ms", idleTimeoutMs)] {
            if let ms, !(0...Int64(Int32.max)).contains(ms) {
                throw fail("\(key) must be between 0 and \(Int32.max), got \(ms).")
            }
        }
        if let cache, CachePolicy(name: cache) == nil {
            throw fail("cache must be a policy name (\(CachePolicy.names)), got \"\(cache)\".")
        }
        if let group, group.isEmpty { throw fail("group must be a name, got \"\".") }
        if let tls, let problem = Endpoint.problem(tls) { throw fail("tls.\(problem.0) \(problem.1)") }
        guard RequestFlags.all.isSuperset(of: flags) else { throw fail("flags has a bit that is not a request flag.") }
        self.name = name
        self.method = method.uppercased()
        self.path = path
        self.encoding = encoding
        self.headers = headers
        self.timeoutMs = timeoutMs
        self.connectTimeoutMs = connectTimeoutMs
        self.idleTimeoutMs = idleTimeoutMs
        self.envelope = envelopeSchema != nil ? true : envelope
        self.envelopeSchema = envelopeSchema
        self.flags = flags
        self.params = params
        self.retry = retry
        self.cache = cache
        self.group = group
        self.tls = tls
        self.placeholders = placeholders
    }

    /// Non-empty, no control characters (C0, DEL), valid text.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) }
    }

    /// The names between braces, or nil when braces do not pair up or a name is empty.
    static func placeholders(in path: String) -> [String]? {
        var names: [String] = []
        var current: String? = nil
        for ch in path {
            switch ch {
            case "{":
                guard current == nil else { return nil }
                current = ""
            case "}":
                guard let name = current, !name.isEmpty else { return nil }
                names.append(name)
                current = nil
            default:
                if current != nil { current?.append(ch) }
            }
        }
        return current == nil ? names : nil
    }

    /// `path` with each `{name}` replaced by `values[name]` (every name is there:
    /// `placeholders(in:)` found them).
    static func fill(_ path: String, _ values: [String: String]) -> String {
        var out = ""
        var current: String? = nil
        for ch in path {
            if ch == "{" { current = ""; continue }
            if ch == "}", let name = current { out += values[name] ?? ""; current = nil; continue }
            if current != nil { current?.append(ch) } else { out.append(ch) }
        }
        return out
    }

    /// `text` percent-encoded as one path segment: only unreserved characters stay;
    /// "." and ".." become "%2E" and "%2E%2E", so a value never moves up the path.
    static func pathSegment(_ text: String) -> String {
        if text == "." || text == ".." { return String(repeating: "%2E", count: text.count) }
        var segment: [UInt8] = []
        PercentEncoding.component(text, into: &segment)
        return String(decoding: segment, as: UTF8.self)
    }

    public static func == (a: Endpoint, b: Endpoint) -> Bool {
        a.name == b.name && a.method == b.method && a.path == b.path && a.encoding == b.encoding
            && a.headers.entries.elementsEqual(b.headers.entries, by: { $0.name == $1.name && $0.value == $1.value })
            && a.timeoutMs == b.timeoutMs && a.connectTimeoutMs == b.connectTimeoutMs
            && a.idleTimeoutMs == b.idleTimeoutMs && a.envelope == b.envelope && a.retry == b.retry
            && a.cache == b.cache && a.group == b.group && a.flags == b.flags && a.params == b.params
            && (a.envelopeSchema == nil) == (b.envelopeSchema == nil)
    }
}

// MARK: - The JSON form

extension Endpoint {
    /// The spec keys, in the order the reference lists them.
    static let specKeys = [
        "method", "path", "encoding", "headers", "timeout_ms", "connect_timeout_ms", "idle_timeout_ms", "envelope",
        "retry", "cache", "group", "tls", "flags", "params", "additional_params",
    ]
    /// The names of "flags", with their bits (`RequestFlags`).
    static let flagNames: [(String, RequestFlags)] = [
        ("skip_error_handler", .skipErrorHandler), ("no_coalesce", .noCoalesce), ("no_retry", .noRetry),
        ("idempotent", .idempotent), ("skip_auth", .skipAuth),
    ]
    /// The keys of a "retry" object (docs/configuration.md#retry-retry).
    static let retryKeys = RetryPolicy.keys
    /// The encodings a spec may name.
    static let encodingNames: [(String, ParameterEncoding)] = [("query", .query), ("form", .form), ("json", .json)]

    /// Parses a spec object: {"method","path","encoding","headers","timeout_ms",
    /// "connect_timeout_ms","idle_timeout_ms","envelope","retry","cache","group","tls",
    /// "flags","params","additional_params"}. Unknown keys and wrong types throw
    /// `invalidArgument` whose message is `label(key)` + what is wrong, e.g.
    /// "Configuration key 'endpoints.user.get.method' must be a string, got integer.".
    static func parse(
        name: String, spec raw: UnsafeMutablePointer<json_t>,
        label: (String) -> String
    ) throws(NetError) -> Endpoint {
        func fail(_ key: String, _ why: String) -> NetError { .invalidArgument("\(label(key)) \(why)") }
        guard raw.pointee.type == JSON_OBJECT else {
            throw NetError.invalidArgument("\(label("")) must be an object, got \(JSON.typeName(raw)).")
        }
        func string(_ key: String, _ v: UnsafeMutablePointer<json_t>) throws(NetError) -> String {
            guard let s = JSON.string(v), !s.utf8.contains(0) else {
                throw fail(key, "must be a string, got \(JSON.typeName(v)).")
            }
            return s
        }
        var method = "GET"
        var path: String? = nil
        var encoding = ParameterEncoding.default
        var headers = HeaderFields()
        var timeoutMs: Int64? = nil
        var connectTimeoutMs: Int64? = nil
        var idleTimeoutMs: Int64? = nil
        func milliseconds(_ key: String, _ v: UnsafeMutablePointer<json_t>) throws(NetError) -> Int64 {
            guard v.pointee.type == JSON_INTEGER else {
                throw fail(key, "must be an integer, got \(JSON.typeName(v)).")
            }
            let n = json_integer_value(v)
            guard (0...Int64(Int32.max)).contains(n) else {
                throw fail(key, "must be between 0 and \(Int32.max), got \(n).")
            }
            return n
        }
        var envelope: Bool? = nil
        var envelopeSchema: EnvelopeSchema? = nil
        var flags: RequestFlags = []
        var paramsSpec: UnsafeMutablePointer<json_t>? = nil
        var additional = true
        var retry: Retry? = nil
        var cache: String? = nil
        var group: String? = nil
        var tls: EndpointTLS? = nil
        for (key, v) in JSON.members(raw) {
            switch key {
            case "method":
                method = try string(key, v)
                guard HTTPValidation.isToken(method) else {
                    throw fail(key, "must be an HTTP token such as GET or POST, got \"\(method)\".")
                }
            case "path":
                path = try string(key, v)
            case "encoding":
                let text = try string(key, v)
                guard let e = encodingNames.first(where: { $0.0 == text })?.1 else {
                    throw fail(key, "must be \"query\", \"form\" or \"json\", got \"\(text)\".")
                }
                encoding = e
            case "headers":
                guard v.pointee.type == JSON_OBJECT else {
                    throw fail(key, "must be an object, got \(JSON.typeName(v)).")
                }
                for (h, hv) in JSON.members(v) {
                    let value = try string("headers.\(h)", hv)
                    guard HTTPValidation.isToken(h) else {
                        throw fail("headers.\(h)", "is not a header name (an HTTP token).")
                    }
                    guard HTTPValidation.isHeaderValue(value) else {
                        throw fail("headers.\(h)", "contains CR, LF or another control character.")
                    }
                    headers.set(h, value)
                }
            case "timeout_ms":
                timeoutMs = try milliseconds(key, v)
            case "connect_timeout_ms":
                connectTimeoutMs = try milliseconds(key, v)
            case "idle_timeout_ms":
                idleTimeoutMs = try milliseconds(key, v)
            case "envelope":
                switch v.pointee.type {
                case JSON_TRUE: envelope = true
                case JSON_FALSE, JSON_NULL: envelope = false
                case JSON_OBJECT:
                    switch Configuration.parseEnvelope(v, label: label(key)) {
                    case .success(let schema): envelopeSchema = schema
                    case .failure(let e): throw e
                    }
                default: throw fail(key, "must be true, false, null (raw) or an envelope object, got \(JSON.typeName(v)).")
                }
            case "flags":
                guard v.pointee.type == JSON_ARRAY else {
                    throw fail(key, "must be an array of flag names, got \(JSON.typeName(v)).")
                }
                for i in 0..<json_array_size(v) {
                    guard let item = json_array_get(v, i), let name = JSON.string(item),
                        let bit = flagNames.first(where: { $0.0 == name })?.1
                    else {
                        let known = flagNames.map { "\"\($0.0)\"" }.joined(separator: ", ")
                        throw fail(key, "item \(i) is not a flag name (\(known)).")
                    }
                    flags.insert(bit)
                }
            case "params":
                paramsSpec = v
            case "additional_params":
                switch v.pointee.type {
                case JSON_TRUE: additional = true
                case JSON_FALSE: additional = false
                default: throw fail(key, "must be true or false, got \(JSON.typeName(v)).")
                }
            case "retry":
                retry = try parseRetry(v, label)
            case "cache":
                cache = try string(key, v)
                if let name = cache, CachePolicy(name: name) == nil {
                    throw fail(key, "must be a policy name (\(CachePolicy.names)), got \"\(name)\".")
                }
            case "group":
                group = try string(key, v)
                if let g = group, !Request.isGroupName(g) {
                    let why = g.isEmpty ? "got \"\"" : "without control characters"
                    throw fail(key, "must be a group name, \(why).")
                }
            case "tls":
                tls = try parseTLS(v, fail)
            default:
                throw fail(key, "is unknown. Known: \(specKeys.joined(separator: ", ")).")
            }
        }
        guard let path else { throw fail("path", "is required (e.g. \"/users/{id}\").") }
        var params: ParamRules? = nil
        if let paramsSpec {
            params = try ParamRules.parse(paramsSpec, additional: additional, fail: fail)
        } else if !additional {
            params = ParamRules([:], additionalParams: false)
        }
        do throws(NetError) {
            return try Endpoint(
                name: name, method: method, path: path, encoding: encoding, headers: headers,
                timeoutMs: timeoutMs, envelope: envelope, retry: retry, cache: cache, group: group, tls: tls,
                connectTimeoutMs: connectTimeoutMs, idleTimeoutMs: idleTimeoutMs, envelopeSchema: envelopeSchema,
                flags: flags, params: params)
        } catch {
            throw fail("path", "is refused: \(error.message)")
        }
    }

    /// `false`, or an object of the retry keys with their types (RetryPolicy+JSON.swift).
    private static func parseRetry(
        _ v: UnsafeMutablePointer<json_t>,
        _ label: (String) -> String
    ) throws(NetError) -> Retry {
        if v.pointee.type == JSON_FALSE { return .disabled }
        guard v.pointee.type == JSON_OBJECT else {
            throw NetError.invalidArgument("\(label("retry")) must be an object or false, got \(JSON.typeName(v)).")
        }
        _ = try RetryPolicy.parsePatch(v) { key in label(key.isEmpty ? "retry" : "retry.\(key)") }
        return .policy(json: JSONValue(borrowing: v).text)
    }

    /// `retry` as the override requests naming this endpoint start from.
    var retryOverride: RetryOverride? {
        switch retry {
        case nil: return nil
        case .disabled: return .disabled
        case .policy(let json):
            var text = json
            return text.withUTF8 { try? RetryOverride.parse(json: UnsafeRawBufferPointer($0)) } ?? nil
        }
    }

    /// Parses the spec JSON text of nc_client_define_endpoint().
    public static func parse(name: String, json text: String) throws(NetError) -> Endpoint {
        guard isValidName(name) else {
            throw NetError.invalidArgument("An endpoint name must be non-empty, without control characters.")
        }
        let value: JSONValue
        switch JSONValue.parse(text) {
        case .success(let v): value = v
        case .failure(let f):
            throw NetError.invalidArgument(
                "Endpoint '\(name)': the spec is not valid JSON (line \(f.line), column \(f.column): \(f.reason)).")
        }
        return try parse(name: name, spec: value.raw) { key in
            key.isEmpty ? "Endpoint '\(name)': the spec" : "Endpoint '\(name)': key '\(key)'"
        }
    }
}
