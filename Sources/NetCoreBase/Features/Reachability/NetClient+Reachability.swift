/// Reachability (`"reachability"` of the configuration, ReachabilityGate.swift): in
/// AUTO mode (the default) a request to a host other than loopback fails at once
/// with `NetError` CLIENT `unreachable` while no route leaves the machine — no DNS
/// lookup, no connect — or waits up to `wait_for_network_ms` for one; forced
/// OFFLINE blocks every host, loopback included; forced ONLINE checks nothing.
extension NetClient {
    /// The mode for attempts begun from now on. Setting it lets requests that wait
    /// for the network (`wait_for_network_ms`) ask again at once: ONLINE (or AUTO
    /// with a route) sends them now.
    public var reachability: ReachabilityMode {
        get { reachabilityGate.mode }
        set { reachabilityGate.setMode(newValue) }
    }

    /// Whether a request to a host other than loopback would be sent now: forced
    /// ONLINE, or AUTO with a route off the machine (or no way to read the routes).
    public var isReachable: Bool { reachabilityGate.isReachable }

    /// Called with the new `isReachable` on every change of it: a mode change that
    /// changes the answer, or (AUTO) the routing state changing. In queue mode inside
    /// `dispatch()`, in order with the completions; otherwise on the thread that saw
    /// the change (the route watcher's, or the one setting `reachability`), one call
    /// at a time, in order. nil removes it. Not called for the state at install:
    /// read `isReachable`. (ReachabilityChanges.swift.)
    ///
    /// A request waiting out a retry's delay when the network returns is sent at
    /// once ("retry when reachable"), with a `retry` event of delay 0 whose reason
    /// starts "network returned" — whether or not a handler is installed.
    public var reachabilityHandler: (@Sendable (Bool) -> Void)? {
        get { reachabilityGate.changes.reachabilityHandler }
        set { reachabilityGate.changes.reachabilityHandler = newValue }
    }

    /// Adds an observer called as `reachabilityHandler` is, beside it (the Swift
    /// `AsyncSequence`); the key removes it.
    package func addReachabilityObserver(_ observer: @escaping @Sendable (Bool) -> Void) -> UInt64 {
        reachabilityGate.changes.addObserver(observer)
    }

    package func removeReachabilityObserver(_ key: UInt64) {
        reachabilityGate.changes.removeObserver(key)
    }

    /// Requests waiting out a retry's delay that the network's return would send at once (tests).
    var requestsBackingOff: Int { reachabilityGate.changes.backingOffCount }

    /// After shutdown: the requests that waited for the network have ended (with
    /// `shutdown`); the process-wide watcher lets go of them.
    func forgetHeldTransfers() {
        if reachabilityGate.mode != .online || reachabilityGate.waitMs > 0 {
            RouteWatcher.shared.forget(owner: reachabilityGate)
        }
    }
}
