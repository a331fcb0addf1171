#if canImport(Glibc)
import Glibc
#endif

/// Marks "user code of this client runs on this thread now" for hooks that run
/// on a caller's own thread (a synchronous send's events and error handler), so
/// that calls which would wait for that same thread (nc_client_send_sync,
/// nc_client_free) are refused instead of deadlocking. A thread-local word: the
/// identity of the innermost client whose hook runs; nested scopes restore the
/// outer one. Entered only when a hook is installed, so it costs nothing otherwise.
enum CallbackScope {
    private static let key: pthread_key_t? = {
        var k = pthread_key_t()
        return pthread_key_create(&k, nil) == 0 ? k : nil
    }()

    /// Runs `body` marked as a callback of `owner`.
    @inline(__always)
    static func run<T>(_ owner: AnyObject, _ body: () -> T) -> T {
        guard let key else { return body() }
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(owner).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return body()
    }

    /// True inside `run(owner, …)` on this thread.
    static func isInside(_ owner: AnyObject) -> Bool {
        guard let key, let p = pthread_getspecific(key) else { return false }
        return UnsafeRawPointer(p) == UnsafeRawPointer(Unmanaged.passUnretained(owner).toOpaque())
    }
}
