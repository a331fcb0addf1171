import CJansson

/// An endpoint's parameter declarations ("params" and "additional_params" of its
/// spec, docs/configuration.md#parameter-declarations): a small subset of JSON
/// Schema checked by `EndpointCatalog.resolve` against the request's params before
/// anything else runs (adapters, cache, coalescing), so a request that breaks one
/// completes with CLIENT `invalidRequest`, attempts 0, nothing sent.
///
/// Only endpoints that declare params carry one: an endpoint without costs a nil
/// check.
public struct ParamRules: Sendable, Equatable {
    /// The declared parameters by name.
    public let rules: [String: ParamRule]
    /// Parameters not declared (nor filling a path placeholder) are allowed.
    /// Default true; `"additional_params": false` refuses them.
    public let additionalParams: Bool

    /// Declarations `rules`; `additionalParams` false refuses undeclared params.
    public init(_ rules: [String: ParamRule], additionalParams: Bool = true) {
        self.rules = rules
        self.additionalParams = additionalParams
    }

    /// The first broken rule of `params` (a JSON object, or nil for none), as the
    /// message of the CLIENT error; nil when every rule holds. Names are checked in
    /// sorted order, so the same request always reports the same rule.
    /// `placeholders`: names the endpoint's path takes (always allowed).
    func problem(_ params: JSONValue?, endpoint: String, placeholders: [String]) -> String? {
        let object = params?.raw
        func lead(_ name: String) -> String { "Endpoint '\(endpoint)': the parameter '\(name)'" }
        for name in rules.keys.sorted() {
            guard let rule = rules[name] else { continue }
            guard let value = object.flatMap({ json_object_get($0, name) }) else {
                if rule.required { return "\(lead(name)) is required (rule 'required'); nothing was sent." }
                continue
            }
            if let why = rule.problem(value) { return "\(lead(name)) \(why); nothing was sent." }
        }
        if !additionalParams, let object {
            for (name, _) in JSON.members(object).sorted(by: { $0.0 < $1.0 })
            where rules[name] == nil && !placeholders.contains(name) {
                let known = rules.keys.sorted().joined(separator: ", ")
                return
                    "\(lead(name)) is not declared (rule 'additional_params': false; declared: \(known)); nothing was sent."
            }
        }
        return nil
    }

    /// The keys of one declaration, in the order the reference lists them.
    static let ruleKeys = ["type", "required", "enum", "min", "max", "pattern", "max_length"]

    /// Parses "params" (an object of declarations); `fail(key, why)` names the key.
    static func parse(
        _ v: UnsafeMutablePointer<json_t>, additional: Bool, fail: (String, String) -> NetError
    ) throws(NetError) -> ParamRules {
        guard v.pointee.type == JSON_OBJECT else { throw fail("params", "must be an object, got \(JSON.typeName(v)).") }
        var rules: [String: ParamRule] = [:]
        for (name, spec) in JSON.members(v) {
            rules[name] = try ParamRule.parse(spec) { key, why in
                fail(key.isEmpty ? "params.\(name)" : "params.\(name).\(key)", why)
            }
        }
        return ParamRules(rules, additionalParams: additional)
    }
}

/// One declared parameter: each rule given must hold (JSON Schema's meaning, with
/// the names of docs/configuration.md#parameter-declarations).
public struct ParamRule: Sendable, Equatable {
    /// The JSON types a declaration may name.
    public enum Kind: String, Sendable, CaseIterable {
        case string, integer, number, boolean, array, object
    }

    /// The value's JSON type; nil: any. `integer` accepts a number with no
    /// fractional part (1.0), as JSON Schema does; `number` accepts integers.
    public let type: Kind?
    /// The parameter must be present (a null value is present).
    public let required: Bool
    /// The value must equal one of these (JSON equality); nil: any.
    public let allowed: [JSONValue]?
    /// The least a number may be (inclusive); a value that is not a number is not bounded.
    public let min: Double?
    /// The most a number may be (inclusive).
    public let max: Double?
    /// A string must contain a match of this pattern (see `PatternSubset`).
    public let pattern: PatternSubset?
    /// A string's length in Unicode scalars, or an array's item count, at most.
    public let maxLength: Int?

    /// Throws `invalidArgument` for a bad pattern or a min above the max.
    public init(
        type: Kind? = nil, required: Bool = false, allowed: [JSONValue]? = nil, min: Double? = nil,
        max: Double? = nil, pattern: String? = nil, maxLength: Int? = nil
    ) throws(NetError) {
        if let min, let max, min > max { throw NetError.invalidArgument("min (\(min)) is above max (\(max)).") }
        if let maxLength, maxLength < 0 { throw NetError.invalidArgument("max_length must be 0 or more.") }
        self.type = type
        self.required = required
        self.allowed = allowed
        self.min = min
        self.max = max
        self.pattern = try pattern.map { (p) throws(NetError) in try PatternSubset(p) }
        self.maxLength = maxLength
    }

