import CJansson

/// Decodes `Decodable` Swift values straight from jansson values — no Foundation,
/// no round trip through JSON text.
///
/// ```swift
/// struct User: Decodable { let id: Int; let name: String; let email: String? }
/// let user = try JSONValueDecoder().decode(User.self, from: value)
/// ```
///
/// Rules (strict, like Foundation's `JSONDecoder` with default strategies):
/// - Integers (`Int`, `Int8`…`Int64`, `UInt`…`UInt64`) accept JSON integers that
///   fit the type, and reals with no fractional part that fit (`2.0` → 2); anything
///   else is `DecodingError.dataCorrupted` ("300 does not fit in UInt8"). jansson
///   holds integers as `Int64`, so `UInt64` values above `Int64.max` cannot occur.
/// - `Double` and `Float` accept integers and reals; a real outside `Float`'s range
///   is `dataCorrupted`.
/// - `Bool` accepts only `true`/`false`; `String` only strings (no conversions).
/// - JSON null is nil for `Optional`; for a non-optional value it is
///   `DecodingError.valueNotFound`. A missing key is nil for `decodeIfPresent` (and
///   `decodeNil(forKey:)` returns true), `DecodingError.keyNotFound` otherwise.
/// - Dates, data and URLs have no special strategies (none exist without Foundation):
///   decode them from strings or numbers yourself.
///
/// Errors carry the `codingPath` of the failing value; `Response.decode` turns them
/// into a PARSE error whose message reads `data.user.age: expected Int, found string`.
public struct JSONValueDecoder: Sendable {
    /// Passed to every `Decoder` as `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// A decoder passing `userInfo` to the types it decodes.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Decodes `type` from `value`.
    /// Throws: `DecodingError`, or whatever a type's `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try withExtendedLifetime(value) { try decode(type, borrowing: value.raw) }
    }

    /// Decodes `type` from a borrowed `json_t *` (e.g. `Response.dataPointer`).
    /// Ownership: nothing is retained; the value must stay alive during the call.
    package func decode<T: Decodable>(_ type: T.Type, from pointer: OpaquePointer) throws -> T {
        try decode(type, borrowing: UnsafeMutablePointer<json_t>(pointer))
    }

    func decode<T: Decodable>(_ type: T.Type, borrowing raw: UnsafeMutablePointer<json_t>) throws -> T {
        let info = userInfo.mapValues { $0 as Any }
        return try T(from: JSONValueDecoding(value: raw, codingPath: [], userInfo: info))
    }

    /// "data.user.tags[2]: expected String, found integer" — `root` names the
    /// decoded value, then each key (`.name`) or array index (`[i]`).
    static func describe(_ error: DecodingError, root: String) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context.codingPath, root: root)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key], root: root)): key not found"
        @unknown default:
            return "\(root): \(error)"
        }
    }

    static func path(_ keys: [any CodingKey], root: String) -> String {
        var text = root
        for key in keys {
            if let index = key as? JSONIndexKey {
                text += "[\(index.index)]"
            } else {
                text += "." + key.stringValue
            }
        }
        return text
    }
}

/// The coding key of an array element.
struct JSONIndexKey: CodingKey {
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.index = intValue }
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

/// The key `superDecoder()` reads, as Foundation's `JSONDecoder` does.
private struct JSONSuperKey: CodingKey {
    init() {}
    init?(stringValue: String) { guard stringValue == "super" else { return nil } }
    init?(intValue: Int) { return nil }
    var stringValue: String { "super" }
    var intValue: Int? { nil }
}

// MARK: - Scalars

/// Conversions from one jansson value to Swift scalars, with the errors above.
enum JSONUnbox {
    typealias Value = UnsafeMutablePointer<json_t>

    static func failure(_ type: Any.Type, expected: String, _ v: Value, _ path: [any CodingKey]) -> DecodingError {
        if v.pointee.type == JSON_NULL {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(expected), found null"))
        }
        return .typeMismatch(
            type, .init(codingPath: path, debugDescription: "expected \(expected), found \(JSON.typeName(v))"))
    }

    static func bool(_ v: Value, _ path: [any CodingKey]) throws -> Bool {
        switch v.pointee.type {
        case JSON_TRUE: return true
        case JSON_FALSE: return false
        default: throw failure(Bool.self, expected: "Bool", v, path)
        }
    }

