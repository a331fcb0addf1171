import CJansson

/// Turns a received response into success or one error, following
/// docs/errors.md#classification (transfer failures are classified in
/// TransportErrors.swift):
///  2. 204, 304, or an empty 2xx body → success, data = JSON null.
///  3. A JSON object with the configured envelope fields → success iff every
///     configured condition holds, else an API error (whatever the HTTP status).
///  4. JSON that is not an envelope → HTTP error if status ≥ 400, else PARSE.
///  5. Not JSON → HTTP error if status ≥ 400, else PARSE with line/column; JSON
///     with a key twice in one object (any depth) is not accepted either: PARSE
///     DUPLICATE_KEY naming the key.
/// A 3xx that was not followed (max_redirects 0, or no Location) mirrors rule 2:
/// a body that is an envelope follows rule 3; any other body is a success, data =
/// JSON null when it is empty, else the body as in raw mode — never a PARSE error.
/// Raw mode: status ≥ 400 → HTTP error, else success; its data (Response.data, the
/// body parsed when first asked) follows jansson's rule: a key's last value wins.
enum Classifier {
    /// Non-copyable: the classifier's functions borrow it, so its references are
    /// not retained and released again by copies (enforced by the type).
    struct Input: ~Copyable {
        var status: Int32
        var headers: HeaderStore
        var body: NetBytes
        var method: String
        var url: CString
        var envelope: CompiledEnvelope?
        /// A stored answer served again (Features/Cache): the response says so.
        var fromCache = false
        var notModified = false
        /// The URL was joined to the client's base URL (an HTTP 404's advice names it).
        var joinedToBase = false
        /// The URL as text, for messages (error paths only).
        var urlText: String { String(cString: url.pointer) }

        init(
            status: Int32, headers: HeaderStore, body: NetBytes, method: String, url: CString,
            envelope: CompiledEnvelope?
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.method = method
            self.url = url
            self.envelope = envelope
            // A 304 is "not modified" whoever answers it (the cache marks its own).
            self.notModified = status == 304
        }

        init(
            status: Int32, headers: HeaderStore, body: NetBytes, method: String, url: CString,
            schema: EnvelopeSchema?
        ) {
            self.init(
                status: status, headers: headers, body: body, method: method, url: url,
                envelope: schema.map(CompiledEnvelope.init))
        }
    }

    static func classify(_ input: borrowing Input) -> (Response, NetError?) {
        guard let envelope = input.envelope else { return raw(input) }
        let status = input.status

        // 2. Nothing to validate.
        if status == 204 || status == 304 || ((200..<300).contains(status) && input.body.count == 0) {
            return (response(input, nil, nil), nil)
        }

        // An unfollowed redirect with nothing to read: as rule 2.
        let redirect = (300..<400).contains(status)
        if redirect && input.body.count == 0 { return (response(input, nil, nil), nil) }

        // 5. Not JSON — or, for an envelope, JSON with a key twice in an object: one
        // key, one meaning (a proxy reading the first "code" and we the last would
        // disagree), so the parse refuses duplicates at any depth.
        let root: UnsafeMutablePointer<json_t>   // owned until handed to a Response
        switch JSONValue.parseOwned(input.body.bytes, rejectingDuplicates: true) {
        case .failure(let f): return notJSON(input, f, redirect: redirect)
        case .success(let v): root = v
        }

        // 4. JSON but not an envelope.
        guard root.pointee.type == JSON_OBJECT else { return notEnvelope(input, root, redirect: redirect, nil) }
        let obj = root
        if let problem = missingOrWrongField(obj, envelope) {
            return notEnvelope(input, root, redirect: redirect, problem)
        }

        // 3. An envelope: evaluate every configured condition.
        var ok = true
        if let f = envelope.successField, let v = json_object_get(obj, f.pointer) {
            ok = ok && v.pointee.type == JSON_TRUE
        }
        if let f = envelope.statusField, let v = json_object_get(obj, f.pointer) {
            ok = ok && envelope.isOKStatus(v)
        }
        let codeValue = envelope.codeField.flatMap { json_object_get(obj, $0.pointer) }
        if envelope.checksCode, let v = codeValue {
            ok = ok && envelope.isOKCode(v)
        }
        let dataValue = envelope.dataIsBody ? obj : envelope.dataField.flatMap { json_object_get(obj, $0.pointer) }
        let data = (dataValue?.pointee.type == JSON_NULL) ? nil : dataValue
        let r = response(input, root, data)
        if ok { return (r, nil) }
        return (r, apiError(obj, envelope.schema, codeValue: codeValue, data: data, input))
    }

