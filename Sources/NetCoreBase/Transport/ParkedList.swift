/// The transfers parked by `TransferAction.park` (waiting for a resume: the
/// network, a token refresh), in no particular order. Each keeps its index
/// (`Transfer.parkedSlot`), so taking one out costs O(1): cancelling thousands of
/// waiting requests, or the network's return that resumes them all, stays linear.
///
/// Threads: not synchronised; the loop thread owns its list.
struct ParkedList<Item: ParkedListItem> {
    /// Every parked item.
    private(set) var all: [Item] = []

    var isEmpty: Bool { all.isEmpty }

    /// Parks `t` (nothing if it is already parked).
    mutating func append(_ t: Item) {
        guard t.parkedSlot < 0 else { return }
        t.parkedSlot = all.count
        all.append(t)
    }

    /// Takes `t` out; the last transfer takes its place. Nothing if it is not here.
    mutating func remove(_ t: Item) {
        let i = t.parkedSlot
        guard i >= 0, i < all.count, all[i] === t else { return }
        t.parkedSlot = -1
        let last = all.removeLast()
        guard i < all.count else { return }
        all[i] = last
        last.parkedSlot = i
    }

    /// Empties the list; returns what it held.
    mutating func removeAll() -> [Item] {
        let out = all
        for t in out { t.parkedSlot = -1 }
        all = []
        return out
    }
}

/// What a `ParkedList` holds: an object that keeps its index in the list (only the
/// list writes it; -1 when not in one). An item is in at most one list at a time.
protocol ParkedListItem: AnyObject {
    var parkedSlot: Int { get set }
}

extension Transfer: ParkedListItem {}
