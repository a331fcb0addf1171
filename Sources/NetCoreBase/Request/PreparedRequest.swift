import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// A request resolved against the client's settings, ready for libcurl: full URL,
/// merged header lines, encoded body. Built on the sending thread so the transfer
/// thread only sets options.
final class PreparedRequest: @unchecked Sendable {
    let method: String
    let methodC: CString
    /// The URL in its three forms, shared by the attempts of one request (an adapted
    /// copy parses nothing again).
    let location: RequestURL
    var url: CString { location.c }
    /// The URL as a Swift string.
    var urlText: String { location.text }
    /// See RequestURL.parsed.
    var parsedURL: OpaquePointer? { location.parsed }
    /// The URL's scheme is https (else http): picks the environment's proxy.
    let isHTTPS: Bool
    /// Owned curl_slist of "Name: value" lines (freed on deinit).
    let headerList: UnsafeMutablePointer<curl_slist>?
    let body: NetBytes?
    /// The params the request was resolved with (common params included), before
    /// encoding: what an adapter reads (`OutgoingRequest.params`); nil: none.
    let params: JSONValue?
    let timeoutMs: Int64
    let connectTimeoutMs: Int64
    /// Retry policy, idle timeout and deadline (Resilience.swift).
    let resilience: Resilience
    /// The method is not idempotent (POST, PATCH, …): libcurl must not send it
    /// again on its own (ncbody.h; EasyHandle+Configure.swift).
    let guardsResend: Bool
    let envelope: CompiledEnvelope?
    let limits: Configuration.Limits
    /// The merged headers the lines were built from (kept for redirects).
    let headers: HeaderFields
    /// Header names (lower-cased) dropped on a redirect to another origin.
    let credentialHeaders: Set<String>
    /// Where a 2xx body is written instead of memory (Request.outputPath).
    let outputPath: String?
    /// The cancellation group (Request.group, or the endpoint's); nil: none.
    let group: String?
    /// Accept-Encoding was sent (by the configuration, or the request's own header):
    /// libcurl is to decompress the response.
    let decodesContent: Bool
    /// TLS and HTTP-version options: the client's, or its endpoint's (ConnectionSettings.swift).
    let connection: ConnectionSettings
    private let compression: Bool
    /// What identical requests in flight share a transfer by (Features/Coalescing);
    /// nil: this one never shares (coalescing off, NC_REQUEST_NO_COALESCE, not a
    /// GET/HEAD, a body or an output file). Made in `make` only: redirected and
    /// adapted forms are what a transfer sends, never what it is looked up by.
    let coalescingKey: CoalescingKey?
    /// What the client's cache finds this request's answer by (Features/Cache);
    /// nil: no cache configured, not a GET/HEAD, or a body. Set by `make`
    /// (and copied to a revalidation's conditional form) before the value is shared.
    var cacheKey: CacheKey?
    /// The URL was the client's base URL joined with a relative path (set by `make`
    /// on the request as resolved at send): a 404's advice names the base URL only then.
    var joinedToBase = false
    /// The catalog endpoint the request was resolved from, and the caller's label
    /// (Request.label): who the request is, for its errors and events
    /// (NetError.RequestIdentity). Set by `make` on the request as resolved at send;
    /// nil on redirected and adapted forms, which are never asked.
    var endpointName: String?
    var label: String?
    /// How the request uses the cache (Request.cachePolicy, else the endpoint's).
    var cachePolicy: CachePolicy = .networkOnly
    /// A body file or multipart parts (Request.upload); nil: `body` or none.
    let upload: Upload?
    /// The request this one was adapted from (`adapted`): every option but the
    /// headers is the same, so a handle configured for it only needs the header
    /// list (EasyHandle+Configure.swift). Nil for a request made or redirected.
    let adaptedFrom: PreparedRequest?
    /// When `headerList` is lines of this request's own followed by `adaptedFrom`'s
    /// list (shared, not copied): the last own node, unlinked before the own
    /// nodes are freed. Nil when the whole list is this request's.
    private let sharedTailJoint: UnsafeMutablePointer<curl_slist>?
    /// The request whose list is the shared tail, kept alive with this one.
    private let tailOwner: PreparedRequest?

