import CCurlShim
import CJansson

/// One stubbed route (docs/configuration.md, "Stubs"): which requests it answers —
/// a method, a path whose `{name}` segments match any one segment (a last segment
/// `*` matches the rest), query parameters that must be present — and the answers
/// it gives in turn (the last one repeats), `times` answers in all at most.
///
/// A stubbed answer is handed to the transfer as a hop's outcome: classification,
/// the envelope, redirects, retries, the cache, hooks and events see it as they see
/// one from the network (events say `"stubbed": true`).
public struct Stub: Sendable {
    /// The request method it answers ("GET"); nil: any method.
    public var method: String?
    /// The URL's path it answers, as sent (the base URL's path included), without
    /// the query: "/users/{id}", "/files/*".
    public var path: String
    /// Query parameters the request must carry: name → value, or nil for any value
    /// (how a recording keeps a secret parameter). Others are not looked at.
    public var query: [String: String?]
    /// The answers, in turn; the last one repeats.
    public var answers: [Answer]
    /// How many requests it answers before it is passed over (nil: no end).
    public var times: Int?

    /// One answer of a route: a response, or a transport failure.
    public struct Answer: Sendable {
        /// The HTTP status (100–999).
        public var status: Int
        /// Response headers in order.
        public var headers: [(name: String, value: String)]
        /// The body's bytes.
        public var body: [UInt8]
        /// How long after the request the answer arrives, ms.
        public var delayMs: Int64
        /// A libcurl result code (1–99) to fail with instead of answering:
        /// TRANSPORT `code`, as if the network had failed (7: could not connect).
        public var transportError: Int32?

        /// An answer: a response, or with `transportError` a failure of the network.
        public init(
            status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
            delayMs: Int64 = 0, transportError: Int32? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delayMs = delayMs
            self.transportError = transportError
        }

        /// A response whose body is `text`'s UTF-8 bytes.
        public static func status(
            _ status: Int, headers: [(name: String, value: String)] = [], body text: String = "", delayMs: Int64 = 0
        ) -> Answer {
            Answer(status: status, headers: headers, body: Array(text.utf8), delayMs: delayMs)
        }

        /// A JSON response: `json` is the body's text, `Content-Type: application/json`.
        public static func json(_ status: Int = 200, _ json: String, delayMs: Int64 = 0) -> Answer {
            Answer(
                status: status, headers: [("Content-Type", "application/json")], body: Array(json.utf8),
                delayMs: delayMs)
        }

        /// The transport failure `code` (a CURLcode, e.g. 7 or 28).
        public static func transport(_ code: Int32, delayMs: Int64 = 0) -> Answer {
            Answer(status: 0, delayMs: delayMs, transportError: code)
        }
    }

    /// A route answering `method` `path` (and `query`) with `answers` in turn.
    public init(
        method: String? = "GET", path: String, query: [String: String?] = [:], answers: [Answer],
        times: Int? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.answers = answers
        self.times = times
    }

    /// A route giving one answer.
    public init(_ method: String?, _ path: String, _ answer: Answer, times: Int? = nil) {
        self.init(method: method, path: path, answers: [answer], times: times)
    }

    /// The route of the JSON object of nc_client_add_stub (docs/configuration.md,
    /// "Stubs"); a `body_file` is read now, relative to the working directory.
    /// Throws `invalidArgument` naming the member and what is wrong.
    public init(json: String) throws(NetError) {
        let root: JSONValue
        switch JSONValue.parse(json) {
        case .success(let v): root = v
        case .failure(let f):
            throw NetError.invalidArgument("stub: not valid JSON (line \(f.line), column \(f.column): \(f.reason)).")
        }
        self = try Stub.parse(root.raw, label: "stub", dir: nil)
    }

