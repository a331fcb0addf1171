import CJansson

/// Turns a params object into query/form pairs or a JSON body.
///
/// Query and form: strings as-is, numbers as JSON writes them, booleans as
/// "true"/"false", arrays as repeated keys (`a=1&a=2`, like requests), nested
/// objects with brackets (`user[name]=x`, like Alamofire). Neither can write a
/// null: a null is left out wherever it is (a member `a: null` at the top or at
/// any depth, an array item), as requests does with `params={"a": None}`.
/// JSON: the object as written, every null kept (a PATCH that clears a field
/// sends `"field": null`).
enum ParameterEncoder {
    static func pairs(_ object: JSONValue) -> [(String, String)] {
        var out: [(String, String)] = []
        for (key, value) in JSON.members(object.raw) {
            flatten(key, value, into: &out)
        }
        return out
    }

    private static func flatten(
        _ key: String, _ value: UnsafeMutablePointer<json_t>, into out: inout [(String, String)]
    ) {
        switch value.pointee.type {
        case JSON_NULL:
            return
        case JSON_ARRAY:
            for i in 0..<json_array_size(value) {
                if let item = json_array_get(value, i) { flatten(key, item, into: &out) }
            }
        case JSON_OBJECT:
            for (k, v) in JSON.members(value) { flatten("\(key)[\(k)]", v, into: &out) }
        default:
            if let text = JSON.scalarText(value) { out.append((key, text)) }
        }
    }

    /// `a=1&b=x%20y`
    static func urlEncoded(_ pairs: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, (k, v)) in pairs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: "&")) }
            PercentEncoding.component(k, into: &out)
            out.append(UInt8(ascii: "="))
            PercentEncoding.component(v, into: &out)
        }
        return out
    }

    /// Compact JSON text of the object, nulls included at every depth. The params
    /// are the request's own copy, never changed: written as they are.
    static func jsonBody(_ object: JSONValue) -> String { object.text }
}