    private convenience init(
        method: String, url: String, headers: HeaderFields, body: NetBytes?,
        timeoutMs: Int64, connectTimeoutMs: Int64, envelope: CompiledEnvelope?,
        limits: Configuration.Limits, credentialHeaders: Set<String>, compression: Bool,
        outputPath: String?, connection: ConnectionSettings, resilience: Resilience, group: String? = nil,
        coalesce: Bool = false, upload: Upload? = nil, params: JSONValue? = nil
    ) {
        self.init(
            method: method, location: RequestURL(url), headers: headers, body: body,
            timeoutMs: timeoutMs, connectTimeoutMs: connectTimeoutMs, envelope: envelope,
            limits: limits, credentialHeaders: credentialHeaders, compression: compression,
            outputPath: outputPath, connection: connection, resilience: resilience, group: group,
            coalesce: coalesce, upload: upload, params: params)
    }

    private init(
        method: String, location: RequestURL, headers: HeaderFields, body: NetBytes?,
        timeoutMs: Int64, connectTimeoutMs: Int64, envelope: CompiledEnvelope?,
        limits: Configuration.Limits, credentialHeaders: Set<String>, compression: Bool,
        outputPath: String?, connection: ConnectionSettings, resilience: Resilience, group: String? = nil,
        coalesce: Bool = false, upload: Upload? = nil, params: JSONValue? = nil
    ) {
        self.upload = upload
        self.params = params
        self.adaptedFrom = nil
        self.sharedTailJoint = nil
        self.tailOwner = nil
        // Decided by `make` (`CoalescingKey.eligible`); the key is built from what is sent.
        self.coalescingKey =
            coalesce
            ? CoalescingKey(
                method: method, url: location.text, headers: headers, envelope: envelope != nil,
                compression: compression, limits: limits, timeoutMs: timeoutMs, connectTimeoutMs: connectTimeoutMs,
                resilience: resilience, connection: connection) : nil
        self.method = method
        self.connection = connection
        self.resilience = resilience
        self.guardsResend = !Request.Method(upperCased: method).isIdempotent
        self.outputPath = outputPath
        self.group = group
        self.compression = compression
        self.decodesContent = compression || headers.contains("Accept-Encoding")
        self.methodC = CString(method)
        self.location = location
        self.isHTTPS = location.text.utf8.prefix(6).map { $0 | 0x20 }.elementsEqual("https:".utf8)
        self.headers = headers
        var list: UnsafeMutablePointer<curl_slist>? = nil
        Self.buildLines(
            into: &list, headers: headers, compression: compression, hasBody: body != nil || upload != nil,
            multipart: upload.isMultipart)
        self.headerList = list
        self.body = body
        self.timeoutMs = timeoutMs
        self.connectTimeoutMs = connectTimeoutMs
        self.envelope = envelope
        self.limits = limits
        self.credentialHeaders = credentialHeaders
    }

