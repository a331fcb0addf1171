import NetCoreBase

/// The fluent form of a request: each step returns a new chain and none throws;
/// the first refused step is kept and thrown when the chain is built or sent.
///
/// ```swift
/// let user = try await client.decode(
///     User.self,
///     from: Request.get("/users/7").header("X-A", "1").timeout(.seconds(5)).query(["page": 2]))
/// ```
///
/// Each step applies the rule of the throwing setter it stands for (`setHeader`,
/// `setQuery`, `setParams`, `setTimeout(ms:)`, …), which stay: what one refuses, the
/// other refuses. A refused step leaves the chain failed — later steps change
/// nothing — and `build()`, `NetClient.send(_:)` and `NetClient.decode(_:from:at:)`
/// throw its `NetError` (CLIENT `invalidRequest`, message starting with the step,
/// e.g. `header("X A"): header name must be an HTTP token`); nothing is sent.
extension Request {
    /// A request being built by chained steps (see the extension's comment).
    public struct Chain: Sendable {
        /// The request so far, or the first step's refusal.
        public let result: Result<Request, NetError>

        /// A chain starting from an existing request.
        public init(_ request: Request) { result = .success(request) }

        /// A chain of a new request; a method or target `Request(method:target:)`
        /// refuses leaves the chain failed.
        public init(method: Method, target: String) {
            do throws(NetError) {
                result = .success(try Request(method: method, target: target))
            } catch {
                result = .failure(NetError.invalidArgument("Request(\(method), \"\(target)\"): \(error.message)"))
            }
        }

        private init(result: Result<Request, NetError>) { self.result = result }

        /// The request, or the first refused step's error (CLIENT `invalidRequest`).
        public func build() throws(NetError) -> Request { try result.get() }

        /// Applies one step; a refusal names `step`.
        private func step(_ step: @autoclosure () -> String, _ change: (inout Request) throws(NetError) -> Void)
            -> Chain
        {
            guard case .success(var request) = result else { return self }
            do throws(NetError) {
                try change(&request)
                return Chain(result: .success(request))
            } catch {
                return Chain(result: .failure(NetError.invalidArgument("\(step()): \(error.message)")))
            }
        }

        /// Sets (replaces) a header; nil removes it (`setHeader`).
        public func header(_ name: String, _ value: String?) -> Chain {
            step("header(\"\(name)\")") { (r: inout Request) throws(NetError) in try r.setHeader(name, value) }
        }

        /// Sets each header in order (`setHeader`).
        public func headers(_ fields: KeyValuePairs<String, String>) -> Chain {
            var chain = self
            for (name, value) in fields { chain = chain.header(name, value) }
            return chain
        }

        /// Appends a query parameter; nil removes every parameter of that name (`setQuery`).
        public func query(_ name: String, _ value: String?) -> Chain {
            step("query(\"\(name)\")") { (r: inout Request) throws(NetError) in try r.setQuery(name, value) }
        }

        /// Appends the members of an object as query parameters, as params are sent
        /// in a query: strings as is, numbers and booleans as JSON writes them, arrays
        /// repeat the key, nested objects use brackets, and nil or `.null` members are
        /// left out (`query(["page": 2, "tag": ["a", "b"]])` is `page=2&tag=a&tag=b`).
        public func query(_ parameters: JSONValue) -> Chain {
            step("query") { (r: inout Request) throws(NetError) in
                guard let pairs = parameters.parameterPairs else {
                    throw NetError.invalidArgument("query parameters must be a JSON object")
                }
                for (name, value) in pairs { try r.setQuery(name, value) }
            }
        }

        /// Sets params from a JSON object, as `setParams(_:)` (a dictionary literal:
        /// `params(["name": "Ada", "nickname": nil])` leaves the nil out; `.null` is
        /// sent as JSON null by a JSON body).
        public func params(_ parameters: JSONValue) -> Chain {
            step("params") { (r: inout Request) throws(NetError) in try r.setParams(parameters) }
        }

        /// Sets params from an `Encodable` value (`JSONValueEncoder`: a nil optional
        /// property is left out), which must encode to a JSON object.
        public func params<T: Encodable>(_ value: T) -> Chain {
            step("params(\(T.self))") { (r: inout Request) throws(NetError) in
                try r.setParams(JSONValue(encoding: value))
            }
        }

        /// Sets params from an `Encodable` value and sends them as a JSON body
        /// (`params(_:)` then `encoding(.json)`).
        public func json<T: Encodable>(_ value: T) -> Chain { params(value).encoding(.json) }

