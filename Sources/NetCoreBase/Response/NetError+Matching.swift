/// Small helpers for telling errors apart in Swift, in the AsyncHTTPClient style:
///
/// ```swift
/// do {
///     let response = try await client.send(request)
/// } catch NetError.cancelled {
///     // the task was cancelled: nothing to show
/// } catch let error as NetError where error.matches(.api, code: 401001) {
///     // token expired: log in again
/// } catch let error as NetError {
///     show(error.message)
/// }
/// ```
///
/// Two errors *match* when they have the same domain and the same code as text
/// (`codeString`), so a server's `"E1001"` matches only `"E1001"`. Messages, HTTP
/// status, trace id and the other fields are ignored.
extension NetError {
    /// The request was cancelled (CLIENT domain, `ClientCode.cancelled`), including
    /// by Swift task cancellation.
    public var isCancelled: Bool { matches(.client, code: ClientCode.cancelled.rawValue) }

    /// The client was shut down before the request finished or could start
    /// (CLIENT domain, `ClientCode.shutdown`).
    public var isShutdown: Bool { matches(.client, code: ClientCode.shutdown.rawValue) }

    /// True when the error is in `domain` and, if `code` is given, has that numeric
    /// code (CURLcode, HTTP status, business code, NC_CLIENT_* or NC_PARSE_*).
    public func matches(_ domain: Domain, code: Int64? = nil) -> Bool {
        guard self.domain == domain else { return false }
        guard let code else { return true }
        return self.code == code
    }

    /// Pattern matching on a `NetError` value: `case NetError.cancelled:`.
    /// Compares domain and `codeString` only.
    public static func ~= (pattern: NetError, value: NetError) -> Bool {
        pattern.domain == value.domain && pattern.codeString == value.codeString
    }

    /// Pattern matching in an untyped `catch`: `catch NetError.shutdown { … }`.
    /// False for errors that are not `NetError`.
    public static func ~= (pattern: NetError, value: any Error) -> Bool {
        guard let error = value as? NetError else { return false }
        return pattern ~= error
    }

    /// A PARSE-domain `ParseCode.decodingFailed` error; `message` names the key path
    /// that failed (built by `Response.decode`).
    public static func decodingFailed(_ message: String) -> NetError {
        parse(.decodingFailed, message)
    }
}

extension NetError {
    /// "Not logged in / token expired": a business code listed in the envelope's
    /// `auth_expired_codes` (`isAuthExpired`), or HTTP 401. The one statement of the
    /// rule the auth-expired handler and the token refresher both follow.
    public var meansLoginExpired: Bool { isAuthExpired || httpStatus == 401 }
}
