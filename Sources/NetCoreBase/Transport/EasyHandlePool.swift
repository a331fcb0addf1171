#if canImport(Glibc)
import Glibc
#endif

/// The idle easy handles of one transfer loop (loop thread only).
///
/// Sized by the load: the pool keeps enough handles for the busiest moment of the
/// last second or two, so a steady N in flight never creates or frees a handle,
/// whatever the order completions come in; when the load falls, the number kept
/// halves each second down to `floor`.
///
/// Why: a handle costs ~7 KB and creating one costs calloc + memset + libcurl's
/// set-up, a sizeable part of a request when it happens for most of them (the
/// figures of this list: bench/RESULTS.md, "Figures that justified code choices").
/// - A fixed cap of 64 made c=256 create and free handles on many requests.
/// - "Idle no more than in use" still did at c=256: when more than half the
///   transfers finish in one pass, the later ones found the idle count above the
///   active count and freed their handles, and the next pass made new ones.
/// - Keeping every handle forever would hold ~70 MB after a burst of 10,000.
struct EasyHandlePool {
    /// Handles kept in any case (the old fixed cap).
    static let floor = 64
    /// How often the kept number is re-judged, in milliseconds.
    static let tickMs: Int64 = 1_000

    private var idle: [EasyHandle] = []
    /// Most handles to keep in existence (idle + in use): the in-use peak of the
    /// current window, or half the previous figure, whichever is larger.
    private(set) var keep = EasyHandlePool.floor
    /// The most handles in use at once since the last tick.
    private var windowPeak = 0
    private var lastTick: Int64

    init(now: Int64 = EasyHandlePool.nowMs()) { lastTick = now }

    var count: Int { idle.count }

    /// An idle handle, or nil when none is left (the caller makes one).
    mutating func take() -> EasyHandle? { idle.popLast() }

    /// Records that `inUse` handles are in use now (call after taking one). True
    /// when `keep` grew.
    @discardableResult
    mutating func noteInUse(_ inUse: Int) -> Bool {
        if inUse > windowPeak { windowPeak = inUse }
        guard inUse > keep else { return false }
        keep = inUse
        return true
    }

    /// Takes back `easy` (already parked) from a finished transfer, `inUse` handles
    /// being still in use; frees it when the pool already holds enough.
    mutating func put(_ easy: EasyHandle, inUse: Int) {
        if idle.count + inUse < keep { idle.append(easy) }
    }

    /// Once a second: the number kept becomes the window's peak or half the old
    /// number (never below `floor`), and idle handles beyond it are freed. A compare
    /// otherwise; called once per loop pass with `nowMs()` (tests pass their own time).
    /// True when `keep` changed.
    @discardableResult
    mutating func tick(inUse: Int, now: Int64) -> Bool {
        guard now - lastTick >= EasyHandlePool.tickMs else { return false }
        lastTick = now
        let old = keep
        keep = max(EasyHandlePool.floor, windowPeak, inUse, keep / 2)
        windowPeak = inUse
        let extra = idle.count + inUse - keep
        if extra > 0 { idle.removeLast(min(extra, idle.count)) }
        return keep != old
    }

    mutating func removeAll() { idle.removeAll() }

    /// Milliseconds of CLOCK_MONOTONIC_COARSE (a few ns: no clock source read).
    static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
        return Int64(ts.tv_sec) &* 1_000 &+ Int64(ts.tv_nsec / 1_000_000)
    }
}