    public static func == (a: ParamRule, b: ParamRule) -> Bool {
        a.type == b.type && a.required == b.required && a.min == b.min && a.max == b.max
            && a.pattern?.source == b.pattern?.source && a.maxLength == b.maxLength
            && (a.allowed?.map(\.text) ?? []) == (b.allowed?.map(\.text) ?? [])
    }

    /// What `value` breaks ("must be an integer (rule 'type'), got string"), nil when nothing.
    func problem(_ value: UnsafeMutablePointer<json_t>) -> String? {
        let t = value.pointee.type
        if let type, !ParamRule.matches(type, value) {
            return
                "must be \(type == .integer || type == .array || type == .object ? "an" : "a") \(type.rawValue) (rule 'type'), got \(JSON.typeName(value))"
        }
        if let allowed, !allowed.contains(where: { json_equal($0.raw, value) != 0 }) {
            let list = allowed.map(\.text).joined(separator: ", ")
            return "must be one of [\(list)] (rule 'enum'), got \(JSONValue(borrowing: value).text)"
        }
        if t == JSON_INTEGER || t == JSON_REAL {
            let n = json_number_value(value)
            if let min, n < min {
                return "must be at least \(ParamRule.text(min)) (rule 'min'), got \(JSONValue(borrowing: value).text)"
            }
            if let max, n > max {
                return "must be at most \(ParamRule.text(max)) (rule 'max'), got \(JSONValue(borrowing: value).text)"
            }
        }
        if let maxLength {
            var length: Int? = nil
            if t == JSON_STRING, let s = JSON.string(value) { length = s.unicodeScalars.count }
            if t == JSON_ARRAY { length = json_array_size(value) }
            if let length, length > maxLength {
                return
                    "must be at most \(maxLength) \(t == JSON_ARRAY ? "items" : "characters") long (rule 'max_length'), got \(length)"
            }
        }
        if let pattern, t == JSON_STRING, let s = JSON.string(value), !pattern.matches(s) {
            return "must match the pattern \"\(pattern.source)\" (rule 'pattern')"
        }
        return nil
    }

    static func matches(_ kind: Kind, _ v: UnsafeMutablePointer<json_t>) -> Bool {
        switch (kind, v.pointee.type) {
        case (.string, JSON_STRING), (.integer, JSON_INTEGER), (.number, JSON_INTEGER), (.number, JSON_REAL),
            (.boolean, JSON_TRUE), (.boolean, JSON_FALSE), (.array, JSON_ARRAY), (.object, JSON_OBJECT):
            return true
        case (.integer, JSON_REAL):
            let d = json_real_value(v)
            return d.isFinite && d == d.rounded(.towardZero)
        default:
            return false
        }
    }

    /// 10 rather than 10.0 for a whole bound.
    static func text(_ d: Double) -> String {
        if d.isFinite, d == d.rounded(.towardZero), abs(d) < 9e15 { return String(Int64(d)) }
        return String(d)
    }