    /// What the route's checks say about itself, as the JSON form is checked.
    func validated(label: String) throws(NetError) -> Stub {
        func fail(_ why: String) -> NetError { NetError.invalidArgument("\(label): \(why)") }
        if let m = method, m.isEmpty || !HTTPValidation.isToken(m) {
            throw fail("'method' must be an HTTP token such as \"GET\" (or absent for any method).")
        }
        guard path.hasPrefix("/"), !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "?") })
        else {
            throw fail("'path' must start with '/' and hold no space, control character or '?' (got \"\(path)\").")
        }
        guard !answers.isEmpty else { throw fail("'responses' must hold at least one answer.") }
        if let times, times < 1 { throw fail("'times' must be at least 1 (got \(times)).") }
        for a in answers {
            if let code = a.transportError {
                guard (1...99).contains(code) else {
                    throw fail("'error.transport' must be a libcurl code 1-99 (got \(code)).")
                }
            } else if !(100...999).contains(a.status) {
                throw fail("'status' must be an HTTP status 100-999 (got \(a.status)).")
            }
            guard (0...Int64(Int32.max)).contains(a.delayMs) else {
                throw fail("'delay_ms' must be 0-2147483647 (got \(a.delayMs)).")
            }
            for (name, value) in a.headers {
                guard HTTPValidation.isToken(name) else { throw fail("header name '\(name)' is not an HTTP token.") }
                guard HTTPValidation.isHeaderValue(value) else {
                    throw fail("the value of header '\(name)' must not contain CR, LF or control characters.")
                }
            }
        }
        return self
    }
}

// MARK: JSON

extension Stub {
    /// Members of a route object besides the answer's.
    static let routeKeys = ["method", "path", "query", "times", "responses"]
    /// Members of an answer (at the route's level, or in "responses").
    static let answerKeys = ["status", "headers", "body", "body_base64", "body_file", "delay_ms", "error"]

    /// A route object; `dir`: where a relative `body_file` is (nil: the working directory).
    static func parse(_ v: UnsafeMutablePointer<json_t>, label: String, dir: String?) throws(NetError) -> Stub {
        func fail(_ why: String) -> NetError { NetError.invalidArgument("\(label): \(why)") }
        guard v.pointee.type == JSON_OBJECT else { throw fail("a route must be an object, got \(JSON.typeName(v)).") }
        var method: String? = nil
        var path: String? = nil
        var query: [String: String?] = [:]
        var times: Int? = nil
        var responses: [Answer]? = nil
        var flat = false
        for (key, x) in JSON.members(v) {
            switch key {
            case "method":
                if x.pointee.type == JSON_NULL { continue }
                guard let s = JSON.string(x) else { throw fail("'method' must be a string, got \(JSON.typeName(x)).") }
                method = s == "*" ? nil : s.uppercased()
            case "path":
                guard let s = JSON.string(x) else { throw fail("'path' must be a string, got \(JSON.typeName(x)).") }
                path = s
            case "query":
                guard x.pointee.type == JSON_OBJECT else {
                    throw fail("'query' must be an object of name → value, got \(JSON.typeName(x)).")
                }
                for (name, value) in JSON.members(x) {
                    if value.pointee.type == JSON_NULL {
                        query[name] = .some(nil)
                    } else if let s = JSON.scalarText(value) {
                        query[name] = s
                    } else {
                        throw fail("'query.\(name)' must be a string, number, boolean or null (any value).")
                    }
                }
            case "times":
                guard x.pointee.type == JSON_INTEGER else {
                    throw fail("'times' must be an integer, got \(JSON.typeName(x)).")
                }
                let n = json_integer_value(x)
                guard n >= 1, n <= Int64(Int32.max) else { throw fail("'times' must be 1-2147483647 (got \(n)).") }
                times = Int(n)
            case "responses":
                guard x.pointee.type == JSON_ARRAY else {
                    throw fail("'responses' must be an array of answers, got \(JSON.typeName(x)).")
                }
                var list: [Answer] = []
                for i in 0..<json_array_size(x) {
                    guard let item = json_array_get(x, i) else { continue }
                    list.append(try parseAnswer(item, label: "\(label) responses[\(i)]", dir: dir, route: nil))
                }
                responses = list
            default:
                guard answerKeys.contains(key) else {
                    throw fail(
                        "unknown member '\(key)'. Known: \((routeKeys + answerKeys).joined(separator: ", ")).")
                }
                flat = true
            }
        }
        guard let path else { throw fail("'path' is required (e.g. \"/users/{id}\").") }
        if flat && responses != nil {
            throw fail("give the answer's members (status, body, …) or 'responses', not both.")
        }
        var answers: [Answer]
        if let responses {
            answers = responses
        } else {
            answers = [try parseAnswer(v, label: label, dir: dir, route: routeKeys)]
        }
        return try Stub(method: method, path: path, query: query, answers: answers, times: times)
            .validated(label: label)
    }

