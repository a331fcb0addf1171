/// One HTTP request as the caller describes it; `NetClient.send` copies it, so a
/// request value can be changed and sent again.
///
/// The fields live in one storage object shared by copies until one of them
/// changes (copy on write): handing a request to `send` costs one reference, not
/// one per field. Sending the same, unchanged value again reuses its resolved form
/// (`prepared`): every change gives the value a new, empty cache, so copies never
/// see each other's.
public struct Request: Sendable {
    /// The fields of a request value; changed only while one value holds it.
    private final class Storage: @unchecked Sendable {
        var method: String
        var target: String
        var headers = HeaderFields()
        var query: [(name: String, value: String)] = []
        var params: JSONValue? = nil
        var encoding: ParameterEncoding = .default
        var body: NetBytes? = nil
        var contentType: String? = nil
        var timeoutMs: Int64? = nil
        var outputPath: String? = nil
        /// Progress and body callbacks (Request+Transfers.swift); nil: none.
        var transferCallbacks: TransferCallbacks? = nil
        var envelope: Bool? = nil
        var flags: RequestFlags = []
        /// The catalog endpoint this request names (EndpointCatalog.swift); nil: a plain request.
        var endpoint: String? = nil
        var maxRedirects: Int? = nil
        var group: String? = nil
        /// The caller's name for this request (`setLabel`): carried by its errors and events.
        var label: String? = nil
        /// Retry, deadline and the other time limits (Request+Resilience.swift).
        var resilience = RequestResilience()
        /// Cache policy and cached callback (Request+Cache.swift).
        var cache = RequestCacheOptions()
        /// A body from a file, or multipart parts (Request+Upload.swift).
        var upload: Upload? = nil
        /// The resolved form of this value, filled by its first send (see PreparedCache).
        var prepared = PreparedCache()

        init(method: String, target: String) {
            self.method = method
            self.target = target
        }

        func copy() -> Storage {
            let c = Storage(method: method, target: target)
            c.headers = headers
            c.query = query
            c.params = params
            c.encoding = encoding
            c.body = body
            c.contentType = contentType
            c.timeoutMs = timeoutMs
            c.outputPath = outputPath
            c.transferCallbacks = transferCallbacks
            c.envelope = envelope
            c.flags = flags
            c.endpoint = endpoint
            c.maxRedirects = maxRedirects
            c.group = group
            c.label = label
            c.resilience = resilience
            c.cache = cache
            c.upload = upload
            return c
        }
    }

    private var storage: Storage

