import Synchronization

/// What a client tells about its reachability as it changes (NetClient+Reachability.swift):
/// the handler called on every change of `NetClient.isReachable` (nc_client_set_reachability_handler),
/// the observers of the Swift `AsyncSequence`, and "retry when reachable": the
/// requests waiting out a retry's delay, sent at once when the network returns.
///
/// What counts as a change: the answer of `isReachable` (nc_client_reachability)
/// differs from the one last reported — after a mode change (`setMode`, from any
/// thread), or a change of the routing state that RouteWatcher announces to the
/// clients in AUTO mode (on its thread). Each is worked out under `lock`, so two
/// changes racing are reported in the order they took effect, once each.
///
/// Delivery: in queue mode through `dispatch()`, in order with the completions (as
/// every hook there); in loop mode on the thread that observed the change (the
/// route watcher's, or the one whose mode change made it), one call at a time and
/// in order — a change seen while a call runs is delivered by that thread after it
/// returns — inside `CallbackScope`, with no lock held.
///
/// Cost: nothing per request. A retry scheduled on a transfer that carries the
/// reachability gate adds it to `backingOff` (a failure path); its next attempt or
/// its completion takes it out.
final class ReachabilityChanges: @unchecked Sendable {
    typealias Observer = @Sendable (Bool) -> Void

    private let loop: TransferLoop
    private let lock = Lock()
    /// The state last reported (isReachable).
    private var last: Bool
    private var handler: Observer?
    private var observers: [UInt64: Observer] = [:]
    private var nextObserver: UInt64 = 1
    /// Loop mode: states to deliver, and whether a thread is delivering them now.
    private var pending: [Bool] = []
    private var delivering = false
    /// Transfers waiting out a retry's delay, by transfer; `true` once the network
    /// returned and they were asked to go now (their next attempt says so in an event).
    private var backingOff: [ObjectIdentifier: (transfer: Transfer, hurried: Bool)] = [:] {
        didSet { waiting.store(backingOff.count, ordering: .relaxed) }
    }
    /// `backingOff.count`, read without the lock: the attempts and completions of a
    /// client that has none waiting cost one load.
    private let waiting = Atomic<Int>(0)

    init(loop: TransferLoop, reachable: Bool) {
        self.loop = loop
        self.last = reachable
    }

    /// The reason a hurried retry's event gives.
    static let hurriedReason =
        "network returned: the retry is sent now instead of after its delay (retry when reachable)"

    // MARK: handler and observers

    var reachabilityHandler: Observer? {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }

    /// Adds an observer of every change from now on; returns its key for `removeObserver`.
    func addObserver(_ o: @escaping Observer) -> UInt64 {
        lock.withLock {
            let key = nextObserver
            nextObserver += 1
            observers[key] = o
            return key
        }
    }

    func removeObserver(_ key: UInt64) {
        let removed: Observer? = lock.withLock { observers.removeValue(forKey: key) }
        _ = removed   // released outside the lock
    }

    // MARK: changes

    /// The state may have changed (a mode change, a routing change): reports it if
    /// it did, and when the network returned sends the transfers waiting out a
    /// retry's delay at once. `now` reads the state; called under the lock.
    func check(_ now: () -> Bool) {
        lock.lock()
        let state = now()
        guard state != last else {
            lock.unlock()
            return
        }
        last = state
        var hurry: [Transfer] = []
        if state {
            for (key, entry) in backingOff where !entry.hurried {
                backingOff[key] = (entry.transfer, true)
                hurry.append(entry.transfer)
            }
        }
        let anyone = handler != nil || !observers.isEmpty
        if anyone && loop.completions == nil {
            pending.append(state)
        }
        let deliverHere = anyone && loop.completions == nil && !delivering
        if deliverHere { delivering = true }
        lock.unlock()
        // Woken from its delay: relaunched by the loop's next pass (a transfer that
        // is no longer waiting on its timer is left alone).
        for t in hurry { t.context.relaunchNow(t) }
        guard anyone else { return }
        if let queue = loop.completions {
            queue.push { [self] in deliver(state) }
            return
        }
        guard deliverHere else { return }   // the thread delivering now takes it
        while true {
            let next: Bool? = lock.withLock {
                if pending.isEmpty {
                    delivering = false
                    return nil
                }
                return pending.removeFirst()
            }
            guard let next else { return }
            deliver(next)
        }
    }

    /// Calls the handler and the observers installed now with `state`.
    private func deliver(_ state: Bool) {
        let (h, list) = lock.withLock { (handler, Array(observers.values)) }
        CallbackScope.run(loop) {
            h?(state)
            for o in list { o(state) }
        }
    }

    // MARK: retry when reachable

    /// `t` waits out a retry's delay (RetryTransferPolicy): sent at once if the
    /// network returns meanwhile.
    func backingOff(_ t: Transfer) {
        lock.withLock { backingOff[ObjectIdentifier(t)] = (t, false) }
    }

    /// `t` begins its next attempt (or completed): forgotten. True when the network's
    /// return cut its delay short (its attempt then says so in a retry event).
    @inline(__always)
    func attemptBegins(_ t: Transfer) -> Bool {
        guard waiting.load(ordering: .relaxed) != 0 else { return false }
        return forget(t)
    }

    @inline(never)
    private func forget(_ t: Transfer) -> Bool {
        lock.withLock {
            return backingOff.removeValue(forKey: ObjectIdentifier(t))?.hurried ?? false
        }
    }

    /// Transfers waiting out a delay now (tests).
    var backingOffCount: Int { lock.withLock { backingOff.count } }
}
