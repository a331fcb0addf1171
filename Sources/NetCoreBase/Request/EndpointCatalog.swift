import CJansson

/// The endpoints a client knows, by name: part of the client's settings snapshot
/// (ClientSettings), so defining one replaces the snapshot and a request resolved
/// against an unchanged catalog stays cached (PreparedCache).
///
/// `resolve` is pure: it turns a request naming an endpoint into the plain request
/// it stands for, or into the CLIENT `invalidRequest` error it completes with.
public struct EndpointCatalog: Sendable {
    /// The endpoints by name.
    public private(set) var endpoints: [String: Endpoint] = [:]

    /// A catalog of `endpoints` (a later one of the same name replaces an earlier).
    public init(_ endpoints: [Endpoint] = []) {
        for e in endpoints { self.endpoints[e.name] = e }
    }

    /// No endpoint is defined.
    public var isEmpty: Bool { endpoints.isEmpty }

    /// The endpoint named `name`, nil if there is none.
    public subscript(name: String) -> Endpoint? { endpoints[name] }

    /// Adds `endpoint`, replacing one of the same name.
    public mutating func define(_ endpoint: Endpoint) { endpoints[endpoint.name] = endpoint }

    /// The plain request `request` (which names an endpoint) stands for: the
    /// endpoint's method; its path with each `{placeholder}` replaced by the param
    /// of that name, percent-encoded as one path segment, and removed from the
    /// params; the remaining params, query, body and output file of the request;
    /// headers, timeout, envelope and encoding from the request where it sets
    /// them, else the endpoint's; the request's flags, redirect limit, time limits,
    /// and its retry override merged over the endpoint's "retry"; its flags and
    /// the endpoint's. A request whose params break the endpoint's declarations
    /// ("params") fails first, naming the parameter and the rule.
    func resolve(_ request: Request) -> Result<Request, NetError> {
        guard let name = request.endpoint else { return .success(request) }
        guard let endpoint = endpoints[name] else {
            return .failure(
                .invalidRequest(
                    "Unknown endpoint '\(name)': define it in the configuration's \"endpoints\" or with nc_client_define_endpoint() before sending."
                ))
        }
        // The declared parameters, before anything else looks at the request.
        if let rules = endpoint.params,
            let problem = rules.problem(request.params, endpoint: name, placeholders: endpoint.placeholders)
        {
            return .failure(.invalidRequest(problem))
        }
        var remaining: JSONValue? = request.params
        var path = endpoint.path
        if !endpoint.placeholders.isEmpty {
            guard let copy = request.params?.deepCopy() ?? JSONValue.emptyObject() else {
                return .failure(.internalError("Out of memory while filling the path of endpoint '\(name)'."))
            }
            var values: [String: String] = [:]
            for placeholder in endpoint.placeholders where values[placeholder] == nil {
                guard let value = json_object_get(copy.raw, placeholder), value.pointee.type != JSON_NULL else {
                    return .failure(
                        .invalidRequest(
                            "Endpoint '\(name)' needs the parameter '\(placeholder)' for its path '\(endpoint.path)'; add it to the params."
                        ))
                }
                guard let text = JSON.scalarText(value) else {
                    return .failure(
                        .invalidRequest(
                            "Endpoint '\(name)': the parameter '\(placeholder)' fills the path '\(endpoint.path)' and must be a string, number or boolean, got \(JSON.typeName(value))."
                        ))
                }
                guard !text.isEmpty else {
                    return .failure(
                        .invalidRequest(
                            "Endpoint '\(name)': the parameter '\(placeholder)' fills the path '\(endpoint.path)' and must not be empty."
                        ))
                }
                values[placeholder] = Endpoint.pathSegment(text)
                json_object_del(copy.raw, placeholder)
            }
            path = Endpoint.fill(endpoint.path, values)
            remaining = json_object_size(copy.raw) > 0 ? copy : nil
        }
        do throws(NetError) {
            var out = try Request(method: endpoint.method, target: path)
            var headers = endpoint.headers
            for (h, v) in request.headers { headers.set(h, v) }
            for (h, v) in headers { try out.setHeader(h, v) }
            for (q, v) in request.query { try out.setQuery(q, v) }
            if let remaining { try out.setParams(remaining) }
            if let body = request.body { try out.setBody(body.bytes, contentType: request.contentType) }
            if let upload = request.upload { out.upload = upload }
            out.encoding = request.encoding != .default ? request.encoding : endpoint.encoding
            try out.setTimeout(ms: request.timeoutMs ?? endpoint.timeoutMs)
            out.envelope = request.envelope ?? endpoint.envelope
            try out.setOutputPath(request.outputPath)
            out.transferCallbacks = request.transferCallbacks
            // What the request sets wins over the endpoint's.
            try out.setGroup(request.group ?? endpoint.group)
            out.flags = request.flags.union(endpoint.flags)
            out.maxRedirects = request.maxRedirects
            // Retry: the endpoint's "retry", then the request's own over it.
            var resilience = request.resilience
            if let own = endpoint.retryOverride { resilience.retry = own.then(request.resilience.retry) }
            resilience.connectTimeoutMs = resilience.connectTimeoutMs ?? endpoint.connectTimeoutMs
            resilience.idleTimeoutMs = resilience.idleTimeoutMs ?? endpoint.idleTimeoutMs
            out.resilience = resilience
            // Cache: the request's own policy, else the endpoint's (checked when defined).
            var cache = request.cacheOptions
            if cache.policy == nil { cache.policy = endpoint.cache.flatMap(CachePolicy.init(name:)) }
            out.cacheOptions = cache
            return .success(out)
        } catch {
            return .failure(.invalidRequest("Endpoint '\(name)' gives a request that cannot be sent: \(error.message)"))
        }
    }
}

extension JSONValue {
    /// A new empty object; nil if out of memory.
    static func emptyObject() -> JSONValue? { json_object().map { JSONValue(owning: $0) } }
}

extension PreparedRequest {
    /// `make` for a request naming an endpoint: resolved against the snapshot's
    /// catalog, then prepared as a plain request (PreparedCache keeps the result
    /// for this snapshot).
    static func makeEndpoint(_ request: Request, _ settings: ClientSettings) -> Result<PreparedRequest, NetError> {
        switch settings.config.endpoints.resolve(request) {
        case .success(let plain):
            let name = request.endpoint
            let made = make(
                plain, settings, connection: name.flatMap { settings.endpointConnections[$0] },
                envelope: settings.endpointEnvelopes.isEmpty ? nil : name.flatMap { settings.endpointEnvelopes[$0] })
            if case .success(let p) = made {
                p.endpointName = name
                p.label = request.label
            }
            return made
        case .failure(let e): return .failure(e)
        }
    }
}