    /// The storage, held by this value alone and with a fresh cache: every change
    /// goes through here.
    private mutating func changing() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        storage.prepared = PreparedCache()
        return storage
    }

    /// The resolved form of this value, filled by its first send (see PreparedCache).
    var prepared: PreparedCache { storage.prepared }

    /// The HTTP method (upper-cased token); compare with `.get` or `"GET"`.
    public var method: Method { Method(upperCased: storage.method) }
    /// A path joined to the client's base URL, or an absolute http(s) URL.
    public var target: String { storage.target }
    /// This request's headers (they win over the client's defaults).
    public var headers: HeaderFields { storage.headers }
    /// Query parameters in order; names may repeat.
    public var query: [(name: String, value: String)] { storage.query }
    /// Parameters (a JSON object). A JSON body (`.json`) sends every null as written,
    /// at every depth; the query and a form leave nulls out, as they cannot write one.
    public var params: JSONValue? { storage.params }
    /// How params are encoded (`.default`: query for GET/HEAD/DELETE/OPTIONS, form otherwise).
    public var encoding: ParameterEncoding {
        get { storage.encoding }
        set { changing().encoding = newValue }
    }
    /// A raw body, sent as is (exclusive with `params`).
    public var body: NetBytes? { storage.body }
    /// The raw body's Content-Type, nil for none.
    public var contentType: String? { storage.contentType }
    /// Total timeout in ms overriding the client's (0 = none); nil = the client's.
    /// Set with `setTimeout(ms:)`.
    public var timeoutMs: Int64? { storage.timeoutMs }
    /// Write the body of a 2xx response to this file (created or truncated when the
    /// request starts) instead of memory; the response's body is then empty, the
    /// request is read in raw mode, and limits.max_response_bytes does not apply.
    /// Bodies of other statuses (errors, redirect hops) stay in memory. nil = memory.
    /// Set with `setOutputPath(_:)`.
    public var outputPath: String? { storage.outputPath }
    /// Progress and body callbacks (Request+Transfers.swift).
    package internal(set) var transferCallbacks: TransferCallbacks? {
        get { storage.transferCallbacks }
        set { changing().transferCallbacks = newValue }
    }
    /// Envelope validation on/off overriding the client's; nil = the client's.
    public var envelope: Bool? {
        get { storage.envelope }
        set { changing().envelope = newValue }
    }
    /// Redirects this request follows, overriding the client's limits.max_redirects
    /// (clamped to 0...100); 0: none are followed and a 3xx is the response.
    /// nil = the client's.
    public var maxRedirects: Int? {
        get { storage.maxRedirects }
        set { changing().maxRedirects = newValue }
    }

    /// The cancellation group this request belongs to (`NetClient.cancelGroup`);
    /// nil: none (an endpoint's group applies then).
    public var group: String? { storage.group }

    /// Puts the request in cancellation group `name` (nil: none). Throws
    /// `.invalidArgument` (nothing changed) for an empty name or one with control
    /// characters.
    public mutating func setGroup(_ name: String?) throws(NetError) {
        if let name { try Request.checkGroupName(name) }
        changing().group = name
    }

    /// A cancellation group's name is non-empty and has no control character (C0 or
    /// DEL): the one rule of `setGroup`, an endpoint's "group" and
    /// `NetClient.cancelGroup`, so a name one refuses never matches in another.
    static func isGroupName(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f })
    }

    /// Throws `.invalidArgument` unless `isGroupName(name)`.
    static func checkGroupName(_ name: String) throws(NetError) {
        guard isGroupName(name) else {
            throw NetError.invalidArgument("a group name must be non-empty, without control characters")
        }
    }

    /// The caller's name for this request ("checkout.submit", a screen's name): its
    /// errors carry it (`NetError.request`), and its events and log lines name it.
    /// nil: none. Set with `setLabel(_:)`.
    public var label: String? { storage.label }

    /// Names the request for its errors, events and log lines (nil: none). Throws
    /// `.invalidArgument` (nothing changed) for an empty label or one with control
    /// characters, the rule of a group's name.
    public mutating func setLabel(_ label: String?) throws(NetError) {
        if let label, !Request.isGroupName(label) {
            throw NetError.invalidArgument("a label must be non-empty, without control characters")
        }
        changing().label = label
    }

    /// Retry and time limits overriding the client's (Request+Resilience.swift).
    var resilience: RequestResilience {
        get { storage.resilience }
        set { changing().resilience = newValue }
    }

    /// How this request uses the client's cache (Request+Cache.swift).
    var cacheOptions: RequestCacheOptions {
        get { storage.cache }
        set { changing().cache = newValue }
    }

    /// A body streamed from a file, or multipart/form-data parts (Request+Upload.swift);
    /// setting one clears params and a raw body, and setting those clears it.
    public internal(set) var upload: Upload? {
        get { storage.upload }
        set {
            let s = changing()
            s.upload = newValue
            if newValue != nil {
                s.body = nil
                s.params = nil
                s.contentType = nil
            }
        }
    }

    /// Per-request switches (RequestFlags, Request+Flags.swift).
    public var flags: RequestFlags {
        get { storage.flags }
        set { changing().flags = newValue }
    }

    /// The endpoint of the client's catalog this request names, resolved at send
    /// (its method and path replace `method` and `target`); nil: a plain request.
    public var endpoint: String? { storage.endpoint }

    /// A request naming an endpoint (see `init(endpoint:params:)`); `name` is checked there.
    init(endpointNamed name: String) {
        storage = Storage(method: "GET", target: "/")
        storage.endpoint = name
    }

    /// Fails with `.invalidArgument` for a method that is not a token or a target
    /// with spaces, control characters or a scheme other than http/https.
    public init(method: String, target: String) throws(NetError) {
        guard HTTPValidation.isToken(method) else {
            throw NetError.invalidArgument("method must be an HTTP token (e.g. GET, POST) without spaces, CR or LF")
        }
        guard HTTPValidation.isURLText(target) else {
            throw NetError.invalidArgument(
                "path or URL must be non-empty, without spaces, CR, LF or control characters")
        }
        if HTTPValidation.hasScheme(target) && !HTTPValidation.isAbsoluteHTTP(target) {
            throw NetError.invalidArgument("only http:// and https:// URLs are allowed")
        }
        storage = Storage(method: method.uppercased(), target: target)
    }

    /// Sets (replaces) a header; nil removes it.
    public mutating func setHeader(_ name: String, _ value: String?) throws(NetError) {
        guard HTTPValidation.isToken(name) else { throw NetError.invalidArgument("header name must be an HTTP token") }
        guard let value else { changing().headers.remove(name); return }
        guard HTTPValidation.isHeaderValue(value) else {
            throw NetError.invalidArgument("header value must not contain CR, LF or control characters")
        }
        changing().headers.set(name, value)
    }

    /// Appends a query parameter; nil removes every parameter of that name.
    public mutating func setQuery(_ name: String, _ value: String?) throws(NetError) {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw NetError.invalidArgument("query name must be non-empty")
        }
        guard let value else { changing().query.removeAll { $0.name == name }; return }
        guard !value.utf8.contains(0) else { throw NetError.invalidArgument("query value must not contain NUL") }
        changing().query.append((name, value))
    }

    /// Sets params from a JSON object (copied). Clears a raw body.
    ///
    /// A `null` member is data: a JSON body sends it as written, at every depth
    /// (`{"nickname": null}` clears a field in a PATCH); the query and a form
    /// leave it out. Params are JSON, not an `Encodable`: a Swift optional that
    /// should be absent rather than null is simply not written into the object
    /// (as `Encodable`'s synthesized `encodeIfPresent` leaves a nil out).
    public mutating func setParams(_ object: JSONValue) throws(NetError) {
        guard object.isObject else { throw NetError.invalidArgument("params must be a JSON object") }
        guard object.depth(limit: Request.maxParamsDepth) <= Request.maxParamsDepth else {
            throw NetError.invalidArgument("params are nested deeper than \(Request.maxParamsDepth)")
        }
        guard let copy = object.deepCopy() else {
            throw NetError.invalidArgument("params could not be copied (out of memory)")
        }
        let s = changing()
        s.params = copy
        s.body = nil
        s.contentType = nil
        s.upload = nil
    }

    /// Sets params from JSON text. Clears a raw body.
    public mutating func setParams(json text: UnsafeRawBufferPointer) throws(NetError) {
        switch JSONValue.parse(text) {
        case .success(let value): try setParams(value)
        case .failure(let f):
            throw NetError.invalidArgument(
                "params are not valid JSON (line \(f.line), column \(f.column): \(f.reason))")
        }
    }

    /// Sets a raw body (copied) and its content type. Clears params.
    public mutating func setBody(_ bytes: UnsafeRawBufferPointer, contentType: String?) throws(NetError) {
        if let contentType, !HTTPValidation.isHeaderValue(contentType) {
            throw NetError.invalidArgument("content type must not contain CR, LF or control characters")
        }
        let s = changing()
        s.body = NetBytes(bytes: bytes)
        s.contentType = contentType
        s.params = nil
        s.upload = nil
    }

    /// Sets the total timeout in ms, overriding the client's timeout_ms: 0 = no
    /// limit, nil = the client's. A negative value is refused (nothing changes).
    public mutating func setTimeout(ms: Int64?) throws(NetError) {
        if let ms, ms < 0 { throw NetError.invalidArgument("timeout must be 0 (no limit) or more milliseconds") }
        changing().timeoutMs = ms
    }

    /// Streams the body of a 2xx response into the file at `path` instead of
    /// memory (see `outputPath`); nil goes back to memory. An empty path, or one
    /// containing NUL, is refused (nothing changes).
    public mutating func setOutputPath(_ path: String?) throws(NetError) {
        if let path, path.isEmpty || path.utf8.contains(0) {
            throw NetError.invalidArgument("output path must be non-empty, without NUL")
        }
        changing().outputPath = path
    }

    /// Parameters nested deeper than this are refused (jansson's copy and dump recurse).
    public static let maxParamsDepth = 512
}

/// How params are encoded; raw values are the C numbers (NC_ENCODING_*).
public enum ParameterEncoding: Int32, Sendable, CaseIterable {
    /// Query for GET, HEAD, DELETE and OPTIONS; form for the others.
    case `default` = 0
    /// Appended to the URL's query; nulls are left out (a query cannot write one).
    case query = 1
    /// An `application/x-www-form-urlencoded` body; nulls are left out.
    case form = 2
    /// An `application/json` body: the object as written, nulls included.
    case json = 3
}

/// Building a request throws the same `NetError` as sending one (CLIENT domain,
/// `invalidRequest`), so one `catch let e as NetError` covers both.
@available(*, deprecated, renamed: "NetError", message: "request building throws NetError (.client, .invalidRequest)")
public typealias RequestError = NetError