    /// The request to send after a redirect answered with `status` to `url`.
    /// 303, and 301/302 after a POST, become a GET without body (as libcurl and
    /// browsers do); 307/308 keep method and body. Credentials are dropped when the
    /// origin changes.
    func redirected(to url: String, status: Int, crossOrigin: Bool) -> PreparedRequest {
        var method = self.method
        var body = self.body
        var upload = self.upload
        var headers = self.headers
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            method = "GET"
            body = nil
            upload = nil
            headers.remove("Content-Type")
            headers.remove("Content-Length")
        }
        if crossOrigin {
            for name in credentialHeaders { headers.remove(name) }
        }
        return PreparedRequest(
            method: method, url: url, headers: headers, body: body,
            timeoutMs: timeoutMs, connectTimeoutMs: connectTimeoutMs,
            envelope: envelope, limits: limits,
            credentialHeaders: crossOrigin ? [] : credentialHeaders,
            compression: compression, outputPath: outputPath, connection: connection, resilience: resilience,
            group: group, upload: upload, params: params)
    }

    /// What one attempt sends when its adapters changed the URL (`url`) or the
    /// body (`body`: .some(nil) removes it; nil keeps this request's): a request
    /// made again from them, with `headers` (AdapterChain). A new body replaces an
    /// upload. Nothing of this one is shared, so a handle configures it in full.
    func rewritten(url: String?, body: NetBytes??, headers: HeaderFields) -> Result<PreparedRequest, NetError> {
        let newURL = url ?? urlText
        guard HTTPValidation.isAbsoluteHTTP(newURL) else {
            return .failure(.adapterFailed("A request adapter made a URL that is not an absolute http(s) URL."))
        }
        let newBody: NetBytes? = body ?? self.body
        return .success(
            PreparedRequest(
                method: method, location: url.map(RequestURL.init) ?? location, headers: headers, body: newBody,
                timeoutMs: timeoutMs, connectTimeoutMs: connectTimeoutMs, envelope: envelope, limits: limits,
                credentialHeaders: credentialHeaders, compression: compression, outputPath: outputPath,
                connection: connection, resilience: resilience, group: group,
                upload: body == nil ? upload : nil, params: params))
    }

    /// This request with `headers` in place of its own: what one attempt sends after
    /// the request adapters ran (AdapterChain.swift), or a revalidation's
    /// conditional form (NetClient+Cache.swift). Everything else is kept.
    ///
    /// `appendedFrom`: the adapters only added headers, the entries of `headers`
    /// from that index on, under names this request does not carry: then only
    /// their lines are made, in front of this request's list, which is shared
    /// rather than copied (bench/RESULTS.md, "Figures that justified code choices").
    /// A name that decides one of the lines `init` adds itself (Accept-Encoding,
    /// User-Agent, Expect, Content-Type) rebuilds the whole list.
    func adapted(headers: HeaderFields, appendedFrom: Int? = nil) -> PreparedRequest {
        let root = adaptedFrom ?? self
        if let first = appendedFrom, first <= headers.entries.count {
            let added = headers.entries[first...]
            // Nothing added (a token the request overrides, an adapter that only
            // read): this request is what the attempt sends.
            if added.isEmpty { return self }
            if !added.contains(where: { Self.decidesOwnLines($0.name) }) {
                var list: UnsafeMutablePointer<curl_slist>? = nil
                var joint: UnsafeMutablePointer<curl_slist>? = nil
                for (name, value) in added {
                    guard let next = Self.appending(list, name, value) else { continue }
                    list = next
                    // curl_slist_append returns the head; the new node is the last.
                    joint = joint?.pointee.next ?? next
                }
                // (No line made — out of memory — falls back to the rebuild below.)
                if let joint, let list {
                    joint.pointee.next = headerList
                    return PreparedRequest(
                        adapting: self, root: root, headers: headers, headerList: list,
                        sharedTailJoint: joint, decodesContent: decodesContent)
                }
            }
        }
        var list: UnsafeMutablePointer<curl_slist>? = nil
        Self.buildLines(
            into: &list, headers: headers, compression: compression,
            hasBody: body != nil || upload != nil, multipart: upload.isMultipart)
        return PreparedRequest(
            adapting: self, root: root, headers: headers, headerList: list, sharedTailJoint: nil,
            decodesContent: compression || headers.contains("Accept-Encoding"))
    }

    /// A copy of `base` with other headers (see `adapted`).
    private init(
        adapting base: PreparedRequest, root: PreparedRequest, headers: HeaderFields,
        headerList: UnsafeMutablePointer<curl_slist>?, sharedTailJoint: UnsafeMutablePointer<curl_slist>?,
        decodesContent: Bool
    ) {
        self.method = base.method
        self.methodC = base.methodC
        self.location = base.location
        self.isHTTPS = base.isHTTPS
        self.body = base.body
        self.timeoutMs = base.timeoutMs
        self.connectTimeoutMs = base.connectTimeoutMs
        self.resilience = base.resilience
        self.guardsResend = base.guardsResend
        self.envelope = base.envelope
        self.limits = base.limits
        self.credentialHeaders = base.credentialHeaders
        self.outputPath = base.outputPath
        self.group = base.group
        self.connection = base.connection
        self.compression = base.compression
        self.upload = base.upload
        self.params = base.params
        // An adapted form is what one attempt sends, never what is looked up.
        self.coalescingKey = nil
        self.headers = headers
        self.headerList = headerList
        self.decodesContent = decodesContent
        self.adaptedFrom = root
        self.sharedTailJoint = sharedTailJoint
        self.tailOwner = sharedTailJoint == nil ? nil : base
    }

    /// Names whose presence changes the lines `buildLines` adds of itself.
    private static func decidesOwnLines(_ name: String) -> Bool {
        HeaderFields.same(name, "Accept-Encoding") || HeaderFields.same(name, "Expect")
            || HeaderFields.same(name, "Content-Type") || HeaderFields.same(name, "User-Agent")
    }

    /// Appends the line "Name: value", or "Name;" (libcurl's way to send a header
    /// with an empty value), to `list`; returns the list's head, nil if libcurl
    /// could not allocate (`list` unchanged). The line is written into a temporary
    /// buffer (the stack for usual lengths) that curl_slist_append copies: no
    /// String is made (concatenating them costs more: bench/RESULTS.md, "Figures that
    /// justified code choices").
    private static func appending(
        _ list: UnsafeMutablePointer<curl_slist>?, _ name: String, _ value: String
    ) -> UnsafeMutablePointer<curl_slist>? {
        var name = name, value = value
        return name.withUTF8 { n in
            value.withUTF8 { v in
                let count = n.count + (v.isEmpty ? 1 : v.count + 2) + 1
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
                    guard let p = buffer.baseAddress else { return nil }
                    var i = 0
                    if let src = n.baseAddress { (p + i).update(from: src, count: n.count) }
                    i += n.count
                    if v.isEmpty {
                        p[i] = UInt8(ascii: ";")
                        i += 1
                    } else {
                        p[i] = UInt8(ascii: ":")
                        p[i + 1] = UInt8(ascii: " ")
                        i += 2
                        if let src = v.baseAddress { (p + i).update(from: src, count: v.count) }
                        i += v.count
                    }
                    p[i] = 0
                    return p.withMemoryRebound(to: CChar.self, capacity: count) { curl_slist_append(list, $0) }
                }
            }
        }
    }

    /// The header lines libcurl sends for `headers`, appended to `list`.
    private static func buildLines(
        into list: inout UnsafeMutablePointer<curl_slist>?, headers: HeaderFields, compression: Bool,
        hasBody: Bool, multipart: Bool
    ) {
        func add(_ line: String) {
            if let appended = curl_slist_append(list, line) { list = appended }
        }
        func add(_ line: CString) {
            if let appended = curl_slist_append(list, line.pointer) { list = appended }
        }
        // Our own lines, made once per process (DefaultHeaders.swift), rather than
        // CURLOPT_ACCEPT_ENCODING's and CURLOPT_USERAGENT's: libcurl 7.88 formats
        // those with aprintf on every request (bench/RESULTS.md, "Figures that
        // justified code choices").
        if compression && !headers.contains("Accept-Encoding"), let line = DefaultHeaders.acceptEncodingLine {
            add(line)
        }
        if !headers.contains("User-Agent") { add(DefaultHeaders.userAgentLine) }
        for (name, value) in headers {
            if let appended = appending(list, name, value) { list = appended }
        }
        if hasBody {
            // No "Expect: 100-continue" round trip, and no Content-Type that the
            // caller did not ask for (libcurl would add a form type): "Name:" removes.
            if !headers.contains("Expect") { add("Expect:") }
            // (A multipart body's Content-Type, with its boundary, is libcurl's.)
            if !headers.contains("Content-Type"), !multipart { add("Content-Type:") }
        }
    }

    deinit {
        if let sharedTailJoint {
            // Only the own lines are this request's; the rest is adaptedFrom's.
            sharedTailJoint.pointee.next = nil
        }
        curl_slist_free_all(headerList)
    }

    /// Resolves `request` against `settings`, or says why it cannot be sent.
    /// `connection`: an endpoint's TLS options (nil: the client's); `envelope`: an
    /// endpoint's own envelope rules (nil: the client's).
    static func make(
        _ request: Request, _ settings: ClientSettings, connection: ConnectionSettings? = nil,
        envelope endpointEnvelope: CompiledEnvelope? = nil
    ) -> Result<PreparedRequest, NetError> {
        // A request naming an endpoint becomes the plain request it stands for.
        if request.endpoint != nil { return makeEndpoint(request, settings) }
        // URL: absolute, or the active base URL joined with the path.
        var url: String
        if HTTPValidation.isAbsoluteHTTP(request.target) {
            url = request.target
        } else if let base = settings.baseURL {
            url = join(base, request.target)
        } else {
            return .failure(
                .invalidRequest(
                    "The path '\(request.target)' is relative but the client has no base_url or environment; configure one or pass an absolute http(s) URL."
                ))
        }

        // Params go to the query or the body.
        let encoding = resolvedEncoding(request)
        var query = request.query
        var body = request.body
        var contentType = request.contentType
        if case .file(_, let type)? = request.upload { contentType = type }
        var params = request.params
        if let common = settings.config.commonParams {
            // "common_params" (CommonParams.swift): the request's own win.
            let placed = CommonParams.place(common, request, encoding)
            params = placed.params
            query.append(contentsOf: placed.query)
        }
        if let params {
            switch encoding {
            case .query, .default:
                query.append(contentsOf: ParameterEncoder.pairs(params).map { (name: $0.0, value: $0.1) })
            case .form:
                let bytes = ParameterEncoder.urlEncoded(ParameterEncoder.pairs(params))
                body = bytes.withUnsafeBytes { NetBytes(bytes: $0) }
                contentType = "application/x-www-form-urlencoded"
            case .json:
                body = NetBytes(ParameterEncoder.jsonBody(params))
                contentType = "application/json"
            }
        }
        if !query.isEmpty { url = appendQuery(url, query) }
        url = PercentEncoding.nonASCII(url)

        // Headers: client defaults, then the request's (which win).
        var headers = settings.config.headers
        for (name, value) in request.headers { headers.set(name, value) }
        if let contentType, !headers.contains("Content-Type") { headers.set("Content-Type", contentType) }

        // A body written to a file or a body callback is not read as an envelope: raw mode.
        let envelope: CompiledEnvelope? =
            (request.envelope ?? true) && request.outputPath == nil && !request.streamsBody
            ? (endpointEnvelope ?? settings.envelope) : nil
        var limits = settings.config.limits
        if let maxRedirects = request.maxRedirects {
            let range = Configuration.Limits.maxRedirectsRange
            limits.maxRedirects = Int(min(max(Int64(maxRedirects), range.lowerBound), range.upperBound))
        }
        let coalesce =
            settings.config.coalesce && !request.flags.contains(.noCoalesce) && request.transferCallbacks == nil
            && CoalescingKey.eligible(
                method: request.method.rawValue, hasBody: body != nil || request.upload != nil,
                outputPath: request.outputPath)
        let prepared = PreparedRequest(
            method: request.method.rawValue, url: url, headers: headers, body: body,
            timeoutMs: request.timeoutMs ?? settings.config.timeoutMs,
            connectTimeoutMs: request.connectTimeoutMs ?? settings.config.connectTimeoutMs,
            envelope: envelope, limits: limits,
            credentialHeaders: settings.credentialHeaderNames,
            compression: settings.config.compression, outputPath: request.outputPath,
            connection: connection ?? settings.connection,
            resilience: Resilience(request, settings, headers: headers), group: request.group,
            coalesce: coalesce, upload: request.upload, params: params)
        // The cache (Features/Cache): the key only when there is a cache to look in.
        prepared.cachePolicy = request.cacheOptions.policy ?? .networkOnly
        // (An output file or a body callback keeps the key: seam 1 sends it as
        // network-only and counts it, NetClient+Cache.swift.)
        if settings.config.cache != nil, body == nil, request.upload == nil,
            prepared.method == "GET" || prepared.method == "HEAD"
        {
            prepared.cacheKey = CacheKey(method: prepared.method, url: url)
        }
        if prepared.cacheKey == nil && prepared.cachePolicy == .cacheOnly {
            return .failure(.notCached(prepared.method, url, cacheConfigured: settings.config.cache != nil))
        }
        prepared.joinedToBase = !HTTPValidation.isAbsoluteHTTP(request.target)
        prepared.label = request.label
        return .success(prepared)
    }

    static func resolvedEncoding(_ request: Request) -> ParameterEncoding {
        guard request.encoding == .default else { return request.encoding }
        switch request.method.rawValue {
        case "GET", "HEAD", "DELETE", "OPTIONS": return .query
        default: return .form
        }
    }

    /// "http://h/api" + "/users" → "http://h/api/users" (exactly one slash between).
    static func join(_ base: String, _ path: String) -> String {
        let baseSlash = base.hasSuffix("/")
        let pathSlash = path.hasPrefix("/")
        if baseSlash && pathSlash { return base + path.dropFirst() }
        if baseSlash || pathSlash { return base + path }
        return base + "/" + path
    }

    /// Adds encoded pairs before any fragment, after an existing query.
    static func appendQuery(_ url: String, _ pairs: [(name: String, value: String)]) -> String {
        var head = Substring(url)
        var fragment: Substring = ""
        if let hash = url.firstIndex(of: "#") {
            head = url[..<hash]
            fragment = url[hash...]
        }
        let encoded = ParameterEncoder.urlEncoded(pairs.map { ($0.name, $0.value) })
        let separator = head.contains("?") ? (head.hasSuffix("?") || head.hasSuffix("&") ? "" : "&") : "?"
        return String(head) + separator + String(decoding: encoded, as: UTF8.self) + String(fragment)
    }
}