    // The failures are built out of line (`@inline(never)`), so the code a
    // successful response runs through stays a few contiguous cache lines rather
    // than jumping over every message's string interpolation.

    /// Rule 5: the body is not JSON (or memory ran out parsing it).
    @inline(never)
    private static func notJSON(_ input: borrowing Input, _ f: JSONParseFailure, redirect: Bool) -> (
        Response, NetError?
    ) {
        if f.outOfMemory {
            // Not the server's fault: NC_CLIENT_INTERNAL (Transfer.next drops the response).
            var e = NetError.internalError(
                "Out of memory while parsing the response body of \(input.method) \(input.urlText).")
            e.attempts = 1
            return (response(input, nil, nil), e)
        }
        if redirect { return raw(input) }
        let r = response(input, nil, nil)
        if input.status >= 400 { return (r, httpError(input)) }
        if f.isDuplicateKey { return (r, withResponse(duplicateKey(input, f), input)) }
        let what =
            input.body.count == 0
            ? "The response body is empty"
            : "The response body is not valid JSON (line \(f.line), column \(f.column): \(f.reason))"
        return (
            r,
            withResponse(
                .parse(
                    .invalidJSON,
                    "\(what) for \(input.method) \(input.urlText). Check the endpoint, or send the request in raw mode if it does not return JSON."
                ), input)
        )
    }

    /// Rule 5's duplicate key: the body is JSON, but an object of it has a key twice.
    @inline(never)
    private static func duplicateKey(_ input: borrowing Input, _ f: JSONParseFailure) -> NetError {
        let key = f.duplicateKey.map { "the key \"\($0)\"" } ?? "a key (\(f.reason))"
        return .parse(
            .duplicateKey,
            "The response body has \(key) twice in one object (line \(f.line), column \(f.column)) for \(input.method) \(input.urlText). In envelope mode a key has one meaning: a proxy or gateway that reads the first value and libnetcore, which would read the last, could disagree on the outcome, so the response is refused. Fix the server; raw mode keeps the last value."
        )
    }

    /// Rule 4: JSON, but not an object (`problem` nil) or an object without the
    /// envelope's fields (`problem`); the response takes over `root`.
    @inline(never)
    private static func notEnvelope(
        _ input: borrowing Input, _ root: UnsafeMutablePointer<json_t>, redirect: Bool, _ problem: NetError?
    ) -> (Response, NetError?) {
        if redirect { return rawRedirect(input, root) }
        let r = response(input, root, nil)
        if input.status >= 400 { return (r, httpError(input)) }
        if let problem { return (r, withResponse(problem, input)) }
        return (
            r,
            withResponse(
                .parse(
                    .notObject,
                    "The response body is a JSON \(JSON.typeName(root)), not an envelope object, for \(input.method) \(input.urlText). Use raw mode for this endpoint, or fix the envelope configuration."
                ), input)
        )
    }

    private static func response(
        _ input: borrowing Input, _ json: UnsafeMutablePointer<json_t>?,
        _ data: UnsafeMutablePointer<json_t>?
    ) -> Response {
        Response(
            status: input.status, headers: input.headers, body: input.body, url: input.url,
            json: json, source: .envelope(data), fromCache: input.fromCache, notModified: input.notModified)
    }

    private static func raw(_ input: borrowing Input) -> (Response, NetError?) {
        let r = Response(
            status: input.status, headers: input.headers, body: input.body, url: input.url,
            json: nil, source: .body, fromCache: input.fromCache, notModified: input.notModified)
        return (r, input.status >= 400 ? httpError(input) : nil)
    }

    /// An unfollowed redirect whose body is JSON but not an envelope: success with
    /// the body as data (raw mode); the response takes over `root`.
    private static func rawRedirect(_ input: borrowing Input, _ root: UnsafeMutablePointer<json_t>) -> (
        Response, NetError?
    ) {
        (
            Response(
                status: input.status, headers: input.headers, body: input.body, url: input.url,
                json: root, source: .body, fromCache: input.fromCache, notModified: input.notModified), nil
        )
    }

    /// The first configured condition field that is absent or of the wrong type.
    private static func missingOrWrongField(_ obj: UnsafeMutablePointer<json_t>, _ envelope: CompiledEnvelope)
        -> NetError?
    {
        func check(_ field: CString?, _ expected: String, _ valid: (UnsafeMutablePointer<json_t>) -> Bool) -> NetError?
        {
            guard let field else { return nil }
            guard let v = json_object_get(obj, field.pointer) else {
                return .parse(
                    .missingField,
                    "The response is not a valid envelope: field '\(String(cString: field.pointer))' is missing. Check the endpoint or the 'envelope' configuration."
                )
            }
            if !valid(v) {
                return .parse(
                    .fieldType,
                    "The response is not a valid envelope: field '\(String(cString: field.pointer))' is \(JSON.typeName(v)), expected \(expected)."
                )
            }
            return nil
        }
        if let problem = check(
            envelope.successField, "boolean", { $0.pointee.type == JSON_TRUE || $0.pointee.type == JSON_FALSE })
        {
            return problem
        }
        if let problem = check(envelope.statusField, "string or integer", isCodeLike) { return problem }
        return check(envelope.checksCode ? envelope.codeField : nil, "integer or string", isCodeLike)
    }

