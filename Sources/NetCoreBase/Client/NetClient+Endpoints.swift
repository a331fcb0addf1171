/// The endpoint catalog of a client (docs/configuration.md#endpoints): named, discrete
/// APIs ("user.login", "user.get") defined in the configuration ("endpoints") or here,
/// and requests that name them.
///
/// The catalog lives in the client's settings snapshot: defining an endpoint
/// installs a new snapshot (requests already sent keep theirs), and a request
/// naming an endpoint is resolved at send, then cached with the snapshot like any
/// unchanged request. Every method may be called from any thread, including from
/// inside a completion.
extension NetClient {
    /// The endpoints requests sent now are resolved against.
    public var endpoints: EndpointCatalog { currentSettings.config.endpoints }

    /// Defines `endpoint`, replacing one of the same name, for requests sent from now on.
    public func define(_ endpoint: Endpoint) {
        changeConfiguration { $0.endpoints.define(endpoint) }
    }

    /// Defines the endpoint `name` from its JSON spec (the form of the
    /// configuration's "endpoints" values). A bad spec throws CLIENT
    /// `invalidRequest` naming the key, and changes nothing.
    public func defineEndpoint(_ name: String, json spec: String) throws(NetError) {
        define(try Endpoint.parse(name: name, json: spec))
    }
}

extension Request {
    /// A request naming an endpoint of the client's catalog, resolved when sent:
    /// the endpoint's method, its path with `{placeholders}` filled from `params`
    /// (and removed from them), the remaining params encoded per the endpoint.
    /// Settings made on the request (headers, query, timeout, envelope, encoding)
    /// win over the endpoint's. An unknown name or a missing placeholder completes
    /// the send with CLIENT `invalidRequest` naming it; nothing is sent.
    /// Throws `invalidArgument` for an empty name, one with control characters, or
    /// params that are not a JSON object.
    public init(endpoint name: String, params: JSONValue? = nil) throws(NetError) {
        guard Endpoint.isValidName(name) else {
            throw NetError.invalidArgument("An endpoint name must be non-empty, without control characters.")
        }
        self.init(endpointNamed: name)
        if let params { try setParams(params) }
    }
}