    /// One answer object; `route`: the members to skip (an answer given at the route's level).
    static func parseAnswer(
        _ v: UnsafeMutablePointer<json_t>, label: String, dir: String?, route: [String]?
    ) throws(NetError) -> Answer {
        func fail(_ why: String) -> NetError { NetError.invalidArgument("\(label): \(why)") }
        guard v.pointee.type == JSON_OBJECT else { throw fail("an answer must be an object, got \(JSON.typeName(v)).") }
        var a = Answer()
        var bodies = 0
        var contentType: String? = nil
        for (key, x) in JSON.members(v) {
            if let route, route.contains(key) { continue }
            switch key {
            case "status":
                guard x.pointee.type == JSON_INTEGER else {
                    throw fail("'status' must be an integer, got \(JSON.typeName(x)).")
                }
                let n = json_integer_value(x)
                guard (100...999).contains(n) else { throw fail("'status' must be an HTTP status 100-999 (got \(n)).") }
                a.status = Int(n)
            case "headers":
                guard x.pointee.type == JSON_OBJECT else {
                    throw fail("'headers' must be an object of name → string, got \(JSON.typeName(x)).")
                }
                for (name, value) in JSON.members(x) {
                    guard let s = JSON.scalarText(value) else {
                        throw fail("'headers.\(name)' must be a string, got \(JSON.typeName(value)).")
                    }
                    a.headers.append((name, s))
                }
            case "body":
                bodies += 1
                if let s = JSON.string(x) {
                    a.body = Array(s.utf8)
                } else if let text = JSONValue.dump(x) {
                    a.body = Array(text.utf8)
                    contentType = "application/json"
                }
            case "body_base64":
                bodies += 1
                guard let s = JSON.string(x), let bytes = StubBase64.decode(s) else {
                    throw fail("'body_base64' must be a base64 string.")
                }
                a.body = bytes
            case "body_file":
                bodies += 1
                guard let s = JSON.string(x), !s.isEmpty else { throw fail("'body_file' must be a non-empty path.") }
                var full = s
                if let dir, !s.hasPrefix("/") { full = dir + "/" + s }
                switch StubFiles.read(full) {
                case .success(let bytes): a.body = bytes
                case .failure(let why): throw fail("'body_file' \"\(full)\" cannot be read: \(why).")
                }
            case "delay_ms":
                guard x.pointee.type == JSON_INTEGER else {
                    throw fail("'delay_ms' must be an integer, got \(JSON.typeName(x)).")
                }
                let n = json_integer_value(x)
                guard (0...Int64(Int32.max)).contains(n) else {
                    throw fail("'delay_ms' must be 0-2147483647 (got \(n)).")
                }
                a.delayMs = n
            case "error":
                guard x.pointee.type == JSON_OBJECT else {
                    throw fail("'error' must be an object such as {\"transport\": 7}, got \(JSON.typeName(x)).")
                }
                for (name, code) in JSON.members(x) {
                    guard name == "transport" else {
                        throw fail("unknown member 'error.\(name)'. Known: transport (a libcurl code, 1-99).")
                    }
                    guard code.pointee.type == JSON_INTEGER, (1...99).contains(json_integer_value(code)) else {
                        throw fail("'error.transport' must be a libcurl code 1-99.")
                    }
                    a.transportError = Int32(json_integer_value(code))
                }
                if a.transportError == nil { throw fail("'error' must name the failure: {\"transport\": 7}.") }
            default:
                throw fail(
                    "unknown member '\(key)'. Known: \((route.map { $0 + answerKeys } ?? answerKeys).joined(separator: ", "))."
                )
            }
        }
        if bodies > 1 { throw fail("give one of 'body', 'body_base64' and 'body_file'.") }
        if let contentType, !a.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            a.headers.append(("Content-Type", contentType))
        }
        if a.transportError != nil { a.status = 0 }
        return a
    }
}

/// Base64 (RFC 4648, with padding) for recorded bodies that are not UTF-8 text.
enum StubBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i]
            let b1 = i + 1 < bytes.count ? bytes[i + 1] : 0
            let b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 0x0f) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 0x3f)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        for c in text.utf8 where c != UInt8(ascii: "=") && c != UInt8(ascii: "\n") && c != UInt8(ascii: "\r") {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt8(v))
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let n = min(4, values.count - i)
            let v0 = values[i]
            let v1 = n > 1 ? values[i + 1] : 0
            let v2 = n > 2 ? values[i + 2] : 0
            let v3 = n > 3 ? values[i + 3] : 0
            out.append(v0 << 2 | v1 >> 4)
            if n > 2 { out.append((v1 & 0x0f) << 4 | v2 >> 2) }
            if n > 3 { out.append((v2 & 0x03) << 6 | v3) }
            i += 4
        }
        return out
    }
}