    /// One declaration object; `fail(key, why)` with "" for the declaration itself.
    static func parse(
        _ v: UnsafeMutablePointer<json_t>, fail: (String, String) -> NetError
    ) throws(NetError) -> ParamRule {
        guard v.pointee.type == JSON_OBJECT else { throw fail("", "must be an object, got \(JSON.typeName(v)).") }
        var type: Kind? = nil
        var required = false
        var allowed: [JSONValue]? = nil
        var min: Double? = nil, max: Double? = nil
        var pattern: String? = nil
        var maxLength: Int? = nil
        func number(_ key: String, _ x: UnsafeMutablePointer<json_t>) throws(NetError) -> Double {
            guard x.pointee.type == JSON_INTEGER || x.pointee.type == JSON_REAL else {
                throw fail(key, "must be a number, got \(JSON.typeName(x)).")
            }
            return json_number_value(x)
        }
        for (key, x) in JSON.members(v) {
            switch key {
            case "type":
                guard let name = JSON.string(x), let k = Kind(rawValue: name) else {
                    let names = Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    throw fail(key, "must be one of \(names), got \(JSONValue(borrowing: x).text).")
                }
                type = k
            case "required":
                guard x.pointee.type == JSON_TRUE || x.pointee.type == JSON_FALSE else {
                    throw fail(key, "must be true or false, got \(JSON.typeName(x)).")
                }
                required = x.pointee.type == JSON_TRUE
            case "enum":
                guard x.pointee.type == JSON_ARRAY, json_array_size(x) > 0 else {
                    throw fail(key, "must be a non-empty array of the values allowed.")
                }
                allowed = (0..<json_array_size(x)).compactMap { i in
                    json_array_get(x, i).map { JSONValue(borrowing: $0) }
                }
            case "min": min = try number(key, x)
            case "max": max = try number(key, x)
            case "pattern":
                guard let p = JSON.string(x), !p.utf8.contains(0) else {
                    throw fail(key, "must be a string, got \(JSON.typeName(x)).")
                }
                pattern = p
            case "max_length":
                guard x.pointee.type == JSON_INTEGER, json_integer_value(x) >= 0,
                    json_integer_value(x) <= Int64(Int32.max)
                else {
                    throw fail(key, "must be an integer from 0 to \(Int32.max), got \(JSONValue(borrowing: x).text).")
                }
                maxLength = Int(json_integer_value(x))
            default:
                throw fail(key, "is unknown. Known: \(ParamRules.ruleKeys.joined(separator: ", ")).")
            }
        }
        if let min, let max, min > max {
            throw fail("min", "(\(ParamRule.text(min))) is above max (\(ParamRule.text(max))).")
        }
        do throws(NetError) {
            return try ParamRule(
                type: type, required: required, allowed: allowed, min: min, max: max, pattern: pattern,
                maxLength: maxLength)
        } catch {
            throw fail("pattern", error.message)
        }
    }
}

/// The regular-expression subset of a parameter's "pattern" (no Foundation in the
/// core, and no backtracking blow-up): a pattern matches when it matches anywhere
/// in the string, as in JSON Schema, unless anchored.
///
/// Supported: literal characters; `.` (any character); `^` at the start and `$` at
/// the end; classes `[abc]`, `[a-z0-9_]`, `[^...]`; escapes `\d \D \w \W \s \S` and
/// `\` before any punctuation for itself; quantifiers `*`, `+`, `?`, `{n}`, `{n,}`,
/// `{n,m}` (m at most 1000) after an atom. Not supported (refused when the endpoint
/// is defined): groups `( )`, alternation `|`, backreferences, lookaround, lazy
/// quantifiers. A memo of failed positions bounds matching by the pattern's size
/// times the square of the string's length: never exponential.
public struct PatternSubset: Sendable {
    /// The pattern as written.
    public let source: String
    private let atoms: [Atom]
    private let anchoredStart: Bool
    private let anchoredEnd: Bool

    private enum Matcher: Sendable {
        case any
        case scalar(UnicodeScalar)
        case set([ClosedRange<UInt32>], negated: Bool)

        func accepts(_ c: UnicodeScalar) -> Bool {
            switch self {
            case .any: return true
            case .scalar(let s): return s == c
            case .set(let ranges, let negated):
                return ranges.contains { $0.contains(c.value) } != negated
            }
        }
    }

    private struct Atom: Sendable {
        var matcher: Matcher
        var min: Int
        var max: Int   // Int.max: unbounded
    }

