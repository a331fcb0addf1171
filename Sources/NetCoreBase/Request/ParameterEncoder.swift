import CJansson

/// Turns a params object into query/form pairs or a JSON body.
///
/// Query and form: strings as-is, numbers as JSON writes them, booleans as
/// "true"/"false", nulls dropped, arrays as repeated keys (`a=1&a=2`, like
/// requests), nested objects with brackets (`user[name]=x`, like Alamofire).
/// JSON: the object with null members dropped at every depth.
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

    /// Compact JSON text of the object with null members removed at every depth.
    static func jsonBody(_ object: JSONValue) -> String {
        guard let copy = object.deepCopy() else { return "{}" }
        dropNulls(copy.raw)
        return copy.text
    }

    private static func dropNulls(_ v: UnsafeMutablePointer<json_t>) {
        switch v.pointee.type {
        case JSON_OBJECT:
            for (k, child) in JSON.members(v) {
                if child.pointee.type == JSON_NULL { json_object_del(v, k) } else { dropNulls(child) }
            }
        case JSON_ARRAY:
            for i in 0..<json_array_size(v) { if let c = json_array_get(v, i) { dropNulls(c) } }
        default:
            break
        }
    }
}
