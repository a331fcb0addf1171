extension Request {
    /// An HTTP method: `.get`, `.post`, … for the usual ones, a string literal for any
    /// other token (`"PROPFIND"`). Upper-cased; a value that is not an HTTP token is
    /// refused when the request is made (`Request.init(method:target:)`).
    public struct Method: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The method token, upper case.
        public let rawValue: String

        /// A method from its token (upper-cased).
        public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
        public init(stringLiteral value: String) { self.init(rawValue: value) }
        /// An already upper-cased token (a request's own).
        init(upperCased: String) { rawValue = upperCased }

        public var description: String { rawValue }

        /// GET.
        public static let get = Method(rawValue: "GET")
        /// HEAD.
        public static let head = Method(rawValue: "HEAD")
        /// POST.
        public static let post = Method(rawValue: "POST")
        /// PUT.
        public static let put = Method(rawValue: "PUT")
        /// PATCH.
        public static let patch = Method(rawValue: "PATCH")
        /// DELETE.
        public static let delete = Method(rawValue: "DELETE")
        /// OPTIONS.
        public static let options = Method(rawValue: "OPTIONS")

        /// GET, HEAD, PUT, DELETE and OPTIONS: sending one twice has the effect of
        /// sending it once (RFC 9110 §9.2.2), so they are the ones safe to retry.
        public var isIdempotent: Bool {
            switch rawValue {
            case "GET", "HEAD", "PUT", "DELETE", "OPTIONS": return true
            default: return false
            }
        }
    }

    /// A request with a method given as a `Method` (`.get`, `"PROPFIND"`).
    public init(method: Method, target: String) throws(NetError) {
        try self.init(method: method.rawValue, target: target)
    }
}
