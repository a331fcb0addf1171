import CJansson

extension RetryPolicy {
    /// The keys of a "retry" object, in the order the reference lists them.
    public static let keys = [
        "max_attempts", "backoff", "initial_ms", "multiplier", "max_delay_ms", "jitter",
        "statuses", "methods", "respect_retry_after"
    ]
    // What each key accepts (the JSON parser and `validate()` apply the same).
    static let maxAttemptsRange: ClosedRange<Int64> = 1...100
    static let initialMsRange: ClosedRange<Int64> = 0...3_600_000
    static let multiplierRange: ClosedRange<Double> = 1...100
    static let maxDelayMsRange: ClosedRange<Int64> = 0...86_400_000
    static let statusRange: ClosedRange<Int64> = 100...599

    /// The keys a "retry" object gives; nil keeps the value it is merged over
    /// (docs/contract.md#per-request-overrides: keys given replace, keys absent
    /// keep the client's).
    public struct Patch: Sendable, Equatable {
        /// `max_attempts` if given.
        public var maxAttempts: Int32?
        /// `backoff` if given.
        public var backoff: Backoff?
        /// `initial_ms` if given.
        public var initialMs: Int64?
        /// `multiplier` if given.
        public var multiplier: Double?
        /// `max_delay_ms` if given.
        public var maxDelayMs: Int64?
        /// `jitter` if given.
        public var jitter: Bool?
        /// `statuses` if given.
        public var statuses: [Int32]?
        /// `methods` if given.
        public var methods: [String]?
        /// `respect_retry_after` if given.
        public var respectRetryAfter: Bool?

        /// A patch that changes nothing.
        public init() {}

        /// Every key of `policy`: merging it gives `policy` whatever it is merged over.
        public init(_ policy: RetryPolicy) {
            maxAttempts = policy.maxAttempts
            backoff = policy.backoff
            initialMs = policy.initialMs
            multiplier = policy.multiplier
            maxDelayMs = policy.maxDelayMs
            jitter = policy.jitter
            statuses = policy.statuses
            methods = policy.methods
            respectRetryAfter = policy.respectRetryAfter
        }

        /// `later`'s keys over these.
        func then(_ later: Patch) -> Patch {
            var p = self
            if let v = later.maxAttempts { p.maxAttempts = v }
            if let v = later.backoff { p.backoff = v }
            if let v = later.initialMs { p.initialMs = v }
            if let v = later.multiplier { p.multiplier = v }
            if let v = later.maxDelayMs { p.maxDelayMs = v }
            if let v = later.jitter { p.jitter = v }
            if let v = later.statuses { p.statuses = v }
            if let v = later.methods { p.methods = v }
            if let v = later.respectRetryAfter { p.respectRetryAfter = v }
            return p
        }
    }

    /// This policy with the keys `patch` gives.
    public func merged(_ patch: Patch) -> RetryPolicy {
        var r = self
        if let v = patch.maxAttempts { r.maxAttempts = v }
        if let v = patch.backoff { r.backoff = v }
        if let v = patch.initialMs { r.initialMs = v }
        if let v = patch.multiplier { r.multiplier = v }
        if let v = patch.maxDelayMs { r.maxDelayMs = v }
        if let v = patch.jitter { r.jitter = v }
        if let v = patch.statuses { r.statuses = v }
        if let v = patch.methods { r.methods = v }
        if let v = patch.respectRetryAfter { r.respectRetryAfter = v }
        return r
    }

    /// The first value outside what the JSON form accepts, named as `validate()`
    /// names it ("retry.maxAttempts must be between 1 and 100, got 0."), or nil.
    func problem() -> String? {
        func range<T: Comparable>(_ v: T, _ r: ClosedRange<T>, _ name: String) -> String? {
            r.contains(v) ? nil : "retry.\(name) must be between \(r.lowerBound) and \(r.upperBound), got \(v)."
        }
        if let p = range(Int64(maxAttempts), RetryPolicy.maxAttemptsRange, "maxAttempts") { return p }
        if let p = range(initialMs, RetryPolicy.initialMsRange, "initialMs") { return p }
        if !multiplier.isFinite { return "retry.multiplier must be a finite number, got \(multiplier)." }
        if let p = range(multiplier, RetryPolicy.multiplierRange, "multiplier") { return p }
        if let p = range(maxDelayMs, RetryPolicy.maxDelayMsRange, "maxDelayMs") { return p }
        for s in statuses where !RetryPolicy.statusRange.contains(Int64(s)) {
            return "retry.statuses must list HTTP statuses (100–599), got \(s)."
        }
        for m in methods where !HTTPValidation.isToken(m) || m != m.uppercased() {
            return "retry.methods must list upper-case HTTP methods, got \"\(m)\"."
        }
        return nil
    }

