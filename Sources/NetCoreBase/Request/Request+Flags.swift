/// Per-request switches (nc_request_set_flags): `skipErrorHandler` (hooks),
/// `noCoalesce` (coalescing), `noRetry` and `idempotent` (retry), `skipAuth` (token
/// refresh).
public struct RequestFlags: OptionSet, Sendable, Hashable {
    /// The C value (NC_REQUEST_* bits).
    public let rawValue: UInt32
    /// Flags from their C bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The client's error handler is not called for this request's failure.
    public static let skipErrorHandler = RequestFlags(rawValue: 1)
    /// Never shares a transfer with an identical request in flight (coalescing,
    /// NetClient+Coalescing.swift): sent on its own even when `coalesce` is on.
    public static let noCoalesce = RequestFlags(rawValue: 2)
    /// One attempt whatever the client's retry policy.
    public static let noRetry = RequestFlags(rawValue: 4)
    /// May be retried whatever its method.
    public static let idempotent = RequestFlags(rawValue: 8)
    /// Neither held by nor triggering a token refresh (the refresh call itself).
    public static let skipAuth = RequestFlags(rawValue: 16)

    /// Every defined flag; other bits are refused.
    public static let all: RequestFlags = [.skipErrorHandler, .noCoalesce, .noRetry, .idempotent, .skipAuth]
}
