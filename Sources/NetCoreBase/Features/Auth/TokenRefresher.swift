import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Single-flight token refresh (docs/contract.md#token-refresh): when requests fail
/// because the login expired (a code of `envelope.auth_expired_codes`, or HTTP 401),
/// the client's refresher runs once however many failed; requests sent meanwhile wait;
/// the expired ones are sent again, once, with the new token; a failed refresh fails
/// them all with AUTH_REFRESH_FAILED and its message.
///
/// It hangs on two seams and the loop knows nothing of it:
/// - seam 2 (`Policy`, a TransferPolicy wrapping the client's other one — retry):
///   an expired attempt parks its transfer and starts (or joins) the refresh;
/// - seam 1 (`Gate`, an AttemptGate wrapping the reachability gate): an attempt
///   about to start waits while a refresh runs, and one that waited for a refresh
///   that failed ends with its error instead of being sent.
/// Requests flagged NC_REQUEST_SKIP_AUTH (the refresh call itself) are neither held
/// nor a trigger. With no refresher installed nothing is wrapped: no cost.
///
/// Threads: any; state under `lock`, never held while user code runs.
final class TokenRefresher: @unchecked Sendable {
    /// Asked to refresh: `refreshDone(token:message:)` answers, now or later, from
    /// any thread. Runs on the thread that saw the expiry (the transfer thread,
    /// inside dispatch() in queue mode, or a synchronous caller's thread).
    typealias Start = @Sendable (NetError) -> Void

    private let lock = Lock()
    private var start: Start?
    /// A refresh is running: attempts wait for its answer.
    private var refreshing = false
    /// Transfers parked or held for the running refresh, by id, each with the
    /// order it began to wait in (they go on in that order). By id so that one that
    /// ends meanwhile (a cancel, its deadline) is forgotten in O(1): a dictionary,
    /// not a list searched on every completion during a refresh.
    private var waiters: [UInt64: (order: Int, transfer: Transfer)] = [:]
    private var waitOrder = 0
    /// Transfers whose refresh failed, with the failure's message: ended by the gate.
    /// (Keyed by the transfer's id: ids are never reused, unlike object addresses,
    /// so an entry left by a transfer cancelled while it waited matches no other.)
    private var failedWaiters: [UInt64: String] = [:]
    /// Transfers sent again after a refresh: a second expiry completes them.
    private var replayed: Set<UInt64> = []
    /// When the refreshes of the last minute started (monotonic ns).
    private var recent: [UInt64] = []
    /// `auth.max_refreshes_per_minute`.
    private var maxPerMinute: Int = 3
    /// The Swift async form last set (module NetCore's NetClient.refresher), for its
    /// getter: kept as `Any`, so this module names no async function type.
    private var asyncFormStorage: (any Sendable)?
    var asyncForm: (any Sendable)? {
        get { lock.withLock { asyncFormStorage } }
        set { lock.withLock { asyncFormStorage = newValue } }
    }
    /// Installed: the transfers made now get the policy and the gate.
    let installed = Atomic<Bool>(false)

    /// Sets the token a refresh installs (NetClient.setToken; bound once the client
    /// exists, weakly).
    private var setToken: (@Sendable (String) throws(NetError) -> Void)?
    /// The Authorization value in use now (to tell whether an attempt carried an
    /// older one).
    private let currentAuthorization: @Sendable () -> String?

    init(currentAuthorization: @escaping @Sendable () -> String?) {
        self.currentAuthorization = currentAuthorization
    }

    func bind(setToken: @escaping @Sendable (String) throws(NetError) -> Void) {
        lock.withLock { self.setToken = setToken }
    }

    func install(_ start: Start?, maxPerMinute: Int) {
        lock.withLock {
            self.start = start
            self.maxPerMinute = maxPerMinute
        }
        installed.store(start != nil, ordering: .releasing)
    }

    var isRefreshing: Bool { lock.withLock { refreshing } }

    /// The policy of a transfer made now: `next` wrapped when a refresher is installed.
    func policy(wrapping next: (any TransferPolicy)?) -> (any TransferPolicy)? {
        installed.load(ordering: .acquiring) ? Policy(self, next) : next
    }

    /// The gate of a transfer made now: `next` wrapped when a refresher is installed.
    func gate(wrapping next: (any AttemptGate)?) -> (any AttemptGate)? {
        installed.load(ordering: .acquiring) ? Gate(self, next) : next
    }

    // MARK: the answer

    /// Why `refreshDone` was refused.
    enum DoneRefusal: Error { case noRefreshRunning, badToken(NetError) }

    /// The refresh ended: with a token (installed as the bearer token, then every
    /// waiting request goes on with it) or without (every waiting request ends with
    /// AUTH_REFRESH_FAILED and `message`).
    func refreshDone(token: String?, message: String?) -> Result<Void, DoneRefusal> {
        if let token {
            guard isRefreshing else { return .failure(.noRefreshRunning) }
            let install = lock.withLock { setToken }
            do throws(NetError) {
                try install?(token)
            } catch {
                return .failure(.badToken(error))
            }
        }
        let resumed: [Transfer]? = lock.withLock {
            guard refreshing else { return nil }
            refreshing = false
            let all = waiters.values.sorted { $0.order < $1.order }.map(\.transfer)
            waiters.removeAll()
            for t in all {
                if token == nil {
                    failedWaiters[t.id] =
                        message.map { "The token refresh failed: \($0)" } ?? "The token refresh failed."
                } else {
                    replayed.insert(t.id)
                }
            }
            return all
        }
        guard let resumed else { return .failure(.noRefreshRunning) }
        for t in resumed { t.context.resume(t) }
        return .success(())
    }

    // MARK: seam 2

    /// What follows an expired attempt of `t` (which carried `authorization`); nil:
    /// the expiry is the attempt's answer (the next policy decides).
    fileprivate func expired(_ t: Transfer, _ error: NetError, authorization: String?) -> TransferAction? {
        enum Step {
            case own, park, replay
            case start(Start)
        }
        let id = t.id
        let now = monotonicNanos()
        let step: Step = lock.withLock {
            // Sent again once after a refresh and expired again: its own error.
            if replayed.remove(id) != nil { return .own }
            guard let start else { return .own }
            // A refresh runs: wait for it with the others.
            if refreshing {
                wait(t)
                return .park
            }
            // It carried an older token than the one in use now: send it again with
            // the new one, without a refresh.
            if authorization != currentAuthorization() {
                replayed.insert(id)
                return .replay
            }
            // At most N refreshes a minute: beyond, the expiry is the answer.
            recent.removeAll { now &- $0 > 60_000_000_000 }
            guard recent.count < maxPerMinute else { return .own }
            recent.append(now)
            refreshing = true
            wait(t)
            return .start(start)
        }
        switch step {
        case .own: return nil
        case .park: return .park
        case .replay: return .relaunch
        case .start(let start):
            // The refresher runs where the hooks run (inside dispatch() in queue
            // mode), after this transfer is parked: an answer given at once resumes
            // it on the loop's next pass.
            let call: @Sendable () -> Void = { CallbackScope.run(t.context) { start(error) } }
            if !t.context.deferToDispatch(call) { call() }
            return .park
        }
    }

    // MARK: seam 1

    fileprivate func admit(_ t: Transfer) -> AttemptAdmission? {
        lock.withLock {
            if let message = failedWaiters.removeValue(forKey: t.id) {
                return .fail(NetError.authRefreshFailed(message))
            }
            if refreshing {
                wait(t)
                return .hold
            }
            return nil
        }
    }

    /// A transfer that ended (Gate.ended, for every completion, whatever ended it:
    /// a result, a cancel, its deadline) is forgotten: a refresh answered later
    /// keeps nothing for it.
    fileprivate func forget(_ t: Transfer) {
        lock.withLock {
            guard refreshing || !replayed.isEmpty || !failedWaiters.isEmpty else { return }
            _ = replayed.remove(t.id)
            _ = failedWaiters.removeValue(forKey: t.id)
            if refreshing { waiters.removeValue(forKey: t.id) }
        }
    }

    /// Adds `t` to the waiters, keeping its place if it is there already (under `lock`).
    private func wait(_ t: Transfer) {
        guard waiters[t.id] == nil else { return }
        waiters[t.id] = (waitOrder, t)
        waitOrder &+= 1
    }

    /// Transfers this refresher keeps something for (tests: none once all ended).
    package var remembered: Int { lock.withLock { waiters.count + replayed.count + failedWaiters.count } }

    /// The expired attempt's Authorization value.
    fileprivate static func authorization(of t: Transfer) -> String? { t.prepared?.headers["Authorization"] }

    /// Seam 2: parks expired attempts for the refresh, else asks `next`.
    final class Policy: TransferPolicy {
        let refresher: TokenRefresher
        let next: (any TransferPolicy)?
        init(_ refresher: TokenRefresher, _ next: (any TransferPolicy)?) {
            self.refresher = refresher
            self.next = next
        }

        func next(after t: Transfer, response: Response?, error: NetError?) -> TransferAction {
            if let error, error.meansLoginExpired, !(t.original?.resilience.skipsAuth ?? false),
                let action = refresher.expired(t, error, authorization: TokenRefresher.authorization(of: t))
            {
                return action
            }
            return next?.next(after: t, response: response, error: error) ?? .complete(response, error)
        }
    }

    /// Seam 1: holds attempts while a refresh runs; ends those whose refresh failed.
    final class Gate: AttemptGate {
        let refresher: TokenRefresher
        let next: (any AttemptGate)?
        init(_ refresher: TokenRefresher, _ next: (any AttemptGate)?) {
            self.refresher = refresher
            self.next = next
        }

        func admit(_ t: Transfer, _ request: PreparedRequest, now: UInt64) -> AttemptAdmission {
            if !request.resilience.skipsAuth, let answer = refresher.admit(t) { return answer }
            return next?.admit(t, request, now: now) ?? .proceed
        }

        func ended(_ t: Transfer) {
            refresher.forget(t)
            next?.ended(t)
        }

        func waitsToRetry(_ t: Transfer) { next?.waitsToRetry(t) }
    }
}

extension NetError {
    /// The token refresh the request waited for failed: CLIENT AUTH_REFRESH_FAILED
    /// (NC_CLIENT_AUTH_REFRESH_FAILED) with the refresher's message. It counts as an
    /// expiry for the auth-expired handler, which fires once for it.
    static func authRefreshFailed(_ message: String) -> NetError {
        var e = client(.authRefreshFailed, message)
        e.isAuthExpired = true
        return e
    }
}
