import CCurlShim
import Synchronization

/// How a client decides whether the network is there (`"reachability"."mode"`,
/// nc_client_set_reachability). The numbers are the header's NC_REACH_*.
public enum ReachabilityMode: Int32, Sendable, CaseIterable {
    /// The kernel's routing state decides (RouteWatcher.swift): with no route off
    /// the machine, a request to a host other than loopback fails at once with
    /// `unreachable` (or waits, see `wait_for_network_ms`). Loopback is never blocked.
    case auto = 0
    /// Every request is sent; nothing is checked (and nothing costs more than a
    /// plain send).
    case online = 1
    /// No request is sent, loopback included: each fails at once with
    /// `unreachable` (or waits for the mode to change).
    case offline = 2

    /// The configuration's word for it.
    public var name: String {
        switch self {
        case .auto: return "auto"
        case .online: return "online"
        case .offline: return "offline"
        }
    }

    /// The mode named as in configuration ("auto", "online", "offline"); nil for an unknown name.
    public init?(name: String) {
        guard let mode = ReachabilityMode.allCases.first(where: { $0.name == name }) else { return nil }
        self = mode
    }
}

/// A client's reachability gate (seam 1, before every attempt: AttemptGate.swift):
/// its mode, changed at run time by `NetClient.reachability`, and how long an
/// unreachable request waits for the network (`wait_for_network_ms`, 0: not at
/// all). Forced ONLINE installs no gate on the transfers sent meanwhile, so it
/// costs nothing; AUTO with a route costs one atomic load per attempt.
final class ReachabilityGate: AttemptGate, @unchecked Sendable {
    /// The mode and the changes, in an object of their own: the one the route
    /// watcher refers to (weakly), so that no weak reference points at the gate. A
    /// Swift object once weakly referenced counts its references in a side table,
    /// where every retain and release takes the runtime's slow path — and each
    /// transfer sent in AUTO mode (the default) retains and releases its gate
    /// several times (about 1 % of the C API's CPU at c=16, `perf record`).
    private let state: ReachabilityState
    /// `wait_for_network_ms`, in nanoseconds; 0: fail at once.
    let waitNanos: UInt64
    let waitMs: Int64
    /// The handler and observers of changes, and the transfers waiting out a retry's
    /// delay (ReachabilityChanges.swift).
    var changes: ReachabilityChanges { state.changes }

    init(mode: ReachabilityMode, waitForNetworkMs: Int64, loop: TransferLoop) {
        state = ReachabilityState(mode: mode, loop: loop)
        waitMs = max(waitForNetworkMs, 0)
        waitNanos = nanos(ms: waitMs)
        // AUTO reads the routing state: start watching it now, not at the first request.
        if mode == .auto { RouteWatcher.shared.listen(state) }
    }

    var mode: ReachabilityMode { state.mode }

    /// Changes the mode for attempts begun from now on. Requests waiting for the
    /// network ask again at once: sent now if the new mode lets them go.
    func setMode(_ mode: ReachabilityMode) {
        if mode == .auto { RouteWatcher.shared.listen(state) }
        state.modeValue.store(mode.rawValue, ordering: .releasing)
        RouteWatcher.shared.resume(owner: self)
        changes.check { state.isReachable }
    }

    /// The gate transfers sent now carry: none while forced online.
    var forTransfers: ReachabilityGate? { mode == .online ? nil : self }

    /// Whether requests would be sent now (to a host other than loopback).
    var isReachable: Bool { state.isReachable }

    func admit(_ transfer: Transfer, _ request: PreparedRequest, now: UInt64) -> AttemptAdmission {
        // A retry whose delay the network's return cut short says so (one comparison
        // for a first attempt, one load while no transfer waits out a delay).
        if transfer.attempt > 0, transfer.gateDeadline == 0, changes.attemptBegins(transfer) {
            transfer.emitRelaunchScheduled(delayMs: 0, reason: ReachabilityChanges.hurriedReason)
        }
        let mode = self.mode
        switch mode {
        case .online:
            transfer.gateDeadline = 0
            return .proceed
        case .auto:
            if RouteWatcher.shared.isOnline || LoopbackHost.isLoopback(request.location) {
                transfer.gateDeadline = 0
                return .proceed
            }
        case .offline:
            break
        }
        if waitNanos == 0 { return .fail(unreachable(mode, request, waited: false)) }
        if transfer.gateDeadline == 0 {
            transfer.gateDeadline = now &+ waitNanos
        } else if now >= transfer.gateDeadline {
            transfer.gateDeadline = 0
            return .fail(unreachable(mode, request, waited: true))
        }
        let held = RouteWatcher.shared.hold(transfer, owner: self, until: transfer.gateDeadline) { online in
            // Under the watcher's lock: the mode or the routes may have changed
            // since they were read above.
            switch self.mode {
            case .online: return false
            case .offline: return true
            case .auto: return !online
            }
        }
        return held ? .hold : admit(transfer, request, now: now)
    }

