import CCurlShim

/// A `HopTransport` that answers from a table: no socket, no server, no libcurl.
/// Each hop's request is matched by method and path against the routes in order;
/// a route gives its answers in turn (the last one repeats), each after its delay,
/// through the same `Transfer.next(after:)` as a real hop, so classification,
/// redirects, retries, waits and cancels behave as they do on the network. A hop no
/// route matches fails as libcurl's "could not connect" (7).
///
/// Bodies are answered in memory: a request with an output file receives the
/// body's bytes as libcurl's are, only through the response, and the progress and
/// body callbacks are not called. Threads: the loop's thread, but `wake()` and the
/// counters, which any thread may read.
final class TableTransport: HopTransport, @unchecked Sendable {
    struct Answer: Sendable {
        /// libcurl's result of the hop: CURLE_OK with a response, else the failure.
        var code: CURLcode = CURLE_OK
        var status = 200
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        /// When the answer arrives, after the hop starts.
        var delayMs: Int64 = 0

        static func status(
            _ status: Int, headers: [(String, String)] = [], body: String = "", delayMs: Int64 = 0
        ) -> Answer {
            Answer(code: CURLE_OK, status: status, headers: headers, body: Array(body.utf8), delayMs: delayMs)
        }

        static func failure(_ code: CURLcode, delayMs: Int64 = 0) -> Answer {
            Answer(code: code, status: 0, delayMs: delayMs)
        }
    }

    struct Route: Sendable {
        /// nil: any method.
        var method: String?
        /// The URL's path, without the query.
        var path: String
        var answers: [Answer]
    }

    private let routes: [Route]
    private let lock = Monitor()
    // Guarded by lock.
    private var served: [Int]
    private var woken = false
    // Loop thread only.
    private var inFlight: [(transfer: Transfer, answer: Answer, due: UInt64)] = []

    init(_ routes: [Route]) {
        self.routes = routes
        served = Array(repeating: 0, count: routes.count)
    }

    /// How many hops the route for `path` answered (what a server would count).
    func hops(_ path: String) -> Int {
        lock.withLock {
            routes.indices.filter { routes[$0].path == path }.reduce(0) { $0 + served[$1] }
        }
    }

    func start(_ t: Transfer, _ p: PreparedRequest, timeoutMs: Int64) -> Result<UInt64, NetError> {
        let path = TableTransport.path(of: p.urlText)
        let answer: Answer = lock.withLock {
            guard let i = routes.firstIndex(where: { ($0.method == nil || $0.method == p.method) && $0.path == path })
            else { return .failure(CURLE_COULDNT_CONNECT) }
            let answers = routes[i].answers
            let answer =
                answers.isEmpty ? Answer.failure(CURLE_COULDNT_CONNECT) : answers[min(served[i], answers.count - 1)]
            served[i] += 1
            return answer
        }
        inFlight.append((t, answer, monotonicNanos(afterMs: max(0, answer.delayMs))))
        return .success(0)
    }

    func perform(_ ended: (Transfer, consuming HopOutcome) -> Void) {
        // One at a time: an ended hop's callbacks may stop another (a cancel), which
        // then is no longer in flight and is not reported.
        while true {
            let now = monotonicNanos()
            guard let i = inFlight.firstIndex(where: { $0.due <= now }) else { return }
            let (t, answer, _) = inFlight.remove(at: i)
            ended(t, TableTransport.outcome(answer))
        }
    }

    func stop(_ t: Transfer) -> Int32 {
        inFlight.removeAll { $0.transfer === t }
        return t.attemptsMade(thisOneSent: true)
    }

    func end(_ t: Transfer, _ code: CURLcode) -> HopOutcome {
        inFlight.removeAll { $0.transfer === t }
        return HopOutcome(code: code)
    }

    func wait(timeoutMs: Int32) {
        var ms = Int64(timeoutMs)
        if let due = inFlight.map(\.due).min() {
            let now = monotonicNanos()
            ms = min(ms, due > now ? Int64((due - now) / 1_000_000) + 1 : 0)
        }
        lock.withLock {
            if !woken && ms > 0 { lock.wait(ms: ms) }
            woken = false
        }
    }

    func wake() {
        lock.withLock {
            woken = true
            lock.broadcast()
        }
    }

    func close() { inFlight.removeAll() }

    /// The path of an absolute URL, without query or fragment ("/" when empty).
    static func path(of url: String) -> String {
        var rest = Substring(url)
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        rest = rest[slash...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        return String(rest)
    }

    /// What a hop that got `answer` produced.
    static func outcome(_ answer: Answer) -> HopOutcome {
        guard answer.code == CURLE_OK else {
            var outcome = HopOutcome(code: answer.code)
            outcome.detail = "answered by the transport's table"
            return outcome
        }
        var outcome = HopOutcome.answered(status: answer.status, headers: answer.headers, body: answer.body)
        outcome.httpVersion = Int(CURL_HTTP_VERSION_1_1)
        return outcome
    }
}

extension HopOutcome {
    /// A hop answered from memory, not by libcurl (`TableTransport`, the stubs of
    /// Features/Stubs): `status`, the header lines as libcurl would have stored
    /// them, and `body`.
    static func answered(status: Int, headers: [(name: String, value: String)], body: [UInt8]) -> HopOutcome {
        var lines = ""
        for (name, value) in headers { lines += "\(name): \(value)\r\n" }
        let block = NetBytes(lines + "\0")
        let store =
            block.base.map {
                HeaderStore(
                    lines: UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self), count: block.count - 1,
                    owner: block)
            } ?? HeaderStore()
        let bytes = body.withUnsafeBytes { NetBytes(bytes: $0) }
        return HopOutcome(code: CURLE_OK, status: status, received: (bytes, store))
    }
}
