/// The one error a request can end with: a domain, a code and everything needed to
/// show, log or retry it. Immutable; safe to share across threads.
public struct NetError: Error, Sendable, CustomStringConvertible {
    /// The five error domains; raw values are the stable C numbers (NC_DOMAIN_*;
    /// Tests/CAPITests/HeaderAgreementTests.swift checks them against the header).
    public enum Domain: Int32, Sendable, CaseIterable {
        case client = 1, transport = 2, http = 3, api = 4, parse = 5

        /// The name used in logs, e.g. "NCAPIErrorDomain": the one place the five
        /// names are written. Static text, so that nc_error_domain_name() can hand
        /// out its bytes.
        package var staticName: StaticString {
            switch self {
            case .client: return "NCClientErrorDomain"
            case .transport: return "NCTransportErrorDomain"
            case .http: return "NCHTTPErrorDomain"
            case .api: return "NCAPIErrorDomain"
            case .parse: return "NCParseErrorDomain"
            }
        }

        /// The name used in logs, e.g. "NCAPIErrorDomain" (in `description` and
        /// `json`; nc_error_domain_name() returns the same text).
        public var name: String { staticName.description }
    }

    /// Codes of `Domain.client` (NC_CLIENT_*), append-only.
    public enum ClientCode: Int64, Sendable, CaseIterable {
        case cancelled = 1, unreachable = 2, invalidRequest = 3, invalidConfig = 4
        case responseTooLarge = 5, shutdown = 6, headersTooLarge = 7, internalError = 8
        /// A request adapter refused the request (nothing was sent).
        case adapterFailed = 9
        /// The request's deadline (deadline_ms) ran out, across its attempts and
        /// the waits between them; the message names the last attempt's error.
        case deadlineExceeded = 10
        /// The token refresh a request waited for failed (TokenRefresher.swift).
        case authRefreshFailed = 11
        /// CACHE_ONLY found no stored answer (Features/Cache); nothing was sent.
        case notCached = 12
        /// Stubs in "only" mode and no stub answers the request (Features/Stubs);
        /// nothing was sent. Since 0.4.
        case noStub = 13
    }

    /// Which time limit ended the request (`nc_error_json`'s "timeout").
    public enum TimeoutKind: String, Sendable, CaseIterable {
        /// connect_timeout_ms: no connection (TCP and TLS) in time.
        case connect
        /// timeout_ms: the attempt, its redirects included, took too long.
        case total
        /// idle_timeout_ms: no byte sent or received for that long (measured by the library, IdleWatch.swift).
        case idle
        /// deadline_ms: the request, across its attempts and waits, ran out of time.
        case deadline
    }

    /// Codes of `Domain.parse` (NC_PARSE_*), append-only.
    public enum ParseCode: Int64, Sendable, CaseIterable {
        case invalidJSON = 1, notObject = 2, missingField = 3, fieldType = 4
        /// The data did not match a Swift `Decodable` type (`Response.decode`);
        /// produced only by the Swift API.
        case decodingFailed = 5
        /// The body is JSON but an object of it has a key twice (envelope mode);
        /// the message names the key.
        case duplicateKey = 6
    }

    // The fields live in one object shared by copies until a copy changes one
    // (copy-on-write, as Array does): a NetError is one pointer, so the `NetError?`
    // every completion, decision and transfer carries (nil on success) is a null
    // check and a retain, not a hundred bytes copied and destroyed field by field.
    private var storage: Storage

    private final class Storage: @unchecked Sendable {   // changed only while unshared (`unique`)
        var domain: Domain
        var code: Int64
        var codeString: String
        var message: String
        var httpStatus: Int32 = 0
        var traceID: String? = nil
        var data: JSONValue? = nil
        var body: NetBytes? = nil
        var attempts: Int32 = 0
        var isRetryable: Bool = false
        var isAuthExpired: Bool = false
        var timeout: TimeoutKind? = nil
        var response: Response? = nil
        var userMessage: String? = nil
        var request: RequestIdentity? = nil

        init(domain: Domain, code: Int64, codeString: String, message: String) {
            self.domain = domain
            self.code = code
            self.codeString = codeString
            self.message = message
        }

        func copy() -> Storage {
            let c = Storage(domain: domain, code: code, codeString: codeString, message: message)
            c.httpStatus = httpStatus
            c.traceID = traceID
            c.data = data
            c.body = body
            c.attempts = attempts
            c.isRetryable = isRetryable
            c.isAuthExpired = isAuthExpired
            c.timeout = timeout
            c.response = response
            c.userMessage = userMessage
            c.request = request
            return c
        }
    }

