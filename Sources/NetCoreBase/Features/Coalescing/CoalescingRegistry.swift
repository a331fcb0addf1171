/// In-flight coalescing (seam 1, docs/contract.md#the-request-lifecycle): identical
/// GETs and HEADs in flight at once share one transfer. One registry per client maps
/// a `CoalescingKey` to the `SharedTransfer` running for it.
///
/// Every caller, the first included, keeps a `Transfer` of its own (its nc_task,
/// its Swift handle, its completion with its hooks), which is never submitted;
/// the first caller's send makes the shared transfer, the one the loop runs, whose
/// completion is delivered to each caller still attached, in the order they came
/// (TransferOwner.swift says how the loop asks about cancels).
///
/// Threads: any. Lock order: the registry's lock, then the loop's monitor (the
/// loop never calls in here with its monitor held). No user code runs under it.
final class CoalescingRegistry: @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock` (so the runtime's exclusivity checks are not needed).
    @exclusivity(unchecked) private var running: [CoalescingKey: SharedTransfer] = [:]
    let loop: TransferLoop

    init(loop: TransferLoop) { self.loop = loop }

    /// Sends caller `t` (whose request is eligible: it has a key): joins the
    /// transfer running for `key`, or starts one. False when the client is
    /// shutting down, as `TransferLoop.submit`.
    func submit(_ t: Transfer, _ key: CoalescingKey) -> Bool {
        let sent: Bool = lock.withLock {
            if let entry = running[key], let shared = entry.shared, loop.attach(t, to: shared) {
                entry.followers.append(t)
                return true
            }
            let entry = SharedTransfer(key: key, registry: self, first: t)
            // The shared transfer sends what the caller would have: the same resolved
            // request, monitor, policy, attempt preparer and gate. Its completion is
            // `fanOut`, which finds the entry in its foreign words (no closure context).
            let shared = Transfer(
                prepared: t.original, presetError: nil, context: loop,
                foreign: (nil, Unmanaged.passUnretained(entry).toOpaque()),
                monitor: t.monitor, policy: t.policy, preparer: t.preparer, gate: t.gate,
                deliver: SharedTransfer.fanOut)
            shared.owner = entry
            entry.shared = shared
            guard loop.submit(shared, for: t) else {
                entry.shared = nil
                return false
            }
            running[key] = entry
            return true
        }
        // Shutting down, or a Swift task cancelled before its send: sent alone
        // (the loop refuses it, or completes it as cancelled).
        return sent || loop.submit(t)
    }

    /// Callers attached to a running transfer now (tests).
    var callerCount: Int { lock.withLock { running.values.reduce(0) { $0 + $1.attached } } }

    // MARK: for SharedTransfer, with `lock` held

    fileprivate func withLock<T>(_ body: () -> T) -> T { lock.withLock(body) }

    /// Nobody joins `entry` any more (it completes, or is being cancelled).
    fileprivate func close(_ entry: SharedTransfer) {
        if entry.closed { return }
        entry.closed = true
        // One lookup: removed, and put back in the rare case it was another entry.
        if let removed = running.removeValue(forKey: entry.key), removed !== entry { running[entry.key] = removed }
    }
}

/// One running shared transfer and its callers (the registry's entry). Fields
/// are guarded by the registry's lock.
final class SharedTransfer: TransferOwner, @unchecked Sendable {
    let key: CoalescingKey
    /// Strong: a transfer may complete after its client went (a detached shutdown).
    private let registry: CoalescingRegistry
    /// The transfer the loop runs; nil once it completed (which breaks the cycle
    /// shared → owner → shared).
    @exclusivity(unchecked) var shared: Transfer?
    /// The callers attached, in the order they came: `first` (nil once detached)
    /// and the followers. Kept apart so that leading allocates no array.
    @exclusivity(unchecked) private var first: Transfer?
    @exclusivity(unchecked) var followers: [Transfer] = []
    /// No caller joins any more: completed, or every caller cancelled.
    @exclusivity(unchecked) var closed = false

    init(key: CoalescingKey, registry: CoalescingRegistry, first: Transfer) {
        self.key = key
        self.registry = registry
        self.first = first
    }

    var attached: Int { (first == nil ? 0 : 1) + followers.count }

    /// The shared transfer's completion: every caller still attached gets the
    /// same response and error, in order, on this thread (the loop thread, the
    /// thread in `dispatch()` in queue mode), each exactly once. A request sent
    /// from here on starts a new transfer.
    static func fanOut(_ shared: Transfer, _ response: Response?, _ error: NetError?) {
        guard let word = shared.foreign.1 else { return }
        Unmanaged<SharedTransfer>.fromOpaque(word).takeUnretainedValue().deliver(shared, response, error)
    }

    private func deliver(_ shared: Transfer, _ response: Response?, _ error: NetError?) {
        let (first, followers): (Transfer?, [Transfer]) = registry.withLock {
            registry.close(self)
            defer {
                self.first = nil
                self.followers = []
                self.shared = nil
            }
            return (self.first, self.followers)
        }
        if let first { complete(first, response, error) }
        for t in followers { complete(t, response, error) }
    }

    private func complete(_ t: Transfer, _ response: Response?, _ error: NetError?) {
        t.deliver(t, response, error)
        t.context.markDone(t)
    }

    // MARK: TransferOwner

    func cancel(caller t: Transfer) -> OwnedCancel {
        registry.withLock { detach { $0 === t } }
    }

    func cancelCallers(of t: Transfer, where match: (Transfer) -> Bool) -> OwnedCancel {
        registry.withLock { detach(where: match) }
    }

    /// With the lock held: the callers `match` accepts are detached (they end now
    /// with CANCELLED) while others remain; when none would remain, they stay
    /// attached and the shared transfer is to be cancelled instead — its
    /// cancellation reaches them, and the server's connection is closed.
    private func detach(where match: (Transfer) -> Bool) -> OwnedCancel {
        guard let shared else { return OwnedCancel() }   // completing: they get its result
        let firstMatches = first.map(match) ?? false
        let matchedFollowers = followers.lazy.filter(match).count
        let matched = (firstMatches ? 1 : 0) + matchedFollowers
        if matched == 0 { return OwnedCancel() }
        if matched == attached {
            registry.close(self)
            return OwnedCancel(detached: [], shared: shared, last: matched)
        }
        var out = OwnedCancel()
        if firstMatches, let f = first {
            out.detached.append(f)
            first = nil
        }
        if matchedFollowers > 0 {
            out.detached.append(contentsOf: followers.filter(match))
            followers.removeAll(where: match)
        }
        return out
    }
}