    static func string(_ v: Value, _ path: [any CodingKey]) throws -> String {
        guard let s = JSON.string(v) else { throw failure(String.self, expected: "String", v, path) }
        return s
    }

    static func integer<T: FixedWidthInteger>(_ v: Value, _ type: T.Type, _ path: [any CodingKey]) throws -> T {
        switch v.pointee.type {
        case JSON_INTEGER:
            let n = json_integer_value(v)
            guard let exact = T(exactly: n) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: path, debugDescription: "\(n) does not fit in \(T.self)"))
            }
            return exact
        case JSON_REAL:
            let d = json_real_value(v)
            guard let exact = T(exactly: d) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: path, debugDescription: "\(d) is not a whole number that fits in \(T.self)"))
            }
            return exact
        default:
            throw failure(T.self, expected: "\(T.self)", v, path)
        }
    }

    static func double(_ v: Value, _ path: [any CodingKey], as name: String = "Double") throws -> Double {
        switch v.pointee.type {
        case JSON_INTEGER: return Double(json_integer_value(v))
        case JSON_REAL: return json_real_value(v)
        default: throw failure(Double.self, expected: name, v, path)
        }
    }

    static func float(_ v: Value, _ path: [any CodingKey]) throws -> Float {
        let d = try double(v, path, as: "Float")
        let f = Float(d)
        guard f.isFinite || !d.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(d) does not fit in Float"))
        }
        return f
    }

    static func object(_ v: Value, _ path: [any CodingKey]) throws -> Value {
        guard v.pointee.type == JSON_OBJECT else {
            throw failure([String: Any].self, expected: "object", v, path)
        }
        return v
    }

    static func array(_ v: Value, _ path: [any CodingKey]) throws -> Value {
        guard v.pointee.type == JSON_ARRAY else {
            throw failure([Any].self, expected: "array", v, path)
        }
        return v
    }
}

// MARK: - Decoder and single value

