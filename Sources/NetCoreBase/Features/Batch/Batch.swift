/// Several requests sent together with one completion when every one has ended (a
/// "zip" of requests; nc_batch_*). A layer over the ordinary send path: each member
/// is a plain transfer of the client (same seams, hooks, events and exactly-once
/// completion); the batch only counts them down.
///
/// - Results are kept in the order the requests were added, readable once the
///   batch has completed (`result(at:)`).
/// - `.failFast`: the first member that fails cancels the others (they report
///   `NetError.cancelled`, or their real result if they had already finished).
///   `.settle` waits for every member whatever happens.
/// - `cancel()` cancels every member; the completion still runs exactly once.
/// - Threads: the completion runs where the last member's completion runs — the
///   client's transfer thread, or inside `dispatch()` in queue mode — right after
///   it. A batch with no request completes at once, through the same path (the
///   transfer thread, or the next `dispatch()`), without sending anything.
/// - While sent and not completed the batch keeps itself alive, so its owner may
///   drop it after `send` (the C API's `nc_batch_free` after `nc_batch_send`).
public final class Batch: @unchecked Sendable {
    /// What the batch does when a member fails. The numbers are the header's NC_BATCH_*.
    public enum Policy: Int32, Sendable {
        /// Wait for every member (the default).
        case settle = 0
        /// The first failure cancels the members still running.
        case failFast = 1
    }

    /// Why `send` did nothing.
    public enum SendRefusal: Error, Sendable {
        /// The batch was sent before.
        case alreadySent
        /// The client is shutting down: nothing was sent.
        case shuttingDown
    }

    /// Whether the batch waits for every request (`.settle`) or ends at the first failure (`.failFast`).
    public let policy: Policy
    let client: NetClient
    private let lock = Lock()
    // Guarded by lock.
    private var requests: [Request] = []
    private var phase = Phase.building
    private var members: [Transfer] = []
    private var results: [(Response?, NetError?)] = []
    private var remaining = 0
    private var tripped = false
    private var completion: ((Batch) -> Void)?
    /// The batch's own reference while it is in flight.
    private var keepAlive: Batch?
    /// Objects a language boundary made for the results (the C API's nc_error
    /// handles), kept as long as the batch so that they can be lent out.
    private var foreign: [Int: AnyObject] = [:]

    private enum Phase {
        case building, sent, completed
    }

    /// An empty batch of requests to send on `client` with `policy`.
    public init(client: NetClient, policy: Policy = .settle) {
        self.client = client
        self.policy = policy
    }

    /// Adds a request (its value is copied). False once the batch was sent: nothing added.
    @discardableResult
    public func add(_ request: Request) -> Bool {
        lock.withLock {
            guard phase == .building else { return false }
            requests.append(request)
            return true
        }
    }

    /// How many requests were added.
    public var count: Int { lock.withLock { requests.count } }

    /// Whether the completion has run (results are readable from then on).
    public var isCompleted: Bool { lock.withLock { phase == .completed } }

    /// The result of request `index` (in the order added): nil before the batch has
    /// completed or for an index out of range.
    public func result(at index: Int) -> (response: Response?, error: NetError?)? {
        lock.withLock {
            guard phase == .completed, index >= 0, index < results.count else { return nil }
            return results[index]
        }
    }

    /// Every result, in the order added; empty before the batch has completed.
    public var allResults: [(response: Response?, error: NetError?)] {
        lock.withLock { phase == .completed ? results.map { ($0.0, $0.1) } : [] }
    }

    /// The object `make` builds for the error of member `index`, made once and kept
    /// as long as the batch (for a language boundary that lends handles out). Nil
    /// before completion, out of range, or when that member succeeded.
    package func foreignError(at index: Int, _ make: (NetError) -> AnyObject) -> AnyObject? {
        lock.withLock {
            guard phase == .completed, index >= 0, index < results.count, let e = results[index].1 else { return nil }
            if let made = foreign[index] { return made }
            let made = make(e)
            foreign[index] = made
            return made
        }
    }

    /// Sends every request; `completion` runs exactly once when all have ended,
    /// given this batch. Refused (nothing sent, `completion` never runs) when the
    /// batch was sent before or the client is shutting down.
    public func send(completion: @escaping (Batch) -> Void) -> Result<Void, SendRefusal> {
        let toSend: [Request]? = lock.withLock {
            guard phase == .building else { return nil }
            phase = .sent
            results = Array(repeating: (nil, nil), count: requests.count)
            remaining = requests.count
            self.completion = completion
            keepAlive = self
            return requests
        }
        guard let toSend else { return .failure(.alreadySent) }
        if toSend.isEmpty { return sendEmpty() }
        // Every member exists before any is submitted, so a fail-fast cancel from an
        // early completion reaches the ones not submitted yet (applied at submission).
        let transfers = toSend.indices.map { i in
            client.transfer(toSend[i]) { [self] t, response, error in memberEnded(i, response, t.identify(error)) }
        }
        lock.withLock { members = transfers }
        for (i, t) in transfers.enumerated() where !client.loop.submit(t) {
            if i == 0 {
                // Nothing was sent: the batch is as it was.
                lock.withLock {
                    phase = .building
                    members = []
                    results = []
                    self.completion = nil
                    keepAlive = nil
                }
                return .failure(.shuttingDown)
            }
            // Shutdown began meanwhile: the loop ends the members already in it.
            memberEnded(i, nil, .shutdown)
        }
        return .success(())
    }

    /// An empty batch completes through the loop like any completion (on the transfer
    /// thread, or at the next dispatch()), not on the sending thread: a transfer
    /// that sends nothing carries it.
    private func sendEmpty() -> Result<Void, SendRefusal> {
        let carrier = Transfer(
            prepared: nil, presetError: .cancelled, context: client.loop,
            deliver: { [self] _, _, _ in finish() })
        if client.loop.submit(carrier) { return .success(()) }
        lock.withLock {
            phase = .building
            completion = nil
            keepAlive = nil
        }
        return .failure(.shuttingDown)
    }

    /// Cancels every member still running (each completes with CANCELLED unless it
    /// had finished). With `wait` (loop mode, not from the transfer thread) this
    /// returns once their completions — and so the batch's — have run, as
    /// `Transfer.cancel()` does; without, it only asks the loop (for callers that may
    /// not wait, such as a Swift cancellation handler). Idempotent.
    public func cancel(wait: Bool = true) {
        let running = lock.withLock { phase == .sent ? members : [] }
        for t in running {
            if wait { t.cancel() } else { t.context.requestCancel(t) }
        }
    }

    /// One member's completion (on its completion thread).
    private func memberEnded(_ index: Int, _ response: Response?, _ error: NetError?) {
        var toCancel: [Transfer] = []
        let last: Bool = lock.withLock {
            guard phase == .sent, index < results.count else { return false }
            results[index] = (response, error)
            remaining -= 1
            if policy == .failFast, error != nil, !tripped, remaining > 0 {
                tripped = true
                toCancel = members
            }
            return remaining == 0
        }
        // Asked, not waited for: this may run inside another member's completion.
        for t in toCancel { t.context.requestCancel(t) }
        if last { finish() }
    }

    /// Runs the completion once and lets the batch go.
    private func finish() {
        let (run, keep): (((Batch) -> Void)?, Batch?) = lock.withLock {
            phase = .completed
            members = []
            defer {
                completion = nil
                keepAlive = nil
            }
            return (completion, keepAlive)
        }
        withExtendedLifetime(keep) { run?(self) }
    }
}
