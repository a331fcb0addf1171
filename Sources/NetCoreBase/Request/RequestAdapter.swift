/// Changes a request before each of its attempts (seam 1,
/// docs/contract.md#the-request-lifecycle): add a header, a token, a signature, a
/// query parameter (a timestamp, a nonce, a `sign=`), or replace the body (an
/// encrypted field).
/// Adapters run in the order they were added (`NetClient.addAdapter`), after the
/// common params and the token and before signing, again before every attempt (a
/// retried request is adapted afresh), but not per redirect hop (a hop belongs to its
/// attempt).
///
/// Threads: called on the thread that drives the transfer — the client's
/// transfer thread, or the caller's thread for `sendSync` — possibly on several
/// threads at once for different requests. No lock is held; do not block for
/// long, and do not wait for another request of the same client.
public protocol RequestAdapter: AnyObject, Sendable {
    /// Adapts `request`. Throwing fails the request with that error and sends
    /// nothing (`NetError.adapterFailed(_:)` is the usual one).
    func adapt(_ request: inout OutgoingRequest) throws(NetError)
}

// swift-format-ignore: UseSynthesizedInitializer
/// What one attempt is about to send, as a request adapter sees it: the method is
/// fixed; the headers, the query (`setQuery`) and the body (`setBody`) may be
/// changed, and the params the request was resolved with (`params`, after the
/// common params) read. Signing runs after every adapter, over what they produced.
public struct OutgoingRequest: Sendable {
    /// The method sent.
    public let method: String
    /// The full URL sent (query included, percent-encoded); `setQuery` changes it.
    public private(set) var url: String
    /// The encoded body, nil when there is none; `setBody` replaces it.
    public private(set) var body: NetBytes?
    /// The request's params as resolved (the common params included), before they
    /// were encoded into the query or the body; nil when it has none. Read-only:
    /// change what is sent with `setQuery` or `setBody`.
    public let params: JSONValue?
    /// 1 for the first attempt.
    public let attempt: Int32
    /// The headers to send (the client's defaults merged with the request's).
    public private(set) var headers: HeaderFields
    /// The adapters only appended headers under new names: `headers` is the
    /// request's own followed by theirs, from `headers.entries[baseCount]` on
    /// (PreparedRequest.adapted shares the request's header lines then).
    private(set) var onlyAppended = true
    /// How many headers the request had before the adapters ran.
    let baseCount: Int
    /// `setQuery` or `setBody` changed the URL or the body: the attempt's request
    /// is made again from them (PreparedRequest.rewritten).
    private(set) var urlChanged = false
    private(set) var bodyChanged = false

    // Explicit: the synthesized one would be private (`headers` has a private setter).
    init(
        method: String, url: String, body: NetBytes?, attempt: Int32, headers: HeaderFields, params: JSONValue? = nil
    ) {
        self.method = method
        self.url = url
        self.body = body
        self.params = params
        self.attempt = attempt
        self.headers = headers
        self.baseCount = headers.entries.count
    }

    /// Sets the query parameter `name` to `value` (every pair of that name is
    /// removed, then `name=value` appended, both percent-encoded as the library
    /// encodes params); nil only removes. Throws `.invalidArgument` (nothing
    /// changed) for an empty name or a NUL in either.
    public mutating func setQuery(_ name: String, _ value: String?) throws(NetError) {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw NetError.invalidArgument("query name must be non-empty, without NUL")
        }
        if let value, value.utf8.contains(0) { throw NetError.invalidArgument("query value must not contain NUL") }
        let encodedName = String(decoding: ParameterEncoder.urlEncoded([(name, "")]).dropLast(), as: UTF8.self)
        var head = Substring(url)
        var fragment: Substring = ""
        if let hash = url.firstIndex(of: "#") {
            head = url[..<hash]
            fragment = url[hash...]
        }
        var base = head
        var pairs: [Substring] = []
        if let q = head.firstIndex(of: "?") {
            base = head[..<q]
            pairs = head[head.index(after: q)...].split(separator: "&", omittingEmptySubsequences: true)
        }
        let before = pairs.count
        pairs.removeAll { pair in
            let n = pair.firstIndex(of: "=").map { pair[..<$0] } ?? pair
            return n == encodedName[...]
        }
        var query = pairs.joined(separator: "&")
        if let value {
            let added = String(decoding: ParameterEncoder.urlEncoded([(name, value)]), as: UTF8.self)
            query += query.isEmpty ? added : "&" + added
        } else if pairs.count == before {
            return
        }
        url = String(base) + (query.isEmpty ? "" : "?" + query) + String(fragment)
        urlChanged = true
    }

    /// Replaces the body with `bytes` (nil: no body) and, when `contentType` is
    /// given, the Content-Type header. Throws `.invalidArgument` (nothing changed)
    /// for a content type with CR, LF or another control character.
    public mutating func setBody(_ bytes: NetBytes?, contentType: String? = nil) throws(NetError) {
        if let contentType {
            guard HTTPValidation.isHeaderValue(contentType) else {
                throw NetError.invalidArgument("content type must not contain CR, LF or control characters")
            }
            if headers.setReporting("Content-Type", contentType) { onlyAppended = false }
            onlyAppended = false
        }
        body = bytes
        bodyChanged = true
    }

    /// Sets (nil: removes) a header. Throws `.invalidArgument` (nothing changed)
    /// for a name that is not an HTTP token, or a value with CR, LF or another
    /// control character.
    public mutating func setHeader(_ name: String, _ value: String?) throws(NetError) {
        guard HTTPValidation.isToken(name) else { throw NetError.invalidArgument("header name must be an HTTP token") }
        guard let value else {
            if headers.contains(name) {
                onlyAppended = false
                headers.remove(name)
            }
            return
        }
        guard HTTPValidation.isHeaderValue(value) else {
            throw NetError.invalidArgument("header value must not contain CR, LF or control characters")
        }
        if headers.setReporting(name, value) { onlyAppended = false }
    }

    /// Sets a header whose value the library produced and knows to be valid (a
    /// signature, a timestamp): only the name is checked.
    mutating func setHeader(_ name: String, trustedValue value: String) throws(NetError) {
        guard HTTPValidation.isToken(name) else { throw NetError.invalidArgument("header name must be an HTTP token") }
        if headers.setReporting(name, value) { onlyAppended = false }
    }

    /// A header's value (case-insensitive name), nil if absent.
    public func header(_ name: String) -> String? { headers[name] }
}

extension NetError {
    /// A request adapter refused the request: CLIENT `adapterFailed`
    /// (NC_CLIENT_ADAPTER_FAILED) with `message`; nothing was sent.
    public static func adapterFailed(_ message: String) -> NetError { client(.adapterFailed, message) }
}
