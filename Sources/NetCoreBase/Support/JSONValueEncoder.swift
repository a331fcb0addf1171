import CJansson

/// Encodes `Encodable` Swift values straight into jansson values (no Foundation, no
/// JSON text in between): what `Request.Chain.params(_:)` and
/// `JSONValue(encoding:)` use.
///
/// ```swift
/// struct NewUser: Encodable { let name: String; let nickname: String? }
/// let params = try JSONValue(encoding: NewUser(name: "Ada", nickname: nil))   // {"name":"Ada"}
/// ```
///
/// Rules (those of Foundation's `JSONEncoder` with default strategies):
/// - Keys in the order the type encodes them; an optional property that is nil is
///   left out (the synthesized `encode(to:)` calls `encodeIfPresent`) — the
///   nil-parameter rule — while an explicit `encodeNil` writes JSON null.
/// - Integers as JSON integers (a `UInt64` above `Int64.max` is
///   `EncodingError.invalidValue`); `Double`/`Float` as reals (NaN and infinities
///   are `invalidValue`: JSON has none).
/// - Dates, data and URLs have no special strategies: encode them as strings.
public struct JSONValueEncoder: Sendable {
    /// Passed to every `Encoder` as `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// An encoder passing `userInfo` to the types it encodes.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Encodes `value` as a JSON value.
    /// Throws: `EncodingError`, or whatever the type's `encode(to:)` throws.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let encoder = TreeEncoder(codingPath: [], userInfo: userInfo.mapValues { $0 as Any })
        try value.encode(to: encoder)
        guard let node = encoder.root else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "\(T.self) did not encode any value"))
        }
        guard let made = node.make() else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "out of memory"))
        }
        return JSONValue(owning: made)
    }
}

extension JSONValue {
    /// The JSON value `value` encodes to (`JSONValueEncoder`'s rules: a nil optional
    /// property is left out).
    /// Throws: CLIENT `invalidRequest` naming the type and the coding path when the
    /// value cannot be encoded (a NaN, a UInt64 too large, a throwing `encode(to:)`).
    public convenience init<T: Encodable>(encoding value: T, using encoder: JSONValueEncoder = JSONValueEncoder())
        throws(NetError)
    {
        let made: JSONValue
        do {
            made = try encoder.encode(value)
        } catch let error as EncodingError {
            switch error {
            case .invalidValue(_, let context):
                throw NetError.invalidArgument(
                    "could not encode \(T.self): \(JSONValueDecoder.path(context.codingPath, root: "params")): \(context.debugDescription)"
                )
            @unknown default:
                throw NetError.invalidArgument("could not encode \(T.self): \(error)")
            }
        } catch {
            throw NetError.invalidArgument("could not encode \(T.self): \(error)")
        }
        self.init(owning: json_incref(made.raw) ?? json_null())
    }
}

// MARK: - The tree the containers write into

/// One encoded value; objects and arrays are filled in place by their containers.
private final class Node {
    enum Kind {
        case scalar(UnsafeMutablePointer<json_t>?)   // owned (+1); nil: out of memory
        case object
        case array
    }
    var kind: Kind
    var members: [(String, Node)] = []
    var items: [Node] = []

    init(_ kind: Kind) { self.kind = kind }

    deinit {
        if case .scalar(let p?) = kind { json_decref(p) }
    }

    /// The jansson value (+1), nil if memory ran out.
    func make() -> UnsafeMutablePointer<json_t>? {
        switch kind {
        case .scalar(let p):
            return p.flatMap { json_incref($0) }
        case .object:
            guard let o = json_object() else { return nil }
            for (key, node) in members {
                guard let v = node.make(), json_object_set_new(o, key, v) == 0 else {
                    json_decref(o)
                    return nil
                }
            }
            return o
        case .array:
            guard let a = json_array() else { return nil }
            for node in items {
                guard let v = node.make(), json_array_append_new(a, v) == 0 else {
                    json_decref(a)
                    return nil
                }
            }
            return a
        }
    }

