import CCurlShim

/// A client's stubs: the routes (configured, read from "stubs.dir", added with
/// `addStub`) in the order they were given, what each has answered, the mode
/// for a request none answers, and the recorder of "stubs.record". Any thread:
/// the loop's `StubTransport` and the synchronous lanes look hops up here.
final class StubTable: @unchecked Sendable {
    /// What a request no route answers does: fail with CLIENT NO_STUB (only) or go
    /// to the network (fallback).
    typealias Mode = Configuration.Stubs.Mode

    /// The answer of one hop.
    enum Lookup {
        /// A route answered (its label, "GET /users/{id}", for messages).
        case answer(Stub.Answer, route: String)
        /// No route answered and the mode is fallback.
        case network
        /// No route answered and the mode is only: the error to complete with.
        case refused(NetError)
    }

    let mode: Mode
    /// Writes every answer from the network as a route file ("stubs.record"); nil: off.
    let recorder: StubRecorder?
    private let lock = Lock()
    // Guarded by lock.
    private var routes: [Stub]
    private var served: [Int]

    init(routes: [Stub], mode: Mode, recorder: StubRecorder?) {
        self.routes = routes
        self.served = Array(repeating: 0, count: routes.count)
        self.mode = mode
        self.recorder = recorder
    }

    /// Adds a route after the others.
    func add(_ stub: Stub) {
        lock.withLock {
            routes.append(stub)
            served.append(0)
        }
    }

    /// How many hops the routes of `path` (as written in the route) answered.
    func hops(_ path: String) -> Int {
        lock.withLock { routes.indices.filter { routes[$0].path == path }.reduce(0) { $0 + served[$1] } }
    }

    /// The answer to the hop `method` `url`: the first route that matches and has
    /// answers left gives its next one.
    func lookUp(method: String, url: String) -> Lookup {
        let (path, query) = StubMatch.split(url)
        let found: (Stub.Answer, String)? = lock.withLock {
            for i in routes.indices {
                let r = routes[i]
                if let times = r.times, served[i] >= times { continue }
                guard r.method == nil || r.method == method, StubMatch.path(r.path, matches: path),
                    StubMatch.query(r.query, matches: query)
                else { continue }
                let answer = r.answers[min(served[i], r.answers.count - 1)]
                served[i] += 1
                return (answer, "\(r.method ?? "*") \(r.path)")
            }
            return nil
        }
        if let (answer, route) = found { return .answer(answer, route: route) }
        return mode == .fallback ? .network : .refused(NetError.noStub(method, url))
    }

    /// What a hop answered by `answer` produced (as TableTransport's).
    static func outcome(_ answer: Stub.Answer, route: String) -> HopOutcome {
        if let code = answer.transportError {
            var outcome = HopOutcome(code: CURLcode(rawValue: UInt32(code)))
            outcome.detail = "answered by the stub \(route)"
            outcome.stubbed = true
            // A stub's timeout is the whole answer's: the request had been sent.
            outcome.connected = code == Int32(CURLE_OPERATION_TIMEDOUT.rawValue)
            return outcome
        }
        var outcome = HopOutcome.answered(status: answer.status, headers: answer.headers, body: answer.body)
        outcome.stubbed = true
        return outcome
    }

    /// The hop's answer as it arrives after `delayMs`, cut at the hop's `timeoutMs`
    /// (0: none) as libcurl cuts one: TRANSPORT 28.
    static func timed(_ answer: Stub.Answer, timeoutMs: Int64) -> Stub.Answer {
        guard timeoutMs > 0, answer.delayMs > timeoutMs else { return answer }
        return Stub.Answer.transport(Int32(CURLE_OPERATION_TIMEDOUT.rawValue), delayMs: timeoutMs)
    }
}

extension NetError {
    /// CLIENT NO_STUB: stubs in "only" mode and no route answers the request.
    static func noStub(_ method: String, _ url: String) -> NetError {
        var e = client(
            .noStub,
            "No stub answers \(method) \(Redaction.url(url)) (\"stubs\" mode \"only\": nothing was sent). Add a route for it (nc_client_add_stub) or set \"mode\": \"fallback\" to send unmatched requests to the network."
        )
        e.attempts = 0
        return e
    }
}

/// How a route matches a URL.
enum StubMatch {
    /// The URL's path (as sent, "/" when empty) and its query, decoded.
    static func split(_ url: String) -> (path: String, query: [(String, String)]) {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var query: [(String, String)] = []
        if let q = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: q)...].split(whereSeparator: { $0 == "&" || $0 == ";" }) {
                if let eq = pair.firstIndex(of: "=") {
                    query.append((decode(pair[..<eq]), decode(pair[pair.index(after: eq)...])))
                } else {
                    query.append((decode(pair), ""))
                }
            }
            rest = rest[..<q]
        }
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        guard let slash = rest.firstIndex(of: "/") else { return ("/", query) }
        return (String(rest[slash...]), query)
    }

    /// `{name}` matches one non-empty segment, a last `*` the rest (one segment or more).
    static func path(_ pattern: String, matches path: String) -> Bool {
        if pattern == path { return true }
        let p = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let s = path.split(separator: "/", omittingEmptySubsequences: false)
        for (i, part) in p.enumerated() {
            if part == "*" && i == p.count - 1 { return s.count > i && !(s.count == i + 1 && s[i].isEmpty) }
            guard i < s.count else { return false }
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                if s[i].isEmpty { return false }
            } else if part != s[i] {
                return false
            }
        }
        return p.count == s.count
    }

    /// Every parameter the route names is present, with its value (nil: any).
    static func query(_ wanted: [String: String?], matches query: [(String, String)]) -> Bool {
        for (name, value) in wanted {
            guard query.contains(where: { $0.0 == name && (value == nil || $0.1 == value) }) else { return false }
        }
        return true
    }

    /// Percent-decoding ("+" is a space); text that does not decode stays as it is.
    static func decode(_ s: Substring) -> String {
        guard s.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(s) }
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%"), it.count >= 2, let h = hex(it[it.startIndex]),
                let l = hex(it[it.startIndex + 1])
            {
                bytes.append(h << 4 | l)
                it = it.dropFirst(2)
            } else {
                bytes.append(b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? String(s)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
