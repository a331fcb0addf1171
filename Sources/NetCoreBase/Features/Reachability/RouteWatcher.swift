import CCurlShim
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Whether any route leaves this machine, as the kernel's routing state says, kept
/// up to date by one thread per process; and the transfers waiting for the network
/// (`"wait_for_network_ms"`), resumed when it may have returned.
///
/// How: the routing tables are read once (an rtnetlink RTM_GETROUTE dump,
/// `ncroute_has_external_route`, Sources/CCurlShim/ncroute.c) and then again only
/// when the kernel announces a change on a netlink socket subscribed to IPv4 and
/// IPv6 route changes and link changes (a cable pulled, Wi-Fi lost): requests read
/// one atomic flag, never the tables.
///
/// What "online" means: a unicast route in a table other than "local" whose
/// destination is neither loopback, link-local nor multicast, not marked linkdown,
/// through an interface that is up, running and not loopback — a default route or
/// any narrower one. Requests name hosts, and the gate resolves no name (no DNS
/// lookup may happen before the fail-fast), so it cannot know which route a host
/// would take: it blocks only when no route off the machine exists at all.
///
/// When netlink cannot be used (a sandbox without it) the state is unknown and
/// counts as online: AUTO then never blocks, as if the gate were not there.
///
/// Started on first use (a client whose reachability is not forced online); the
/// thread lives as long as the process and holds no lock while it waits.
final class RouteWatcher: @unchecked Sendable {
    static let shared = RouteWatcher()

    /// A route leaves the machine (or the state cannot be read). Written under `lock`.
    private let online = Atomic<Bool>(true)
    /// Waiting transfers (guarded by `lock`): by transfer, so one that ends while it
    /// waits (a cancel) is forgotten in O(1), and in deadline order, so the earliest
    /// is known without a search. A cancelled waiter used to stay until its
    /// deadline, which "wait_for_network_ms" may put minutes away.
    private let lock = Lock()
    private var waiters: [ObjectIdentifier: Waiter] = [:]
    private var deadlines = TimerQueue<Waiter>()
    /// The netlink socket announcing changes (-1: none, the state stays "online").
    private let changes: Int32
    /// Wakes the thread when an earlier deadline arrives (eventfd).
    private let wakeFD: Int32
    /// The states of the gates of clients in AUTO mode, told of each change of the
    /// routing state (their reachability handlers, retry when reachable); weak, so a
    /// client that goes is dropped at the next change. Guarded by `lock`. (The gate's
    /// state, not the gate: ReachabilityGate.state says why.)
    private var listeners: [ObjectIdentifier: Listener] = [:]
    private struct Listener { weak var state: ReachabilityState? }

    /// A transfer held by a gate until `deadline` (monotonicNanos), the network's
    /// return, or a change of its owner's mode.
    private final class Waiter: TimerQueueItem {
        let transfer: Transfer
        let owner: ObjectIdentifier
        var timerSlot = -1
        init(_ transfer: Transfer, owner: ObjectIdentifier) {
            self.transfer = transfer
            self.owner = owner
        }
    }

    private init() {
        // Subscribed before the first read, so that no change between the two is missed.
        changes = ncroute_open_monitor()
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        if changes >= 0 { online.store(ncroute_has_external_route() != 0, ordering: .releasing) }
        if let thread = startThread({ [self] in run() }) { pthread_detach(thread) }
    }

    /// True while a route leaves the machine, or when that cannot be known.
    var isOnline: Bool { online.load(ordering: .acquiring) }

    /// Holds `transfer` until `deadline`, the network's return or `resume(owner:)`,
    /// whichever comes first; then it is resumed (`TransferLoop.resume`) and its gate
    /// asked again. False (nothing held) when `stillBlocked`, asked under the lock
    /// that the changes of state also take, says the reason to wait has gone.
    func hold(
        _ transfer: Transfer, owner: AnyObject, until deadline: UInt64, stillBlocked: (_ online: Bool) -> Bool
    ) -> Bool {
        let earliest: Bool? = lock.withLock {
            guard stillBlocked(online.load(ordering: .relaxed)) else { return nil }
            let earliest = deadlines.nextDeadline.map { $0 > deadline } ?? true
            let key = ObjectIdentifier(transfer)
            let w = waiters[key] ?? Waiter(transfer, owner: ObjectIdentifier(owner))
            waiters[key] = w
            deadlines.schedule(w, at: deadline)
            return earliest
        }
        guard let earliest else { return false }
        if earliest { wake() }
        return true
    }

