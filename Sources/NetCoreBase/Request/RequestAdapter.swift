/// Changes a request before each of its attempts (seam 1,
/// docs/contract.md#the-request-lifecycle): add a header, a token, a signature.
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
/// What one attempt is about to send, as a request adapter sees it: the method,
/// the full URL (query included, percent-encoded) and the body are fixed; the
/// headers may be changed.
public struct OutgoingRequest: Sendable {
    /// The method sent.
    public let method: String
    /// The full URL sent (query included, percent-encoded).
    public let url: String
    /// The encoded body, nil when there is none.
    public let body: NetBytes?
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

    // Explicit: the synthesized one would be private (`headers` has a private setter).
    init(method: String, url: String, body: NetBytes?, attempt: Int32, headers: HeaderFields) {
        self.method = method
        self.url = url
        self.body = body
        self.attempt = attempt
        self.headers = headers
        self.baseCount = headers.entries.count
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
