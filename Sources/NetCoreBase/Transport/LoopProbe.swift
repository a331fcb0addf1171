import Synchronization

/// What tests read of a transfer loop and the one switch they set, kept out of the
/// loop's own state: each costs the loop one relaxed atomic operation where it is
/// touched (a handle made; one load a pass), nothing else.
final class LoopProbe: Sendable {
    /// Easy handles the loop has made (tests check the pool's reuse).
    let handlesMade = Atomic<Int>(0)
    /// While set, the pool's size is not re-judged (its one-second window does not
    /// advance), so a burst's handles are kept however long a loaded machine takes
    /// between two bursts.
    let poolFrozen = Atomic<Bool>(false)
}
