/// What a transfer carries besides its request: the event monitor, the policy that
/// decides after each attempt (retry and the settings' others, wrapped by the
/// token refresher), the preparer of each attempt (adapters, token or basic
/// credentials, signing) and the gate before it (reachability, wrapped by the
/// refresher). A nil part costs the transfer nothing.
struct TransferFeatures {
    var monitor: (any EventMonitor)?
    var policy: (any TransferPolicy)? = nil
    var preparer: (any AttemptPreparer)? = nil
    var gate: (any AttemptGate)? = nil
}

/// The one place a request's features are put together: `NetClient.transfer` and
/// the cache's seam (NetClient+Cache.swift) ask `features(for:_:)` and make every
/// transfer with `compose`; nobody else nests one feature in another. A feature
/// added later joins here and in its own folder (Features/<Name>/), not in
/// Transport/.
extension NetClient {
    /// What a transfer of `p` carries under `settings`, in the order they run:
    /// the gate before each attempt, the preparer, the policy after it.
    @inline(__always)
    func features(for p: PreparedRequest?, _ settings: ClientSettings) -> TransferFeatures {
        TransferFeatures(
            monitor: settings.monitor,
            policy: tokenRefresher.policy(wrapping: settings.policy(for: p)),
            preparer: adapterRegistry.preparer(for: settings),
            gate: tokenRefresher.gate(wrapping: reachabilityGate.forTransfers))
    }

    /// A transfer of `request` (resolved as `prepared`, or failing with `preset`)
    /// carrying `features`, with what every transfer gets last: the request's
    /// progress and body callbacks (Request+Transfers.swift) and the client's
    /// hooks. `presetResponse`: an answer already known (the cache's), completed
    /// through the usual path with nothing sent; `standsAlone`: never coalesced.
    @inline(__always)
    func compose(
        _ request: Request, _ prepared: PreparedRequest?, preset: NetError? = nil,
        _ features: borrowing TransferFeatures,
        presetResponse: Response? = nil, standsAlone: Bool = false,
        foreign: (UnsafeRawPointer?, UnsafeMutableRawPointer?), deliver: @escaping Transfer.Deliver
    ) -> Transfer {
        let t = Transfer(
            prepared: prepared, presetError: preset, context: loop, foreign: foreign, monitor: features.monitor,
            policy: features.policy, preparer: features.preparer, gate: features.gate, deliver: deliver)
        if let presetResponse { t.presetResponse = presetResponse }
        if standsAlone { t.standsAlone = true }
        // Progress and body callbacks: one branch when none.
        if let callbacks = request.transferCallbacks { t.extras = TransferExtras(callbacks) }
        return attachHooks(t, request)
    }
}
