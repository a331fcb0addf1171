#if canImport(Glibc)
import Glibc
#endif

/// What a `TimerQueue` holds: an object that keeps its own place in the queue's
/// heap, so that taking it out (a cancelled wait) costs O(log n) rather than a
/// search: cancelling thousands of waiting requests stays linear. An item is in
/// at most one queue at a time; only the queue writes `timerSlot`.
protocol TimerQueueItem: AnyObject {
    /// Index in the queue's heap; -1 when not queued.
    var timerSlot: Int { get set }
}

/// Items due at a time, earliest first: the transfer loop's relaunches after a
/// delay (`TransferAction.relaunchAfter`) and the deadlines of parked transfers. A
/// binary min-heap keyed by deadline, ties broken by the order of scheduling, so
/// equal deadlines come out first in, first out. Pure (the clock is passed in), so
/// it is tested without a loop or a server.
///
/// Threads: not synchronised; the loop thread owns its queue.
struct TimerQueue<Item: TimerQueueItem> {
    private struct Entry {
        let deadline: UInt64
        let order: UInt64
        let item: Item
        func before(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : order < other.order
        }
    }

    private var heap: [Entry] = []
    private var scheduled: UInt64 = 0

    init() {}

    var isEmpty: Bool { heap.isEmpty }
    /// Every item waiting, in no particular order.
    var items: [Item] { heap.map(\.item) }
    var count: Int { heap.count }

    /// The earliest deadline, nil when empty.
    var nextDeadline: UInt64? { heap.first?.deadline }

    /// Adds `item`, due at `deadline` (the same clock as `popDue`'s `now`). An item
    /// already queued moves to the new deadline.
    mutating func schedule(_ item: Item, at deadline: UInt64) {
        remove(item)
        heap.append(Entry(deadline: deadline, order: scheduled, item: item))
        scheduled &+= 1
        item.timerSlot = heap.count - 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the items due at `now` (deadline <= now), earliest first.
    mutating func popDue(now: UInt64) -> [Item] {
        var due: [Item] = []
        while let first = heap.first, first.deadline <= now {
            due.append(first.item)
            take(at: 0)
        }
        return due
    }

    /// Takes `item` out; false when it was not queued here. O(log n).
    @discardableResult
    mutating func remove(_ item: Item) -> Bool {
        let i = item.timerSlot
        guard i >= 0, i < heap.count, heap[i].item === item else { return false }
        take(at: i)
        return true
    }

    /// Empties the queue; returns every item, earliest first.
    mutating func removeAll() -> [Item] {
        var all: [Item] = []
        while let first = heap.first {
            all.append(first.item)
            take(at: 0)
        }
        return all
    }

    /// Milliseconds from `now` until the next deadline, clamped to `0...cap`; `cap`
    /// when empty. The loop passes it to curl_multi_poll.
    func pollTimeoutMs(now: UInt64, cap: Int32) -> Int32 {
        guard let d = nextDeadline else { return cap }
        if d <= now { return 0 }
        let ms = (d - now + 999_999) / 1_000_000
        return ms >= UInt64(cap) ? cap : Int32(ms)
    }

    /// Removes the entry at `index`: the last entry takes its place and moves up
    /// or down to where it belongs.
    private mutating func take(at index: Int) {
        heap[index].item.timerSlot = -1
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        last.item.timerSlot = index
        siftDown(index)
        siftUp(index)
    }

    private mutating func swap(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        heap[a].item.timerSlot = a
        heap[b].item.timerSlot = b
    }

    private mutating func siftUp(_ index: Int) {
        var i = index
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].before(heap[parent]) else { return }
            swap(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var i = index
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && heap[l].before(heap[m]) { m = l }
            if r < heap.count && heap[r].before(heap[m]) { m = r }
            if m == i { return }
            swap(i, m)
            i = m
        }
    }
}

/// `ms` milliseconds in nanoseconds, saturating at UInt64.max (a wait too long to
/// end, never one that wraps round to a short one); 0 for a negative `ms`.
@inline(__always)
func nanos(ms: Int64) -> UInt64 {
    let (ns, overflow) = UInt64(clamping: ms).multipliedReportingOverflow(by: 1_000_000)
    return overflow ? .max : ns
}

/// The monotonic clock `ms` milliseconds from now, saturating (see `nanos(ms:)`):
/// when a timer is due. A retry handler may ask for any delay up to INT64_MAX.
@inline(__always)
func monotonicNanos(afterMs ms: Int64) -> UInt64 {
    let (due, overflow) = monotonicNanos().addingReportingOverflow(nanos(ms: ms))
    return overflow ? .max : due
}

/// The monotonic clock of deadlines, in nanoseconds (CLOCK_MONOTONIC).
@inline(__always)
/// Milliseconds to wait from `now` until `due` (monotonicNanos) for
/// curl_multi_poll, rounded up; 1000 when `due` is 0 (nothing due), 0 when past.
func pollTimeoutMs(until due: UInt64, now: UInt64) -> Int32 {
    if due == 0 { return 1000 }
    if due <= now { return 0 }
    return Int32(clamping: (due - now + 999_999) / 1_000_000)
}

func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

extension Transfer: TimerQueueItem {}
