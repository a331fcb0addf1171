/// Where the business result sits in a JSON envelope, and when it means success.
/// Parsed from the configuration's "envelope" object; every field name may be
/// null to say the envelope has no such field. Defaults: the table of keys
/// (ConfigurationKeys.swift).
public struct EnvelopeSchema: Sendable {
    /// Field holding the business code. Default "code".
    public var codeField: String? = ConfigKey.envelopeCode.defaultText
    /// Codes meaning success, compared as text ("0" ≡ 0). Default [0], or [] when
    /// `successField` is set and "ok_codes" is not given. Empty: the code is not a
    /// success condition (it is still reported on failure).
    public var okCodes: [String] = ConfigKey.envelopeOkCodes.defaultList
    /// Field that must be JSON true for success. Default null (not used).
    public var successField: String? = ConfigKey.envelopeSuccess.defaultText
    /// Field whose value must be in `okStatuses` for success. Default null.
    public var statusField: String? = ConfigKey.envelopeStatus.defaultText
    /// Status values meaning success, compared as text. Default [].
    public var okStatuses: [String] = ConfigKey.envelopeOkStatus.defaultList
    /// Field holding the message. Default "msg".
    public var messageField: String? = ConfigKey.envelopeMessage.defaultText
    /// Field holding the business data. Default "data".
    public var dataField: String? = ConfigKey.envelopeData.defaultText
    /// Field holding the trace id. Default "traceId".
    public var traceIDField: String? = ConfigKey.envelopeTraceID.defaultText
    /// Business codes meaning "not logged in / token expired". Default [].
    public var authExpiredCodes: [String] = ConfigKey.envelopeAuthExpiredCodes.defaultList

    /// The default envelope: `code` (0 is success), `msg`, `data`.
    public init() {}

    /// The code is a success condition.
    var checksCode: Bool { codeField != nil && !okCodes.isEmpty }
}