    /// Sets (or replaces) a member.
    func set(_ key: String, _ node: Node) {
        if let i = members.firstIndex(where: { $0.0 == key }) {
            members[i].1 = node
        } else {
            members.append((key, node))
        }
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

private enum Scalar {
    static func int64<T: BinaryInteger>(_ v: T, _ path: [any CodingKey]) throws -> Node {
        guard let i = Int64(exactly: v) else {
            throw EncodingError.invalidValue(
                v, .init(codingPath: path, debugDescription: "\(v) does not fit a JSON integer"))
        }
        return Node(.scalar(json_integer(i)))
    }

    static func real(_ v: Double, _ path: [any CodingKey]) throws -> Node {
        guard v.isFinite else {
            throw EncodingError.invalidValue(
                v, .init(codingPath: path, debugDescription: "\(v) is not a JSON number"))
        }
        return Node(.scalar(json_real(v)))
    }

    static func string(_ v: String) -> Node { Node(.scalar(JSONValue.string(v))) }

    static func bool(_ v: Bool) -> Node { Node(.scalar(v ? json_true() : json_false())) }
    static var null: Node { Node(.scalar(json_null())) }
}

/// The `Encoder`: holds the value encoded at its coding path.
private final class TreeEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    var root: Node?

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let node: Node
        if let root, case .object = root.kind {
            node = root
        } else {
            node = Node(.object)
            root = node
        }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, encoder: self, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let node: Node
        if let root, case .array = root.kind {
            node = root
        } else {
            node = Node(.array)
            root = node
        }
        return UnkeyedContainer(node: node, encoder: self, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(encoder: self) }

    /// `value` encoded at `path`: scalars directly, others through a nested encoder.
    func box<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> Node {
        switch value {
        case let v as String: return Scalar.string(v)
        case let v as Bool: return Scalar.bool(v)
        case let v as Int: return try Scalar.int64(v, path)
        case let v as Int64: return try Scalar.int64(v, path)
        case let v as UInt64: return try Scalar.int64(v, path)
        case let v as Double: return try Scalar.real(v, path)
        case let v as Float: return try Scalar.real(Double(v), path)
        case let v as JSONValue: return Node(.scalar(json_deep_copy(v.raw)))
        default:
            let nested = TreeEncoder(codingPath: path, userInfo: userInfo)
            try value.encode(to: nested)
            return nested.root ?? Node(.object)
        }
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let encoder: TreeEncoder
    let codingPath: [any CodingKey]

    func encodeNil(forKey key: Key) throws { node.set(key.stringValue, Scalar.null) }
    func encode(_ value: Bool, forKey key: Key) throws { node.set(key.stringValue, Scalar.bool(value)) }
    func encode(_ value: String, forKey key: Key) throws { node.set(key.stringValue, Scalar.string(value)) }
    func encode(_ value: Double, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.real(value, codingPath + [key]))
    }
    func encode(_ value: Float, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.real(Double(value), codingPath + [key]))
    }
    func encode(_ value: Int, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode(_ value: Int8, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode(_ value: Int16, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode(_ value: Int32, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode(_ value: Int64, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode(_ value: UInt, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode(_ value: UInt8, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode(_ value: UInt16, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode(_ value: UInt32, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode(_ value: UInt64, forKey key: Key) throws {
        node.set(key.stringValue, try Scalar.int64(value, codingPath + [key]))
    }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.set(key.stringValue, try encoder.box(value, at: codingPath + [key]))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = Node(.object)
        node.set(key.stringValue, child)
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(node: child, encoder: encoder, codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Node(.array)
        node.set(key.stringValue, child)
        return UnkeyedContainer(node: child, encoder: encoder, codingPath: codingPath + [key])
    }

    func superEncoder() -> any Encoder { superEncoder(forKey: AnyKey(stringValue: "super")) }
    func superEncoder(forKey key: Key) -> any Encoder { superEncoder(forKey: AnyKey(stringValue: key.stringValue)) }

    private func superEncoder(forKey key: AnyKey) -> any Encoder {
        let sub = ChildEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo) { [node] child in
            node.set(key.stringValue, child)
        }
        return sub
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let encoder: TreeEncoder
    let codingPath: [any CodingKey]
    var count: Int { node.items.count }

    private var nextPath: [any CodingKey] { codingPath + [AnyKey(intValue: node.items.count)] }

    mutating func encodeNil() throws { node.items.append(Scalar.null) }
    mutating func encode(_ value: Bool) throws { node.items.append(Scalar.bool(value)) }
    mutating func encode(_ value: String) throws { node.items.append(Scalar.string(value)) }
    mutating func encode(_ value: Double) throws { node.items.append(try Scalar.real(value, nextPath)) }
    mutating func encode(_ value: Float) throws { node.items.append(try Scalar.real(Double(value), nextPath)) }
    mutating func encode(_ value: Int) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode(_ value: Int8) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode(_ value: Int16) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode(_ value: Int32) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode(_ value: Int64) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode(_ value: UInt) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode(_ value: UInt8) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode(_ value: UInt16) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode(_ value: UInt32) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode(_ value: UInt64) throws { node.items.append(try Scalar.int64(value, nextPath)) }
    mutating func encode<T: Encodable>(_ value: T) throws { node.items.append(try encoder.box(value, at: nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let path = nextPath
        let child = Node(.object)
        node.items.append(child)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, encoder: encoder, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = Node(.array)
        node.items.append(child)
        return UnkeyedContainer(node: child, encoder: encoder, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let index = node.items.count
        node.items.append(Scalar.null)
        return ChildEncoder(codingPath: codingPath + [AnyKey(intValue: index)], userInfo: encoder.userInfo) {
            [node] child in node.items[index] = child
        }
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    func put(_ node: Node) { encoder.root = node }

    func encodeNil() throws { put(Scalar.null) }
    func encode(_ value: Bool) throws { put(Scalar.bool(value)) }
    func encode(_ value: String) throws { put(Scalar.string(value)) }
    func encode(_ value: Double) throws { put(try Scalar.real(value, codingPath)) }
    func encode(_ value: Float) throws { put(try Scalar.real(Double(value), codingPath)) }
    func encode(_ value: Int) throws { put(try Scalar.int64(value, codingPath)) }
    func encode(_ value: Int8) throws { put(try Scalar.int64(value, codingPath)) }
    func encode(_ value: Int16) throws { put(try Scalar.int64(value, codingPath)) }
    func encode(_ value: Int32) throws { put(try Scalar.int64(value, codingPath)) }
    func encode(_ value: Int64) throws { put(try Scalar.int64(value, codingPath)) }
    func encode(_ value: UInt) throws { put(try Scalar.int64(value, codingPath)) }
    func encode(_ value: UInt8) throws { put(try Scalar.int64(value, codingPath)) }
    func encode(_ value: UInt16) throws { put(try Scalar.int64(value, codingPath)) }
    func encode(_ value: UInt32) throws { put(try Scalar.int64(value, codingPath)) }
    func encode(_ value: UInt64) throws { put(try Scalar.int64(value, codingPath)) }
    func encode<T: Encodable>(_ value: T) throws { put(try encoder.box(value, at: codingPath)) }
}

/// The encoder of `superEncoder()`: what it encodes is handed to `store`.
private final class ChildEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    private let inner: TreeEncoder
    private let store: (Node) -> Void

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any], store: @escaping (Node) -> Void) {
        self.codingPath = codingPath
        self.userInfo = userInfo
        self.inner = TreeEncoder(codingPath: codingPath, userInfo: userInfo)
        self.store = store
    }

    deinit { store(inner.root ?? Node(.object)) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        inner.container(keyedBy: type)
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { inner.unkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { inner.singleValueContainer() }
}

/// A `JSONValue` encodes as the JSON it holds, so a value of it can sit in an
/// `Encodable` type (a free-form `metadata` member) and `JSONValueEncoder` copies it
/// as is; other encoders get its objects, arrays and scalars through their containers.
extension JSONValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try JSONValue.encode(raw, to: encoder)
    }

    private static func encode(_ v: UnsafeMutablePointer<json_t>, to encoder: any Encoder) throws {
        switch v.pointee.type {
        case JSON_OBJECT:
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, member) in JSON.members(v) {
                try encode(member, to: container.superEncoder(forKey: AnyKey(stringValue: key)))
            }
        case JSON_ARRAY:
            var container = encoder.unkeyedContainer()
            for i in 0..<json_array_size(v) {
                if let item = json_array_get(v, i) { try encode(item, to: container.superEncoder()) }
            }
        default:
            var single = encoder.singleValueContainer()
            switch v.pointee.type {
            case JSON_STRING: try single.encode(JSON.string(v) ?? "")
            case JSON_INTEGER: try single.encode(json_integer_value(v))
            case JSON_REAL: try single.encode(json_real_value(v))
            case JSON_TRUE: try single.encode(true)
            case JSON_FALSE: try single.encode(false)
            default: try single.encodeNil()
            }
        }
    }
}