    private static let digit: [ClosedRange<UInt32>] = [0x30...0x39]
    private static let word: [ClosedRange<UInt32>] = [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
    private static let space: [ClosedRange<UInt32>] = [0x09...0x0D, 0x20...0x20]

    /// Throws `invalidArgument` naming what is outside the subset.
    public init(_ pattern: String) throws(NetError) {
        func bad(_ why: String) -> NetError {
            .invalidArgument(
                "is outside the supported pattern subset: \(why) (docs/configuration.md#parameter-declarations).")
        }
        source = pattern
        var s = Array(pattern.unicodeScalars)
        var start = false, end = false
        if s.first == "^" { start = true; s.removeFirst() }
        // A final '$' anchors unless it is escaped: preceded by an odd number of
        // backslashes ("\\$" is a backslash, then the end).
        if s.last == "$" && s.dropLast().reversed().prefix(while: { $0 == "\\" }).count % 2 == 0 {
            end = true
            s.removeLast()
        }
        var atoms: [Atom] = []
        var i = 0
        func escape(_ c: UnicodeScalar) throws(NetError) -> Matcher {
            switch c {
            case "d": return .set(PatternSubset.digit, negated: false)
            case "D": return .set(PatternSubset.digit, negated: true)
            case "w": return .set(PatternSubset.word, negated: false)
            case "W": return .set(PatternSubset.word, negated: true)
            case "s": return .set(PatternSubset.space, negated: false)
            case "S": return .set(PatternSubset.space, negated: true)
            default:
                guard c.isASCII, !(c.properties.isAlphabetic || ("0"..."9").contains(c)) else {
                    throw bad("the escape \\\(c)")
                }
                return .scalar(c)
            }
        }
        while i < s.count {
            let c = s[i]
            var m: Matcher
            switch c {
            case "(", ")", "|": throw bad("'\(c)' (groups and alternation)")
            case "^", "$": throw bad("'\(c)' other than at the start or end")
            case "*", "+", "?", "{": throw bad("a quantifier '\(c)' with nothing before it")
            case ".": m = .any; i += 1
            case "\\":
                guard i + 1 < s.count else { throw bad("a trailing backslash") }
                m = try escape(s[i + 1]); i += 2
            case "[":
                i += 1
                var negated = false
                if i < s.count, s[i] == "^" { negated = true; i += 1 }
                var ranges: [ClosedRange<UInt32>] = []
                var first = true
                while i < s.count, s[i] != "]" || first {
                    first = false
                    var lo: UInt32
                    if s[i] == "\\" {
                        guard i + 1 < s.count else { throw bad("a trailing backslash") }
                        switch try escape(s[i + 1]) {
                        case .set(let r, false): ranges += r; i += 2; continue
                        case .scalar(let x): lo = x.value
                        default: throw bad("a negated class escape inside [ ]")
                        }
                        i += 2
                    } else {
                        lo = s[i].value; i += 1
                    }
                    if i + 1 < s.count, s[i] == "-", s[i + 1] != "]" {
                        var hi = s[i + 1].value
                        if s[i + 1] == "\\" {
                            guard i + 2 < s.count, case .scalar(let x) = try escape(s[i + 2]) else {
                                throw bad("a class range ending in a class escape")
                            }
                            hi = x.value; i += 1
                        }
                        guard lo <= hi else { throw bad("a class range out of order") }
                        ranges.append(lo...hi); i += 2
                    } else {
                        ranges.append(lo...lo)
                    }
                }
                guard i < s.count else { throw bad("an unclosed '['") }
                i += 1
                m = .set(ranges, negated: negated)
            default:
                m = .scalar(c); i += 1
            }
            var atom = Atom(matcher: m, min: 1, max: 1)
            if i < s.count {
                switch s[i] {
                case "*": atom.min = 0; atom.max = Int.max; i += 1
                case "+": atom.min = 1; atom.max = Int.max; i += 1
                case "?": atom.min = 0; atom.max = 1; i += 1
                case "{":
                    var j = i + 1
                    func digits() -> Int? {
                        var n = 0, any = false
                        while j < s.count, ("0"..."9").contains(s[j]), n <= 1000 {
                            n = n * 10 + Int(s[j].value - 0x30); j += 1; any = true
                        }
                        return any ? n : nil
                    }
                    guard let lo = digits() else { throw bad("a '{' that is not {n}, {n,} or {n,m}") }
                    var hi = lo
                    if j < s.count, s[j] == "," {
                        j += 1
                        hi = digits() ?? Int.max
                    }
                    guard j < s.count, s[j] == "}", lo <= 1000, hi == Int.max || (hi <= 1000 && lo <= hi) else {
                        throw bad("a '{' that is not {n}, {n,} or {n,m} with n <= m <= 1000")
                    }
                    atom.min = lo; atom.max = hi; i = j + 1
                default: break
                }
                if i < s.count, ["*", "+", "?", "{"].contains(s[i]) {
                    throw bad("two quantifiers in a row (lazy and possessive forms are not supported)")
                }
            }
            atoms.append(atom)
        }
        self.atoms = atoms
        anchoredStart = start
        anchoredEnd = end
    }

    /// The pattern matches somewhere in `text` (at its start with `^`, to its end with `$`).
    public func matches(_ text: String) -> Bool {
        let s = Array(text.unicodeScalars)
        let n = s.count
        // failed[atom * (n + 1) + pos]: matching atoms[atom...] from pos failed before.
        var failed = [Bool](repeating: false, count: (atoms.count + 1) * (n + 1))
        func run(_ a: Int, _ pos: Int) -> Bool {
            if a == atoms.count { return !anchoredEnd || pos == n }
            let slot = a * (n + 1) + pos
            if failed[slot] { return false }
            let atom = atoms[a]
            // Greedy: the longest run first, then shorter ones.
            var count = 0
            while count < atom.max, pos + count < n, atom.matcher.accepts(s[pos + count]) { count += 1 }
            while count >= atom.min {
                if run(a + 1, pos + count) { return true }
                count -= 1
            }
            failed[slot] = true
            return false
        }
        if anchoredStart { return run(0, 0) }
        for start in 0...n where run(0, start) { return true }
        return false
    }
}
