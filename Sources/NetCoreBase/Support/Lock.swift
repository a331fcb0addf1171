#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex paired with a condition variable. Used where a thread must wait
/// for a state change (completion, shutdown); plain state uses `withLock`.
final class Monitor: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a broadcast; the caller holds the lock and re-checks its predicate.
    func wait() { pthread_cond_wait(cond, mutex) }

    /// Wakes every waiter; call with the lock held.
    func broadcast() { pthread_cond_broadcast(cond) }

    /// Waits for a broadcast or until `ms` milliseconds pass (wall clock); the
    /// caller holds the lock and re-checks its predicate.
    func wait(ms: Int64) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let ns = Int64(now.tv_nsec) + (ms % 1000) * 1_000_000
        var due = timespec()
        due.tv_sec = now.tv_sec + Int(ms / 1000) + Int(ns / 1_000_000_000)
        due.tv_nsec = Int(ns % 1_000_000_000)
        pthread_cond_timedwait(cond, mutex, &due)
    }
}

/// A plain mutex for small pieces of shared state shared between threads (client
/// settings, a request's resolved form). A pthread mutex rather than
/// Synchronization.Mutex: ThreadSanitizer sees its ordering (it does not see
/// Mutex's, and reported every hand-over as a race), for a few nanoseconds more.
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Takes the mutex; pair with `unlock()` on every path (`defer`). For a read that
    /// returns closures: through `withLock`'s generic result each is re-wrapped in a
    /// heap-allocated thunk on the way in and again on the way out (two mallocs per
    /// event read of the event handler, measured with callgrind).
    @inline(__always)
    func lock() { pthread_mutex_lock(mutex) }

    /// Releases the mutex taken by `lock()`.
    @inline(__always)
    func unlock() { pthread_mutex_unlock(mutex) }
}