    /// The storage, copied first if another NetError shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Which of the five domains the error belongs to.
    public var domain: Domain {
        get { storage.domain }
        set { unique().domain = newValue }
    }
    /// NC_CLIENT_* / CURLcode / HTTP status / business code (0 if not an integer) / NC_PARSE_*.
    public var code: Int64 {
        get { storage.code }
        set { unique().code = newValue }
    }
    /// The code as text; for API errors exactly as the server sent it.
    public var codeString: String {
        get { storage.codeString }
        set { unique().codeString = newValue }
    }
    /// What happened and what to do; never empty.
    public var message: String {
        get { storage.message }
        set { unique().message = newValue }
    }
    /// HTTP status of the response that produced the error, 0 if none.
    public var httpStatus: Int32 {
        get { storage.httpStatus }
        set { unique().httpStatus = newValue }
    }
    /// The server's trace id from the envelope, when it sent one.
    public var traceID: String? {
        get { storage.traceID }
        set { unique().traceID = newValue }
    }
    /// The envelope's data of a business error (nil when absent or null).
    public var data: JSONValue? {
        get { storage.data }
        set { unique().data = newValue }
    }
    /// The raw body of the response, if one was received.
    public var body: NetBytes? {
        get { storage.body }
        set { unique().body = newValue }
    }
    /// How many times the request was sent (0: never).
    public var attempts: Int32 {
        get { storage.attempts }
        set { unique().attempts = newValue }
    }
    /// Whether sending the same request again may succeed.
    public var isRetryable: Bool {
        get { storage.isRetryable }
        set { unique().isRetryable = newValue }
    }
    /// Business code listed in envelope.auth_expired_codes.
    public var isAuthExpired: Bool {
        get { storage.isAuthExpired }
        set { unique().isAuthExpired = newValue }
    }
    /// The time limit that ended the request, if one did (TRANSPORT 28 or CLIENT
    /// deadlineExceeded); nil otherwise.
    public var timeout: TimeoutKind? {
        get { storage.timeout }
        set { unique().timeout = newValue }
    }
    /// The response that produced the error (HTTP, API and PARSE errors), kept so a
    /// Swift caller can still read its status, headers and body. Set by the Swift
    /// async API (`NetClient.send(_:) async`) and `Response.decode`; nil otherwise
    /// (C callbacks receive the response as a separate argument).
    public var response: Response? {
        get { storage.response }
        set { unique().response = newValue }
    }

    /// The text for people the client's "messages" give this error
    /// (docs/errors.md#messages-for-people); nil when no key matches or none are
    /// configured. `message` stays the developer's text.
    public var userMessage: String? {
        get { storage.userMessage }
        set { unique().userMessage = newValue }
    }

    /// The request this error belongs to — method, URL (redacted as events show
    /// it), endpoint, the caller's label and task id — so a central handler can
    /// say which call failed (NetError+Request.swift). Set on every error a send
    /// delivers; nil on an error no request produced.
    public var request: RequestIdentity? {
        get { storage.request }
        set { unique().request = newValue }
    }

    /// An error of `domain` and `code` with `message` (`codeString`: the business code as the server wrote it).
    public init(domain: Domain, code: Int64, codeString: String? = nil, message: String) {
        storage = Storage(domain: domain, code: code, codeString: codeString ?? String(code), message: message)
    }

    public var description: String { "\(domain.name) \(codeString): \(message)" }

    // MARK: Client-domain constructors (the AsyncHTTPClient style)

    static func client(_ code: ClientCode, _ message: String) -> NetError {
        NetError(domain: .client, code: code.rawValue, message: message)
    }

    /// CLIENT 1: the request was cancelled.
    public static let cancelled = client(
        .cancelled, "The request was cancelled before it finished. No action needed unless the cancel was unexpected.")
    /// CLIENT 6: the client was shut down while the request was in flight.
    public static let shutdown = client(
        .shutdown,
        "The client was shut down (nc_client_free) while the request was running. Send it again on a live client.")

    /// CLIENT 3: the request cannot be sent, saying why.
    public static func invalidRequest(_ why: String) -> NetError { client(.invalidRequest, why) }
    /// A request or client argument was refused while building (nothing was changed
    /// or sent): CLIENT `invalidRequest`, like a request that cannot be sent.
    public static func invalidArgument(_ why: String) -> NetError { client(.invalidRequest, why) }
    /// CLIENT 4: the configuration is wrong, saying why.
    public static func invalidConfig(_ why: String) -> NetError { client(.invalidConfig, why) }
    /// CLIENT 8: libcurl could not be set up (out of memory), saying what failed.
    public static func internalError(_ why: String) -> NetError { client(.internalError, why) }

    /// CLIENT 5: the body exceeded limits.max_response_bytes (`limit`).
    public static func responseTooLarge(limit: Int) -> NetError {
        client(
            .responseTooLarge,
            "The response body exceeded limits.max_response_bytes (\(limit) bytes); the transfer was stopped. Raise the limit or fetch a smaller resource."
        )
    }

    /// CLIENT 7: the headers exceeded limits.max_header_count or max_header_bytes.
    public static func headersTooLarge(countLimit: Int, byteLimit: Int) -> NetError {
        client(
            .headersTooLarge,
            "The response headers exceeded limits.max_header_count (\(countLimit)) or limits.max_header_bytes (\(byteLimit)); the transfer was stopped."
        )
    }

    /// The deadline ran out after `attempts` attempts; `last` is the last one's error.
    static func deadlineExceeded(deadlineMs: Int64, attempts: Int32, last: NetError) -> NetError {
        var e = client(
            .deadlineExceeded,
            "The request's deadline (deadline_ms, \(deadlineMs) ms) ran out after \(attempts) attempt\(attempts == 1 ? "" : "s"); "
                + "the last one failed: \(last.message)")
        e.timeout = .deadline
        e.attempts = attempts
        e.httpStatus = last.httpStatus
        e.body = last.body
        return e
    }

    /// The deadline ran out while the request waited to be sent: held for the
    /// network (reachability), parked for a token refresh, or (at the edge) in a
    /// retry's delay.
    static func deadlineExceededWaiting(deadlineMs: Int64, attempts: Int32) -> NetError {
        var e = client(
            .deadlineExceeded,
            "The request's deadline (deadline_ms, \(deadlineMs) ms) ran out while it waited to be sent "
                + "(for the network, a token refresh or a retry's delay), after \(attempts) attempt"
                + "\(attempts == 1 ? "" : "s").")
        e.timeout = .deadline
        e.attempts = attempts
        return e
    }

    static func parse(_ code: ParseCode, _ message: String) -> NetError {
        NetError(domain: .parse, code: code.rawValue, message: message)
    }
}