    private static func isCodeLike(_ v: UnsafeMutablePointer<json_t>) -> Bool {
        v.pointee.type == JSON_INTEGER || v.pointee.type == JSON_STRING
    }

    @inline(never)
    private static func apiError(
        _ obj: UnsafeMutablePointer<json_t>, _ schema: EnvelopeSchema,
        codeValue: UnsafeMutablePointer<json_t>?, data: UnsafeMutablePointer<json_t>?,
        _ input: borrowing Input
    ) -> NetError {
        let codeText = codeValue.flatMap { JSON.scalarText($0) ?? JSONValue.dump($0) } ?? ""
        let serverMessage = schema.messageField.flatMap { json_object_get(obj, $0) }.flatMap(JSON.scalarText) ?? ""
        let message =
            serverMessage.isEmpty
            ? "The server refused the request with business code '\(codeText)' and no message (\(input.method) \(input.urlText))."
            : serverMessage
        var e = NetError(domain: .api, code: Int64(codeText) ?? 0, codeString: codeText, message: message)
        e.traceID = schema.traceIDField.flatMap { json_object_get(obj, $0) }.flatMap(JSON.scalarText)
        e.data = data.map { JSONValue(borrowing: $0) }
        e.isAuthExpired = !codeText.isEmpty && schema.authExpiredCodes.contains(codeText)
        return withResponse(e, input)
    }

    @inline(never)
    static func httpError(_ input: borrowing Input) -> NetError {
        let s = input.status
        let reason = HTTPStatus.reason(s)
        let advice: String
        switch s {
        case 401: advice = "Log in again or check the credentials."
        case 403: advice = "The account may not access this resource."
        case 404:
            advice =
                input.joinedToBase
                ? "Check the path and the base URL of the environment." : "Check the URL's path."
        case 408, 429: advice = "Wait and retry later."
        case 400..<500: advice = "Check the request's parameters and headers."
        default: advice = "The server failed; retry later."
        }
        let said = serverReason(input.body).map { " The server said: \"\($0)\"." } ?? ""
        var e = NetError(
            domain: .http, code: Int64(s),
            message:
                "The server answered HTTP \(s)\(reason.isEmpty ? "" : " \(reason)") to \(input.method) \(input.urlText).\(said) \(advice)"
        )
        e.isRetryable = HTTPStatus.retryable.contains(s)
        return withResponse(e, input)
    }

    /// The server's one-line reason for an HTTP error, when its body has one: the
    /// string member "error", "message", "detail" or "msg" of a JSON object, or a
    /// short text body of one line (at most 200 bytes, printable UTF-8). nil otherwise
    /// (HTML pages, long or binary bodies).
    static func serverReason(_ body: NetBytes) -> String? {
        let bytes = body.bytes
        guard !bytes.isEmpty, bytes.count <= 4096 else { return nil }
        if bytes.first == UInt8(ascii: "{") {
            guard case .success(let v) = JSONValue.parseOwned(bytes) else { return nil }
            defer { json_decref(v) }
            for key in ["error", "message", "detail", "msg"] {
                if let m = json_object_get(v, key), m.pointee.type == JSON_STRING, let c = json_string_value(m) {
                    return oneLine(String(cString: c))
                }
            }
            return nil
        }
        guard bytes.count <= 200, bytes.first != UInt8(ascii: "<") else { return nil }
        return oneLine(String(decoding: bytes, as: UTF8.self))
    }

    private static func oneLine(_ text: String) -> String? {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        let t = String(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
        guard !t.isEmpty, t.count <= 200,
            !t.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{FFFD}" })
        else { return nil }
        return t
    }

    private static func withResponse(_ error: NetError, _ input: borrowing Input) -> NetError {
        var e = error
        e.httpStatus = input.status
        e.body = input.body
        e.attempts = 1
        return e
    }
}

enum HTTPStatus {
    /// Statuses worth retrying (Response/Retryable.swift).
    static var retryable: Set<Int32> { Retryable.statusSet }

    static func reason(_ s: Int32) -> String {
        switch s {
        case 300: return "Multiple Choices"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