/// A request's URL: the text, a C copy for libcurl, and libcurl's parse of it.
final class RequestURL: @unchecked Sendable {
    let text: String
    let c: CString
    /// `text` parsed once by libcurl's URL API (owned CURLU, freed on deinit), given
    /// to libcurl as CURLOPT_CURLU; nil when libcurl refuses the URL, and then
    /// CURLOPT_URL is set so that libcurl reports why, as it always did.
    /// libcurl only reads it, so handles on several threads may share it. With a
    /// plain CURLOPT_URL libcurl parses and re-serialises the URL on every
    /// transfer, which costs more than parsing it once here, for a request sent
    /// again and for a new one (bench/RESULTS.md, "Figures that justified code
    /// choices").
    let parsed: OpaquePointer?

    init(_ text: String) {
        self.text = text
        self.c = CString(text)
        self.parsed = RequestURL.parse(c.pointer)
    }

    deinit { curl_url_cleanup(parsed) }

    /// `url` as a CURLU, parsed with the flags libcurl itself uses for CURLOPT_URL
    /// (so the same URLs are accepted and normalised the same way); nil if refused.
    private static func parse(_ url: UnsafePointer<CChar>) -> OpaquePointer? {
        guard let u = curl_url() else { return nil }
        if curl_url_set(u, CURLUPART_URL, url, UInt32(CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK {
            return u
        }
        curl_url_cleanup(u)
        return nil
    }

    /// The path (percent-encoded as sent, "/" when empty) and the query (without
    /// "?", "" when none) as libcurl sends them; nil when libcurl refused the URL.
    var pathAndQuery: (path: String, query: String)? {
        guard let u = parsed else { return nil }
        if let split = RequestURL.split(text) { return split }
        func part(_ what: CURLUPart) -> String? {
            var out: UnsafeMutablePointer<CChar>? = nil
            guard curl_url_get(u, what, &out, 0) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
        return (part(CURLUPART_PATH) ?? "/", part(CURLUPART_QUERY) ?? "")
    }

    /// The path and query read off `text` directly, when that gives what libcurl's
    /// parse gives: an absolute http(s) URL whose path has no dot segment (libcurl
    /// removes those) — the URLs this library builds. Nil: ask libcurl (which costs
    /// more than the rest of signing: bench/RESULTS.md, "Figures that justified code
    /// choices").
    static func split(_ text: String) -> (path: String, query: String)? {
        let found = text.utf8.withContiguousStorageIfAvailable { u -> (path: String, query: String)? in
            let n = u.count
            // "http://" or "https://", any case.
            var i = 0
            while i < n, u[i] != UInt8(ascii: ":") { i += 1 }
            guard i == 4 || i == 5, n - i >= 3, u[i + 1] == UInt8(ascii: "/"), u[i + 2] == UInt8(ascii: "/") else {
                return nil
            }
            let https: [UInt8] = [0x68, 0x74, 0x74, 0x70, 0x73]   // "https"
            for k in 0..<i where u[k] | 0x20 != https[k] { return nil }
            i += 3
            // The authority ends at the first "/", "?" or "#".
            while i < n, u[i] != UInt8(ascii: "/"), u[i] != UInt8(ascii: "?"), u[i] != UInt8(ascii: "#") { i += 1 }
            let pathStart = i
            // "/." anywhere may be a dot segment ("/./", "/../", a trailing "/."): libcurl's
            // to resolve; so are spaces, backslashes, controls and non-ASCII bytes.
            var previous: UInt8 = 0
            for k in pathStart..<n {
                let b = u[k]
                if previous == UInt8(ascii: "/") && b == UInt8(ascii: ".") { return nil }
                if b <= 0x20 || b >= 0x7f || b == UInt8(ascii: "\\") { return nil }
                previous = b
            }
            while i < n, u[i] != UInt8(ascii: "?"), u[i] != UInt8(ascii: "#") { i += 1 }
            let pathEnd = i
            var query = ""
            if i < n, u[i] == UInt8(ascii: "?") {
                var j = i + 1
                while j < n, u[j] != UInt8(ascii: "#") { j += 1 }
                query = String(decoding: UnsafeBufferPointer(rebasing: u[(i + 1)..<j]), as: UTF8.self)
            }
            let path =
                pathEnd == pathStart
                ? "/" : String(decoding: UnsafeBufferPointer(rebasing: u[pathStart..<pathEnd]), as: UTF8.self)
            return (path, query)
        }
        return found ?? nil
    }
}