    /// A transfer that ended while held (a cancel, its deadline, shutdown) is let go
    /// by the watcher at once. Every completion passes here: one that was never
    /// held (gateDeadline 0) costs a comparison.
    func ended(_ transfer: Transfer) {
        if transfer.attempt > 0 { _ = changes.attemptBegins(transfer) }   // one waiting out a delay: forgotten
        guard transfer.gateDeadline != 0 else { return }
        RouteWatcher.shared.forget(transfer)
    }

    func waitsToRetry(_ transfer: Transfer) { changes.backingOff(transfer) }

    /// NC_CLIENT_UNREACHABLE, saying why and what to do.
    private func unreachable(_ mode: ReachabilityMode, _ request: PreparedRequest, waited: Bool) -> NetError {
        let host = LoopbackHost.host(of: request.location) ?? "the host"
        var text: String
        if mode == .offline {
            text =
                "The client is set offline (reachability OFFLINE), so the request to \(host) was not sent. Set the reachability to AUTO or ONLINE to send it."
        } else {
            text =
                "No network route leaves this machine (reachability AUTO reads the kernel's routing table), so the request to \(host) was not sent (no DNS lookup, no connect). Check the network connection, or set \"reachability\": {\"wait_for_network_ms\": N} to wait for it."
        }
        if waited { text += " Waited \(waitMs) ms for the network." }
        var e = NetError.client(.unreachable, text)
        e.isRetryable = true
        return e
    }
}

/// A gate's mode and its changes: what the route watcher tells of a change of the
/// routing state (RouteWatcher.listen), held by the gate and, weakly, by the watcher.
final class ReachabilityState: @unchecked Sendable {
    let modeValue: Atomic<Int32>
    let changes: ReachabilityChanges

    init(mode: ReachabilityMode, loop: TransferLoop) {
        modeValue = Atomic(mode.rawValue)
        changes = ReachabilityChanges(
            loop: loop, reachable: mode == .online || (mode == .auto && RouteWatcher.shared.isOnline))
    }

    var mode: ReachabilityMode {
        ReachabilityMode(rawValue: modeValue.load(ordering: .relaxed)) ?? .auto
    }

    /// Whether requests would be sent now (to a host other than loopback).
    var isReachable: Bool {
        switch mode {
        case .online: return true
        case .offline: return false
        case .auto: return RouteWatcher.shared.isOnline
        }
    }

    /// The routing state changed (RouteWatcher's thread): a client in AUTO mode may
    /// have gone online or offline.
    func routesChanged() {
        guard mode == .auto else { return }
        changes.check { isReachable }
    }
}

/// Whether a request's host is this machine: the one kind of host AUTO never blocks.
enum LoopbackHost {
    /// "localhost" (and names under ".localhost", RFC 6761), 127.0.0.0/8, ::1 and
    /// ::ffff:127.x.x.x. Names are compared as written: none is resolved.
    static func isLoopback(_ url: RequestURL) -> Bool {
        guard var host = host(of: url)?.lowercased() else { return false }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            if let zone = host.firstIndex(of: "%") { host = String(host[..<zone]) }
            if host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
            guard host.hasPrefix("::ffff:") else { return false }
            host = String(host.dropFirst(7))
        }
        if host.hasSuffix(".") { host.removeLast() }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isNumber) && Int(p) ?? 256 < 256 }
    }

    /// The URL's host as libcurl parsed it (an IPv6 address in brackets); nil when
    /// libcurl refused the URL.
    static func host(of url: RequestURL) -> String? {
        guard let u = url.parsed else { return nil }
        var out: UnsafeMutablePointer<CChar>? = nil
        guard curl_url_get(u, CURLUPART_HOST, &out, 0) == CURLUE_OK, let out else { return nil }
        defer { curl_free(out) }
        return String(cString: out)
    }
}
