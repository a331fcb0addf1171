import CJansson

#if canImport(Glibc)
import Glibc
#endif

/// An envelope schema made ready for the hot path once per client settings
/// snapshot: field names as C strings for jansson lookups (no String → C string
/// bridging per response), and success codes as integers as well as text, so an
/// integer code is checked without formatting it. Same rules as `EnvelopeSchema`.
final class CompiledEnvelope: @unchecked Sendable {
    let schema: EnvelopeSchema
    let codeField: CString?
    let successField: CString?
    let statusField: CString?
    let dataField: CString?
    /// "data": "" — the data is the whole body (the envelope object itself).
    let dataIsBody: Bool
    /// `schema.okCodes` / `okStatuses`, each as C text and, where the text is an
    /// integer written canonically ("0", "-3", not "00" or "+1"), as that integer.
    private let okCodes: Accepted
    private let okStatuses: Accepted

    init(_ schema: EnvelopeSchema) {
        self.schema = schema
        codeField = schema.codeField.map(CString.init)
        successField = schema.successField.map(CString.init)
        statusField = schema.statusField.map(CString.init)
        dataField = schema.dataField.map(CString.init)
        dataIsBody = schema.dataField?.isEmpty == true
        okCodes = Accepted(schema.okCodes)
        okStatuses = Accepted(schema.okStatuses)
    }

    /// The code is a success condition.
    var checksCode: Bool { codeField != nil && !schema.okCodes.isEmpty }

    func isOKCode(_ v: UnsafeMutablePointer<json_t>) -> Bool { okCodes.contains(v) }
    func isOKStatus(_ v: UnsafeMutablePointer<json_t>) -> Bool { okStatuses.contains(v) }

    /// A set of accepted scalar values, compared as text ("0" ≡ 0).
    private struct Accepted {
        let texts: [String]
        let integers: [Int64]
        let cTexts: [CString]

        init(_ texts: [String]) {
            self.texts = texts
            integers = texts.compactMap { t in Int64(t).flatMap { String($0) == t ? $0 : nil } }
            cTexts = texts.map(CString.init)
        }

        func contains(_ v: UnsafeMutablePointer<json_t>) -> Bool {
            switch v.pointee.type {
            case JSON_INTEGER:
                return integers.contains(json_integer_value(v))
            case JSON_STRING:
                guard let s = json_string_value(v) else { return false }
                let n = json_string_length(v)
                // A string with a NUL inside never equals a configured code.
                return cTexts.contains { $0.count == n && memcmp($0.pointer, s, n) == 0 }
            default:
                return JSON.scalarText(v).map(texts.contains) == true
            }
        }
    }
}
