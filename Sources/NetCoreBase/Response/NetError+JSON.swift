import CJansson

#if canImport(Glibc)
import Glibc
#endif

extension NetError {
    /// Every field as one compact JSON object (what nc_error_json() returns).
    public var json: String {
        guard let o = json_object() else { return "{}" }
        defer { json_decref(o) }
        func set(_ key: String, _ value: UnsafeMutablePointer<json_t>?) {
            if let value { json_object_set_new(o, key, value) }
        }
        set("domain", json_string(domain.name))
        set("domain_code", json_integer(json_int_t(domain.rawValue)))
        set("code", json_integer(code))
        set("code_str", json_stringn(codeString, codeString.utf8.count))
        set("message", json_stringn(message, message.utf8.count))
        set("http_status", json_integer(json_int_t(httpStatus)))
        set("trace_id", traceID.flatMap { json_stringn($0, $0.utf8.count) } ?? json_null())
        set("data", data.map { json_incref($0.raw) } ?? json_null())
        if let body {
            // The body as text when it is UTF-8, else its size only.
            let text = String(validating: body.bytes, as: UTF8.self)
            set("body", text.flatMap { json_stringn($0, $0.utf8.count) } ?? json_null())
        } else {
            set("body", json_null())
        }
        set("attempts", json_integer(json_int_t(attempts)))
        set("retryable", isRetryable ? json_true() : json_false())
        set("auth_expired", isAuthExpired ? json_true() : json_false())
        set("timeout", timeout.map { json_string($0.rawValue) } ?? json_null())
        set("user_message", userMessage.flatMap { json_stringn($0, $0.utf8.count) } ?? json_null())
        // Which request failed: {"method","url","endpoint","label","id"}, null when none.
        if let request {
            let r = json_object()
            func text(_ s: String?) -> UnsafeMutablePointer<json_t>? {
                s.flatMap { json_stringn($0, $0.utf8.count) } ?? json_null()
            }
            if let r {
                json_object_set_new(r, "method", text(request.method))
                json_object_set_new(r, "url", text(request.url))
                json_object_set_new(r, "endpoint", text(request.endpoint))
                json_object_set_new(r, "label", text(request.label))
                json_object_set_new(r, "id", json_integer(json_int_t(bitPattern: request.taskID)))
            }
            set("request", r)
        } else {
            set("request", json_null())
        }
        return JSONValue.dump(o) ?? "{}"
    }
}