        /// How params are encoded (`encoding`).
        public func encoding(_ encoding: ParameterEncoding) -> Chain {
            step("encoding") { (r: inout Request) throws(NetError) in r.encoding = encoding }
        }

        /// A raw body and its Content-Type (`setBody`); clears params.
        public func body(_ bytes: [UInt8], contentType: String?) -> Chain {
            step("body") { (r: inout Request) throws(NetError) in
                var refused: NetError?
                bytes.withUnsafeBytes { b in
                    do throws(NetError) { try r.setBody(b, contentType: contentType) } catch { refused = error }
                }
                if let refused { throw refused }
            }
        }

        /// The total timeout overriding the client's (`setTimeout(ms:)`): `.zero` is no
        /// limit, a negative one is refused; rounded up to whole milliseconds.
        public func timeout(_ duration: Duration) -> Chain {
            step("timeout(\(duration))") { (r: inout Request) throws(NetError) in
                try r.setTimeout(ms: Chain.milliseconds(duration))
            }
        }

        /// The deadline across attempts and waits (`setDeadline(ms:)`).
        public func deadline(_ duration: Duration) -> Chain {
            step("deadline(\(duration))") { (r: inout Request) throws(NetError) in
                try r.setDeadline(ms: Chain.milliseconds(duration))
            }
        }

        /// The cancellation group (`setGroup`).
        public func group(_ name: String?) -> Chain {
            step("group") { (r: inout Request) throws(NetError) in try r.setGroup(name) }
        }

        /// The caller's label, carried by the request's errors, events and log lines (`setLabel`).
        public func label(_ label: String?) -> Chain {
            step("label") { (r: inout Request) throws(NetError) in try r.setLabel(label) }
        }

        /// Envelope validation on/off for this request; nil: the client's (`envelope`).
        public func envelope(_ on: Bool?) -> Chain {
            step("envelope") { (r: inout Request) throws(NetError) in r.envelope = on }
        }

        /// Adds per-request switches (`flags`).
        public func flags(_ flags: RequestFlags) -> Chain {
            step("flags") { (r: inout Request) throws(NetError) in r.flags.formUnion(flags) }
        }

        /// Duration → whole milliseconds, rounded up; refused when negative or too large.
        static func milliseconds(_ d: Duration) throws(NetError) -> Int64 {
            let (seconds, attos) = d.components
            guard seconds >= 0, attos >= 0 else {
                throw NetError.invalidArgument("a time limit must be zero (no limit) or positive")
            }
            let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
            let extra = (attos + 999_999_999_999_999) / 1_000_000_000_000_000
            guard !overflow, ms <= Int64.max - extra else {
                throw NetError.invalidArgument("a time limit must be at most \(Int64.max) ms")
            }
            return ms + extra
        }
    }

    /// A chain of a GET request (`Request.get("/users/7").header(…)…`).
    public static func get(_ target: String) -> Chain { Chain(method: .get, target: target) }
    /// A chain of a POST request.
    public static func post(_ target: String) -> Chain { Chain(method: .post, target: target) }
    /// A chain of a PUT request.
    public static func put(_ target: String) -> Chain { Chain(method: .put, target: target) }
    /// A chain of a PATCH request.
    public static func patch(_ target: String) -> Chain { Chain(method: .patch, target: target) }
    /// A chain of a DELETE request.
    public static func delete(_ target: String) -> Chain { Chain(method: .delete, target: target) }
    /// A chain of a HEAD request.
    public static func head(_ target: String) -> Chain { Chain(method: .head, target: target) }

    /// This request as the start of a chain.
    public var chain: Chain { Chain(self) }
}

extension NetClient {
    /// Builds the chain and sends it (`send(_:)`): a refused step throws its
    /// CLIENT `invalidRequest` error and nothing is sent (the error handler is not
    /// called: nothing failed on the network, as with the throwing setters).
    public func send(_ chain: Request.Chain) async throws(NetError) -> Response {
        try await send(chain.build())
    }

    /// Builds the chain, sends it and decodes the data at `keyPath`
    /// (`decode(_:from:at:using:)`).
    public func decode<T: Decodable>(
        _ type: T.Type, from chain: Request.Chain, at keyPath: String = "",
        using decoder: JSONValueDecoder = JSONValueDecoder()
    ) async throws(NetError) -> T {
        try await decode(type, from: chain.build(), at: keyPath, using: decoder)
    }
}
