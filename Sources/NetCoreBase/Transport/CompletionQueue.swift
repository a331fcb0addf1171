import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// Queue mode (`"callbacks": "queue"`): completions wait here instead of running on
/// the loop thread, until the caller runs `dispatch()` on a thread of its own. An
/// eventfd (`fd`) is readable while completions wait, for the caller's event loop
/// (select, epoll, asyncio's add_reader, libuv, GLib).
///
/// Threads: `push` from the loop thread (or the thread shutting the loop down);
/// `drain` from the caller's thread; state guarded by `lock`.
final class CompletionQueue: @unchecked Sendable {
    /// The notification descriptor: readable while `waiting` is not empty.
    let fd: Int32
    private let lock = Lock()
    /// What `dispatch()` runs, in order: finished transfers, and hook calls made on
    /// the loop thread that queue mode moves to the caller's thread.
    private enum Item {
        case transfer(Transfer)
        case call(@Sendable () -> Void)
    }
    private var waiting: [Item] = []
    /// The thread inside `drain`, if any (to refuse nesting and to let a cancel from
    /// a completion return without waiting for itself).
    private var draining: pthread_t?

    init?() {
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        if fd < 0 { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Queues a finished transfer (its `result` set); signals the descriptor when
    /// the queue was empty.
    func push(_ t: Transfer) { enqueue(.transfer(t)) }

    /// Queues a call for the next drain, after what is queued already (a hook's
    /// call for a transfer runs before that transfer's completion).
    func push(_ call: @escaping @Sendable () -> Void) { enqueue(.call(call)) }

    private func enqueue(_ item: Item) {
        lock.withLock {
            let wasEmpty = waiting.isEmpty
            waiting.append(item)
            if wasEmpty {
                var one: UInt64 = 1
                _ = write(fd, &one, 8)
            }
        }
    }

    /// True on the thread that runs the completions now.
    var isDrainingThread: Bool { lock.withLock { isCurrentThread(draining) } }

    /// Runs `deliver` for every transfer waiting now, in completion order, on the
    /// calling thread. `.nested` (nothing run) from inside one of those deliveries,
    /// unless `force` (the final drain at shutdown).
    func drain(force: Bool = false, _ deliver: (Transfer) -> Void) -> DispatchResult {
        let batch: [Item]? = lock.withLock {
            if draining != nil && !force { return nil }
            let batch = waiting
            waiting.removeAll()
            // Consumed under the lock: a completion pushed after this signals again.
            var counter: UInt64 = 0
            _ = read(fd, &counter, 8)
            draining = pthread_self()
            return batch
        }
        guard let batch else { return .nested }
        for item in batch {
            switch item {
            case .transfer(let t): deliver(t)
            case .call(let call): call()
            }
        }
        lock.withLock { draining = nil }
        return .ok
    }
}