    /// Tells a gate's `state` of every change of the routing state from now on.
    func listen(_ state: ReachabilityState) {
        lock.withLock { listeners[ObjectIdentifier(state)] = Listener(state: state) }
    }

    /// The gates' states still alive, the others dropped (under `lock`).
    private func liveListeners() -> [ReachabilityState] {
        var live: [ReachabilityState] = []
        for (key, l) in listeners {
            if let g = l.state { live.append(g) } else { listeners.removeValue(forKey: key) }
        }
        return live
    }

    /// Resumes every transfer held for `owner` (its mode changed).
    func resume(owner: AnyObject) {
        let id = ObjectIdentifier(owner)
        let taken: [Waiter] = lock.withLock { take { $0.owner == id } }
        for w in taken { w.transfer.context.resume(w.transfer) }
    }

    /// Forgets `transfer` if it is held: it ended while it waited (a cancel).
    func forget(_ transfer: Transfer) {
        let dropped: Waiter? = lock.withLock {
            guard let w = waiters.removeValue(forKey: ObjectIdentifier(transfer)) else { return nil }
            deadlines.remove(w)
            return w
        }
        _ = dropped   // released here, outside the lock
    }

    /// Transfers held now for `owner` (tests: none once all ended).
    func heldCount(owner: AnyObject) -> Int {
        let id = ObjectIdentifier(owner)
        return lock.withLock { waiters.values.lazy.filter { $0.owner == id }.count }
    }

    /// Takes out the waiters `match` selects (under `lock`).
    private func take(where match: (Waiter) -> Bool) -> [Waiter] {
        let out = waiters.values.filter(match)
        for w in out {
            waiters.removeValue(forKey: ObjectIdentifier(w.transfer))
            deadlines.remove(w)
        }
        return out
    }

    /// Forgets the transfers held for `owner` without resuming them (its client shut
    /// down, which ended them).
    func forget(owner: AnyObject) {
        let id = ObjectIdentifier(owner)
        let dropped: [Waiter] = lock.withLock { take { $0.owner == id } }
        _ = dropped   // released here, outside the lock
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: the watcher thread

    private func run() {
        var fds = [
            pollfd(fd: changes, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
        ]
        while true {
            let timeout = lock.withLock { () -> Int32 in
                guard let next = deadlines.nextDeadline else { return -1 }
                let now = monotonicNanos()
                // Rounded up: woken before the deadline, the gate would only hold again.
                return next <= now ? 0 : Int32(clamping: (next - now + 999_999) / 1_000_000)
            }
            fds[0].revents = 0
            fds[1].revents = 0
            // A descriptor of -1 is ignored by poll(2).
            let n = poll(&fds, 2, timeout)
            if n < 0 && errno != EINTR { usleep(100_000) }   // not expected; never spin
            var changed = false
            if fds[0].revents != 0 {
                _ = ncroute_drain(changes)
                changed = true
            }
            if fds[1].revents != 0 {
                var counter: UInt64 = 0
                _ = read(wakeFD, &counter, 8)
            }
            // Read outside the lock (a netlink round trip); stored under it, so that a
            // gate deciding to hold sees either the old state and is resumed below, or
            // the new one and does not hold.
            let state = changed ? ncroute_has_external_route() : 0
            let now = monotonicNanos()
            var told: [ReachabilityState] = []
            let due: [Waiter] = lock.withLock {
                if changed {
                    online.store(state != 0, ordering: .releasing)
                    told = liveListeners()
                }
                // Any change resumes every waiter: each gate asks again and holds again
                // if its reason remains (forced offline, or still no route).
                let ready = changed ? deadlines.removeAll() : deadlines.popDue(now: now)
                for w in ready { waiters.removeValue(forKey: ObjectIdentifier(w.transfer)) }
                return ready
            }
            for w in due { w.transfer.context.resume(w.transfer) }
            // Each client in AUTO mode reports the change if its state changed.
            for g in told { g.routesChanged() }
        }
    }
}
