import CJansson

#if canImport(Glibc)
import Glibc
#endif

/// An owned reference to a jansson value (`json_t`), released on deinit.
/// Values held by libnetcore are never modified after construction, so a
/// `JSONValue` may be read from any thread.
public final class JSONValue: @unchecked Sendable {
    /// The jansson value (+1 reference owned by this object).
    let raw: UnsafeMutablePointer<json_t>

    /// Takes ownership of one reference.
    init(owning raw: UnsafeMutablePointer<json_t>) { self.raw = raw }

    /// Adds a reference to a borrowed value.
    init(borrowing raw: UnsafeMutablePointer<json_t>) {
        self.raw = json_incref(raw) ?? raw
    }

    deinit { json_decref(raw) }

    /// The jansson pointer, for the C boundary (`json_t *`, borrowed from this object).
    package var opaque: OpaquePointer { OpaquePointer(raw) }

    /// Parses JSON text (any value, not only objects).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<JSONValue, JSONParseFailure> {
        parseOwned(bytes).map { JSONValue(owning: $0) }
    }

    /// Parses JSON text into a jansson value the caller owns (+1; json_decref it).
    /// `rejectingDuplicates`: an object with a key twice, at any depth, is a failure
    /// (jansson's JSON_REJECT_DUPLICATES; the failure's `duplicateKey` names it);
    /// otherwise the last value of a key wins (jansson's default).
    static func parseOwned(_ bytes: UnsafeRawBufferPointer, rejectingDuplicates: Bool = false) -> Result<
        UnsafeMutablePointer<json_t>, JSONParseFailure
    > {
        var err = json_error_t()
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        let emptyText: StaticString = ""
        let src = base ?? UnsafeRawPointer(emptyText.utf8Start).assumingMemoryBound(to: CChar.self)
        let flags = Int(JSON_DECODE_ANY | JSON_ALLOW_NUL | (rejectingDuplicates ? JSON_REJECT_DUPLICATES : 0))
        guard let value = json_loadb(src, bytes.count, flags, &err) else {
            let text = withUnsafeBytes(of: &err.text) { buf in
                String(decoding: buf.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let code = json_error_code(&err)
            if code == json_error_duplicate_key {
                return .failure(
                    JSONParseFailure(
                        line: Int(err.line), column: Int(err.column), reason: text,
                        duplicateKey: duplicateKey(inMessage: text)))
            }
            // jansson sets no text when an allocation fails inside the parser (and
            // json_error_out_of_memory where it does): that is not a parse error.
            let oom = text.isEmpty || code == json_error_out_of_memory
            // Its lexer reports a string it could not allocate as a syntax error
            // ("string or '}' expected near …"): a real syntax error repeats, a
            // failed allocation rarely does — parse once more before saying so
            // (only invalid JSON pays; docs/RELIABILITY.md, allocation failure).
            if !oom, let again = json_loadb(src, bytes.count, flags, nil) {
                return .success(again)
            }
            return .failure(
                JSONParseFailure(line: Int(err.line), column: Int(err.column), reason: text, outOfMemory: oom))
        }
        return .success(value)
    }

    /// The key of jansson's "duplicate object key near '\"code\"'": the token between
    /// the quotes, a JSON string, decoded ("co\u0064e" is "code"). nil when jansson cut
    /// the message short (its text holds 160 bytes) or the token is not a string.
    static func duplicateKey(inMessage text: String) -> String? {
        let u = Array(text.utf8)
        let quote = UInt8(ascii: "'")
        guard let open = u.firstIndex(of: quote), u.count - open > 2, u.last == quote else { return nil }
        return u[(open + 1)..<(u.count - 1)].withUnsafeBufferPointer { token -> String? in
            guard let base = token.baseAddress,
                let v = json_loadb(
                    UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), token.count,
                    Int(JSON_DECODE_ANY | JSON_ALLOW_NUL), nil)
            else { return nil }
            defer { json_decref(v) }
            return JSON.string(v)
        }
    }

    /// Parses JSON text; the failure gives line, column and reason.
    public static func parse(_ string: String) -> Result<JSONValue, JSONParseFailure> {
        var s = string
        return s.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// A deep copy (used to take user-supplied values so later changes do not leak in).
    func deepCopy() -> JSONValue? {
        guard let copy = json_deep_copy(raw) else { return nil }
        return JSONValue(owning: copy)
    }

    /// Compact JSON text of this value.
    public var text: String { JSONValue.dump(raw) ?? "null" }

    static func dump(_ value: UnsafeMutablePointer<json_t>) -> String? {
        guard let p = json_dumps(value, Int(JSON_ENCODE_ANY | JSON_COMPACT)) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    var isObject: Bool { raw.pointee.type == JSON_OBJECT }
    var isNull: Bool { raw.pointee.type == JSON_NULL }

    /// Nesting depth (1 for a scalar), stopping once `limit` is exceeded.
    func depth(limit: Int) -> Int { JSONValue.depth(raw, limit: limit) }

    static func depth(_ v: UnsafeMutablePointer<json_t>, limit: Int) -> Int {
        if limit <= 0 { return 1 }
        var deepest = 0
        switch v.pointee.type {
        case JSON_OBJECT:
            var it = json_object_iter(v)
            while let i = it {
                if let child = json_object_iter_value(i) {
                    deepest = max(deepest, depth(child, limit: limit - 1))
                }
                if deepest >= limit { break }
                it = json_object_iter_next(v, i)
            }
        case JSON_ARRAY:
            for index in 0..<json_array_size(v) {
                if let child = json_array_get(v, index) {
                    deepest = max(deepest, depth(child, limit: limit - 1))
                }
                if deepest >= limit { break }
            }
        default:
            break
        }
        return deepest + 1
    }
}

/// Why a body is not JSON, with jansson's position.
public struct JSONParseFailure: Error, Sendable {
    /// The line of the error, from 1.
    public var line: Int
    /// The column of the error, from 1.
    public var column: Int
    /// jansson's description of the error.
    public var reason: String
    /// The parser ran out of memory: the text was not judged (not a parse error).
    public var outOfMemory = false
    /// The text is JSON but an object has this key twice (decoded: `"co\u0064e"` is
    /// `code`), when the parse refused duplicates (an envelope's, NC_PARSE_DUPLICATE_KEY).
    public var duplicateKey: String? = nil
    /// An object has a key twice (`duplicateKey` is nil when jansson's message was
    /// too long to name it).
    public var isDuplicateKey = false

    init(line: Int, column: Int, reason: String, outOfMemory: Bool = false) {
        self.line = line
        self.column = column
        self.reason = reason
        self.outOfMemory = outOfMemory
    }

    init(line: Int, column: Int, reason: String, duplicateKey: String?) {
        self.init(line: line, column: column, reason: reason)
        self.duplicateKey = duplicateKey
        isDuplicateKey = true
    }
}

/// Helpers over borrowed `json_t` pointers.
enum JSON {
    /// Object members in order.
    static func members(_ object: UnsafeMutablePointer<json_t>) -> [(String, UnsafeMutablePointer<json_t>)] {
        var out: [(String, UnsafeMutablePointer<json_t>)] = []
        var it = json_object_iter(object)
        while let i = it {
            if let k = json_object_iter_key(i), let v = json_object_iter_value(i) {
                out.append((String(cString: k), v))
            }
            it = json_object_iter_next(object, i)
        }
        return out
    }

    static func typeName(_ v: UnsafeMutablePointer<json_t>) -> String {
        switch v.pointee.type {
        case JSON_OBJECT: return "object"
        case JSON_ARRAY: return "array"
        case JSON_STRING: return "string"
        case JSON_INTEGER: return "integer"
        case JSON_REAL: return "number"
        case JSON_TRUE, JSON_FALSE: return "boolean"
        default: return "null"
        }
    }

    static func string(_ v: UnsafeMutablePointer<json_t>) -> String? {
        guard v.pointee.type == JSON_STRING, let p = json_string_value(v) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: json_string_length(v)), as: UTF8.self)
    }

    /// A scalar as text: strings as-is, integers in decimal, reals as jansson writes
    /// them, booleans as true/false. nil for null, arrays and objects.
    static func scalarText(_ v: UnsafeMutablePointer<json_t>) -> String? {
        switch v.pointee.type {
        case JSON_STRING: return string(v)
        case JSON_INTEGER: return String(json_integer_value(v))
        case JSON_REAL:
            let d = json_real_value(v)
            if d.rounded() == d, abs(d) < 9.0e15 { return String(Int64(d)) }
            return JSONValue.dump(v)
        case JSON_TRUE: return "true"
        case JSON_FALSE: return "false"
        default: return nil
        }
    }

    static var null: UnsafeMutablePointer<json_t> { json_null() }
}

extension JSONValue {
    /// Adds a reference to a borrowed `json_t *` handed over the C boundary.
    package convenience init(borrowingOpaque pointer: OpaquePointer) {
        self.init(borrowing: UnsafeMutablePointer<json_t>(pointer))
    }
}