    /// Parses a "retry" object. Unknown keys and wrong types throw `invalidArgument`
    /// whose message is `label(key)` and what is wrong, e.g. "Configuration key
    /// 'retry.max_attempts' must be an integer between 1 and 100, got 0.".
    static func parsePatch(_ v: UnsafeMutablePointer<json_t>, label: (String) -> String) throws(NetError) -> Patch {
        func fail(_ key: String, _ why: String) -> NetError { .invalidArgument("\(label(key)) \(why)") }
        guard v.pointee.type == JSON_OBJECT else {
            throw NetError.invalidArgument("\(label("")) must be an object or false, got \(JSON.typeName(v)).")
        }
        func integer(_ key: String, _ item: UnsafeMutablePointer<json_t>, _ r: ClosedRange<Int64>) throws(NetError)
            -> Int64
        {
            guard item.pointee.type == JSON_INTEGER, r.contains(json_integer_value(item)) else {
                let got = item.pointee.type == JSON_INTEGER ? "\(json_integer_value(item))" : JSON.typeName(item)
                throw fail(key, "must be an integer between \(r.lowerBound) and \(r.upperBound), got \(got).")
            }
            return json_integer_value(item)
        }
        func boolean(_ key: String, _ item: UnsafeMutablePointer<json_t>) throws(NetError) -> Bool {
            switch item.pointee.type {
            case JSON_TRUE: return true
            case JSON_FALSE: return false
            default: throw fail(key, "must be true or false, got \(JSON.typeName(item)).")
            }
        }
        var p = Patch()
        for (key, item) in JSON.members(v) {
            switch key {
            case "max_attempts":
                p.maxAttempts = Int32(try integer(key, item, maxAttemptsRange))
            case "backoff":
                let names = Backoff.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                guard let text = JSON.string(item), let b = Backoff(rawValue: text) else {
                    let got = JSON.string(item).map { "\"\($0)\"" } ?? JSON.typeName(item)
                    throw fail(key, "must be one of \(names), got \(got).")
                }
                p.backoff = b
            case "initial_ms":
                p.initialMs = try integer(key, item, initialMsRange)
            case "multiplier":
                let t = item.pointee.type
                let n = json_number_value(item)
                guard t == JSON_INTEGER || t == JSON_REAL, multiplierRange.contains(n) else {
                    throw fail(
                        key,
                        "must be a number between 1 and 100, got \(t == JSON_INTEGER || t == JSON_REAL ? "\(n)" : JSON.typeName(item))."
                    )
                }
                p.multiplier = n
            case "max_delay_ms":
                p.maxDelayMs = try integer(key, item, maxDelayMsRange)
            case "jitter":
                p.jitter = try boolean(key, item)
            case "respect_retry_after":
                p.respectRetryAfter = try boolean(key, item)
            case "statuses":
                guard item.pointee.type == JSON_ARRAY else {
                    throw fail(key, "must be an array of HTTP statuses, got \(JSON.typeName(item)).")
                }
                var statuses: [Int32] = []
                for i in 0..<json_array_size(item) {
                    guard let s = json_array_get(item, i), s.pointee.type == JSON_INTEGER,
                        statusRange.contains(json_integer_value(s))
                    else { throw fail(key, "must list HTTP statuses (integers 100–599); item \(i) is not.") }
                    statuses.append(Int32(json_integer_value(s)))
                }
                p.statuses = statuses
            case "methods":
                guard item.pointee.type == JSON_ARRAY else {
                    throw fail(key, "must be an array of HTTP methods, got \(JSON.typeName(item)).")
                }
                var methods: [String] = []
                for i in 0..<json_array_size(item) {
                    guard let m = json_array_get(item, i).flatMap(JSON.string), HTTPValidation.isToken(m) else {
                        throw fail(key, "must list HTTP methods (tokens such as \"GET\"); item \(i) is not.")
                    }
                    methods.append(m.uppercased())
                }
                p.methods = methods
            default:
                throw fail(key, "is unknown. Known: \(keys.joined(separator: ", ")).")
            }
        }
        return p
    }
}

/// What a request or an endpoint says about retry, over the client's policy
/// (nc_request_set_retry_json, an endpoint's "retry", `Request.retry`).
public enum RetryOverride: Sendable, Equatable {
    /// `false`: one attempt, whatever the client's policy.
    case disabled
    /// An object: its keys replace the client's (or the defaults, when the client
    /// has no policy), the others are kept.
    case merge(RetryPolicy.Patch)

    /// A whole policy, whatever the client's.
    public static func policy(_ p: RetryPolicy) -> RetryOverride { .merge(RetryPolicy.Patch(p)) }

    /// This (an endpoint's) followed by `later` (the request's own, which wins).
    func then(_ later: RetryOverride?) -> RetryOverride {
        switch (self, later) {
        case (_, nil): return self
        case (.merge(let a), .merge(let b)?): return .merge(a.then(b))
        case (_, let b?): return b
        }
    }

    /// The policy in force over the client's `base` (nil: it has none).
    func applied(to base: RetryPolicy?) -> RetryPolicy? {
        switch self {
        case .disabled: return nil
        case .merge(let patch): return (base ?? RetryPolicy()).merged(patch)
        }
    }

    /// A "retry" value: `false` → `.disabled`, an object → `.merge`, `null` → nil
    /// (the client's policy). Anything else throws `invalidArgument` naming it.
    static func parse(_ v: UnsafeMutablePointer<json_t>, label: (String) -> String) throws(NetError) -> RetryOverride? {
        switch v.pointee.type {
        case JSON_NULL: return nil
        case JSON_FALSE: return .disabled
        default: return .merge(try RetryPolicy.parsePatch(v, label: label))
        }
    }

    /// The JSON text form (nc_request_set_retry_json).
    public static func parse(json text: UnsafeRawBufferPointer) throws(NetError) -> RetryOverride? {
        switch JSONValue.parse(text) {
        case .success(let value):
            return try parse(value.raw) { key in key.isEmpty ? "The retry policy" : "Retry key '\(key)'" }
        case .failure(let f):
            throw NetError.invalidArgument(
                "The retry policy is not valid JSON (line \(f.line), column \(f.column): \(f.reason)).")
        }
    }
}
