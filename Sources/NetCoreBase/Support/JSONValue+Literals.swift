import CJansson

/// JSON written as Swift literals, for params (`Request.Chain.params(_:)`,
/// `setParams(_:)`) and queries:
///
/// ```swift
/// let params: JSONValue = ["name": "Ada", "age": 36, "tags": ["a", "b"], "nickname": nil]
/// // {"name":"Ada","age":36,"tags":["a","b"]}: the nil is left out
/// let clear: JSONValue = ["nickname": .null]   // {"nickname":null}: a JSON null, sent
/// ```
///
/// The nil-parameter rule (docs/configuration.md, "Request parameters"): a Swift
/// `nil` is *absent* — a dictionary literal leaves the member out, as `Encodable`'s
/// synthesized `encodeIfPresent` does — while `JSONValue.null` is data, sent as
/// written by a JSON body and left out by the query and a form, which cannot write it.
/// A value that cannot be made (memory ran out) is JSON null.
extension JSONValue: ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    /// JSON null, as data (not "absent": see the rule above).
    public static var null: JSONValue { JSONValue(owning: json_null()) }

    public convenience init(dictionaryLiteral elements: (String, JSONValue?)...) {
        self.init(owning: JSONValue.object(elements))
    }

    public convenience init(arrayLiteral elements: JSONValue...) {
        self.init(owning: JSONValue.array(elements))
    }

    public convenience init(stringLiteral value: String) { self.init(value) }
    public convenience init(integerLiteral value: Int64) { self.init(value) }
    /// A JSON real; a non-finite value is JSON null (JSON has none).
    public convenience init(floatLiteral value: Double) { self.init(value) }
    /// `true` or `false`.
    public convenience init(booleanLiteral value: Bool) { self.init(value) }

    /// A JSON string.
    public convenience init(_ value: String) { self.init(owning: JSONValue.string(value) ?? json_null()) }

    /// A new jansson string of `value` (NUL bytes included), nil if memory ran out.
    static func string(_ value: String) -> UnsafeMutablePointer<json_t>? {
        var s = value
        let empty: StaticString = ""
        return s.withUTF8 { buf in
            let base = buf.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(empty.utf8Start)
            return json_stringn(base.assumingMemoryBound(to: CChar.self), buf.count)
        }
    }

    /// A JSON integer.
    public convenience init(_ value: Int64) { self.init(owning: json_integer(value) ?? json_null()) }
    /// A JSON integer.
    public convenience init(_ value: Int) { self.init(Int64(value)) }
    /// A JSON real; a non-finite value is JSON null (JSON has none).
    public convenience init(_ value: Double) {
        self.init(owning: (value.isFinite ? json_real(value) : nil) ?? json_null())
    }
    /// `true` or `false`.
    public convenience init(_ value: Bool) { self.init(owning: (value ? json_true() : json_false()) ?? json_null()) }

    /// An object of these members in order; nil values are left out, a key given twice
    /// keeps its last value.
    public convenience init(members: [(String, JSONValue?)]) { self.init(owning: JSONValue.object(members)) }

    private static func object(_ elements: [(String, JSONValue?)]) -> UnsafeMutablePointer<json_t> {
        guard let o = json_object() else { return json_null() }
        for (key, value) in elements {
            guard let value else { continue }
            _ = json_object_set(o, key, value.raw)
        }
        return o
    }

    private static func array(_ elements: [JSONValue]) -> UnsafeMutablePointer<json_t> {
        guard let a = json_array() else { return json_null() }
        for value in elements { _ = json_array_append(a, value.raw) }
        return a
    }

    /// The query or form pairs of an object, as params are sent (`ParameterEncoder`):
    /// arrays repeat the key, nested objects use brackets, nulls are left out; nil
    /// when this is not an object.
    package var parameterPairs: [(String, String)]? { isObject ? ParameterEncoder.pairs(self) : nil }
}
