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

    /// After shutdown: the requests that waited for the network have ended (with
    /// `shutdown`); the process-wide watcher lets go of them.
    func forgetHeldTransfers() {
        if reachabilityGate.mode != .online || reachabilityGate.waitMs > 0 {
            RouteWatcher.shared.forget(owner: reachabilityGate)
        }
    }
}
