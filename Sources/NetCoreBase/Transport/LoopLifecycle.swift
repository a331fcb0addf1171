import Synchronization

/// Where a transfer loop is in its life. Written under the loop's monitor, read
/// anywhere (an atomic, so the loop's hot path reads it without the lock).
///
///     running ──shutdown()────► stopping ─────────► stopped
///        └─────stopDetached()─► stoppingDetached ──► stopped
enum LoopLifecycle: UInt8, AtomicRepresentable, Sendable {
    /// Accepting work.
    case running
    /// shutdown() was asked: the loop completes every transfer with
    /// `NetError.shutdown` and exits; shutdown() joins it and frees libcurl.
    case stopping
    /// stopDetached() was asked (the owner went away inside one of the loop's own
    /// callbacks): as `stopping`, but the loop thread frees everything itself.
    case stoppingDetached
    /// The loop thread is gone and the multi handle freed.
    case stopped

    var acceptsWork: Bool { self == .running }
}
