#if canImport(Glibc)
import Glibc
#endif

/// Starts a joinable pthread running `body`. Returns nil if the system refuses.
func startThread(_ body: @escaping () -> Void) -> pthread_t? {
    final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
        &thread, nil,
        { arg in
            guard let arg else { return nil }
            // The box is released before the body runs (the body keeps what it
            // captured): a thread that runs for the life of the process (the route
            // watcher's) would otherwise hold a box no pointer leads to, which
            // valgrind reports as lost.
            let body = Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().body
            body()
            return nil
        }, box)
    if rc != 0 {
        Unmanaged<Box>.fromOpaque(box).release()
        return nil
    }
    return thread
}

@inline(__always)
func isCurrentThread(_ thread: pthread_t?) -> Bool {
    guard let thread else { return false }
    return pthread_equal(thread, pthread_self()) != 0
}