/// The `Decoder` for one jansson value (borrowed), which is also its own single
/// value container.
struct JSONValueDecoding: Decoder, SingleValueDecodingContainer {
    let value: UnsafeMutablePointer<json_t>
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(
            JSONKeyedContainer<Key>(
                object: try JSONUnbox.object(value, codingPath), codingPath: codingPath, userInfo: userInfo))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        JSONUnkeyedContainer(array: try JSONUnbox.array(value, codingPath), codingPath: codingPath, userInfo: userInfo)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.pointee.type == JSON_NULL }
    func decode(_ type: Bool.Type) throws -> Bool { try JSONUnbox.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try JSONUnbox.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try JSONUnbox.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try JSONUnbox.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try JSONUnbox.integer(value, type, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try JSONUnbox.integer(value, type, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try JSONUnbox.integer(value, type, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try JSONUnbox.integer(value, type, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try JSONUnbox.integer(value, type, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try JSONUnbox.integer(value, type, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONUnbox.integer(value, type, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONUnbox.integer(value, type, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONUnbox.integer(value, type, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONUnbox.integer(value, type, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }
}

// MARK: - Keyed

/// An object's members by key.
struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    typealias Value = UnsafeMutablePointer<json_t>
    let object: Value
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    var allKeys: [Key] {
        var keys: [Key] = []
        var it = json_object_iter(object)
        while let i = it {
            if let k = json_object_iter_key(i) {
                let bytes = UnsafeRawBufferPointer(start: k, count: json_object_iter_key_len(i))
                if let key = Key(stringValue: String(decoding: bytes, as: UTF8.self)) { keys.append(key) }
            }
            it = json_object_iter_next(object, i)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    /// The member named `key`, nil when absent (keys may contain any bytes).
    private func member(_ key: Key) -> Value? {
        var name = key.stringValue
        return name.withUTF8 { utf8 -> Value? in
            utf8.withMemoryRebound(to: CChar.self) { chars -> Value? in
                if let base = chars.baseAddress { return json_object_getn(object, base, chars.count) }
                return "".withCString { json_object_getn(object, $0, 0) }
            }
        }
    }

    private func value(_ key: Key) throws -> Value {
        guard let v = member(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "key not found"))
        }
        return v
    }

    private func path(_ key: any CodingKey) -> [any CodingKey] { codingPath + [key] }

    private func decoder(_ v: Value, _ key: any CodingKey) -> JSONValueDecoding {
        JSONValueDecoding(value: v, codingPath: path(key), userInfo: userInfo)
    }

    /// True for JSON null and for a missing key.
    func decodeNil(forKey key: Key) throws -> Bool {
        guard let v = member(key) else { return true }
        return v.pointee.type == JSON_NULL
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try JSONUnbox.bool(value(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try JSONUnbox.string(value(key), path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try JSONUnbox.double(value(key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try JSONUnbox.float(value(key), path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try JSONUnbox.integer(value(key), type, path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try JSONUnbox.integer(value(key), type, path(key))
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try JSONUnbox.integer(value(key), type, path(key))
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try JSONUnbox.integer(value(key), type, path(key))
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try JSONUnbox.integer(value(key), type, path(key))
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try JSONUnbox.integer(value(key), type, path(key))
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try JSONUnbox.integer(value(key), type, path(key))
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try JSONUnbox.integer(value(key), type, path(key))
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try JSONUnbox.integer(value(key), type, path(key))
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try JSONUnbox.integer(value(key), type, path(key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try T(from: decoder(value(key), key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder(value(key), key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(value(key), key).unkeyedContainer()
    }

    /// The member "super" (JSON null when absent).
    func superDecoder() throws -> any Decoder {
        let key = JSONSuperKey()
        let v = "super".withCString { json_object_get(object, $0) }
        return decoder(v ?? JSON.null, key)
    }

    /// The member `key` (JSON null when absent).
    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder(member(key) ?? JSON.null, key)
    }
}

// MARK: - Unkeyed

/// An array's elements in order. `currentIndex` advances only when a decode succeeds.
struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    typealias Value = UnsafeMutablePointer<json_t>
    let array: Value
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    private(set) var currentIndex = 0

    init(array: Value, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.array = array
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    var count: Int? { json_array_size(array) }
    var isAtEnd: Bool { currentIndex >= json_array_size(array) }

    /// The current element and its path, without advancing.
    private func peek(_ type: Any.Type) throws -> (Value, [any CodingKey]) {
        let path = codingPath + [JSONIndexKey(currentIndex)]
        guard !isAtEnd, let v = json_array_get(array, currentIndex) else {
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: path,
                    debugDescription:
                        "expected \(type), found the end of the array (\(json_array_size(array)) elements)"))
        }
        return (v, path)
    }

    private mutating func next<T>(_ type: T.Type, _ unbox: (Value, [any CodingKey]) throws -> T) throws -> T {
        let (v, path) = try peek(type)
        let result = try unbox(v, path)
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        let (v, _) = try peek(Optional<Any>.self)
        guard v.pointee.type == JSON_NULL else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try JSONUnbox.bool($0, $1) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try JSONUnbox.string($0, $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try JSONUnbox.double($0, $1) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try JSONUnbox.float($0, $1) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try JSONUnbox.integer($0, type, $1) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try JSONUnbox.integer($0, type, $1) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try JSONUnbox.integer($0, type, $1) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try JSONUnbox.integer($0, type, $1) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try JSONUnbox.integer($0, type, $1) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try JSONUnbox.integer($0, type, $1) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try JSONUnbox.integer($0, type, $1) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        try next(type) { try JSONUnbox.integer($0, type, $1) }
    }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        try next(type) { try JSONUnbox.integer($0, type, $1) }
    }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        try next(type) { try JSONUnbox.integer($0, type, $1) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let userInfo = self.userInfo
        return try next(type) { try T(from: JSONValueDecoding(value: $0, codingPath: $1, userInfo: userInfo)) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        let userInfo = self.userInfo
        return try next(KeyedDecodingContainer<NestedKey>.self) {
            try JSONValueDecoding(value: $0, codingPath: $1, userInfo: userInfo).container(keyedBy: type)
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let userInfo = self.userInfo
        return try next((any UnkeyedDecodingContainer).self) {
            try JSONValueDecoding(value: $0, codingPath: $1, userInfo: userInfo).unkeyedContainer()
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        let userInfo = self.userInfo
        return try next((any Decoder).self) { JSONValueDecoding(value: $0, codingPath: $1, userInfo: userInfo) }
    }
}
