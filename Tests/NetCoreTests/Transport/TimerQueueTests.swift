import Testing

@testable import NetCore
@testable import NetCoreBase

/// The loop's timer queue, with a made-up clock (no loop, no server).
@Suite struct TimerQueueTests {
    /// An item that keeps its place in the queue, as a Transfer does.
    final class Item: TimerQueueItem, ParkedListItem, CustomStringConvertible {
        let name: String
        var timerSlot = -1
        var parkedSlot = -1
        init(_ name: String) { self.name = name }
        var description: String { name }
    }

    func names(_ items: [Item]) -> [String] { items.map(\.name) }

    @Test func popsDueItemsEarliestFirstAndTiesInOrder() {
        var q = TimerQueue<Item>()
        q.schedule(Item("c"), at: 30)
        q.schedule(Item("a"), at: 10)
        q.schedule(Item("b1"), at: 20)
        q.schedule(Item("b2"), at: 20)
        q.schedule(Item("d"), at: 40)
        #expect(q.nextDeadline == 10)
        #expect(q.popDue(now: 5).isEmpty)
        let due = q.popDue(now: 20)
        #expect(names(due) == ["a", "b1", "b2"])
        #expect(due.allSatisfy { $0.timerSlot == -1 })
        #expect(q.count == 2)
        #expect(q.nextDeadline == 30)
        #expect(names(q.popDue(now: 100)) == ["c", "d"])
        #expect(q.isEmpty)
        #expect(q.nextDeadline == nil)
    }

    @Test func manyItemsComeOutSorted() {
        var q = TimerQueue<Item>()
        var lcg: UInt64 = 12345
        var deadlines: [String: UInt64] = [:]
        for i in 0..<1000 {
            lcg = lcg &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let d = lcg >> 54
            deadlines["\(i)"] = d
            q.schedule(Item("\(i)"), at: d)
        }
        let out = q.popDue(now: .max)
        #expect(out.count == 1000)
        let outDeadlines = out.map { deadlines[$0.name] ?? 0 }
        #expect(outDeadlines == outDeadlines.sorted())
        // Equal deadlines keep the order they were scheduled in.
        for (a, b) in zip(out, out.dropFirst()) where deadlines[a.name] == deadlines[b.name] {
            #expect(Int(a.name) ?? 0 < Int(b.name) ?? 0)
        }
    }

    /// Removing any item, from anywhere in the heap, leaves the others in deadline
    /// order: checked against a sorted model over random schedules and removals.
    @Test func removeTakesOutOneItemAndKeepsTheOrder() {
        var lcg: UInt64 = 99
        func next(_ bound: UInt64) -> UInt64 {
            lcg = lcg &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (lcg >> 33) % bound
        }
        for round in 0..<50 {
            var q = TimerQueue<Item>()
            var model: [(deadline: UInt64, order: Int, item: Item)] = []
            for i in 0..<(10 + round * 7) {
                let item = Item("\(i)")
                let d = next(40)
                q.schedule(item, at: d)
                model.append((d, i, item))
            }
            for _ in 0..<(model.count / 2) {
                let victim = model.remove(at: Int(next(UInt64(model.count)))).item
                let removed = q.remove(victim)
                #expect(removed)
                #expect(victim.timerSlot == -1)
                let again = q.remove(victim)
                #expect(!again)   // not there any more: nothing happens
            }
            model.sort { $0.deadline != $1.deadline ? $0.deadline < $1.deadline : $0.order < $1.order }
            #expect(names(q.popDue(now: .max)) == model.map(\.item.name), "round \(round)")
        }
    }

    @Test func schedulingAnItemAgainMovesIt() {
        var q = TimerQueue<Item>()
        let a = Item("a"), b = Item("b")
        q.schedule(a, at: 10)
        q.schedule(b, at: 20)
        q.schedule(a, at: 30)
        #expect(q.count == 2)
        #expect(names(q.popDue(now: .max)) == ["b", "a"])
    }

    @Test func removeAllEmptiesEarliestFirst() {
        var q = TimerQueue<Item>()
        let two = Item("2")
        q.schedule(two, at: 2)
        q.schedule(Item("1"), at: 1)
        #expect(names(q.removeAll()) == ["1", "2"])
        #expect(q.isEmpty)
        #expect(two.timerSlot == -1)
    }

    @Test func pollTimeoutFollowsTheNextDeadline() {
        var q = TimerQueue<Item>()
        #expect(q.pollTimeoutMs(now: 0, cap: 1000) == 1000)
        q.schedule(Item("1"), at: 250_000_000)   // 250 ms
        #expect(q.pollTimeoutMs(now: 0, cap: 1000) == 250)
        #expect(q.pollTimeoutMs(now: 249_500_000, cap: 1000) == 1)   // rounds up: never spins early
        #expect(q.pollTimeoutMs(now: 250_000_000, cap: 1000) == 0)
        #expect(q.pollTimeoutMs(now: 0, cap: 100) == 100)
        q.schedule(Item("2"), at: 5_000_000_000_000)
        #expect(q.pollTimeoutMs(now: 300_000_000, cap: 1000) == 0)
    }

    @Test func anItemOfAnotherQueueIsNotRemoved() {
        var a = TimerQueue<Item>(), b = TimerQueue<Item>()
        let x = Item("x"), y = Item("y")
        a.schedule(x, at: 1)   // slot 0 in a
        b.schedule(y, at: 1)   // slot 0 in b
        let removed = b.remove(x)
        #expect(!removed)
        #expect(names(b.popDue(now: .max)) == ["y"])
        #expect(names(a.popDue(now: .max)) == ["x"])
    }

    /// The loop's parked list: O(1) removal by each item's own index, from anywhere.
    @Test func parkedListRemovesFromAnywhere() {
        var list = ParkedList<Item>()
        let items = (0..<10).map { Item("\($0)") }
        for i in items { list.append(i) }
        list.append(items[3])   // already parked: nothing happens
        #expect(list.all.count == 10)
        for i in [0, 9, 4, 4] { list.remove(items[i]) }   // first, last, middle, twice
        #expect(Set(names(list.all)) == ["1", "2", "3", "5", "6", "7", "8"])
        #expect(list.all.enumerated().allSatisfy { $0.element.parkedSlot == $0.offset })
        #expect(items[4].parkedSlot == -1)
        let all = list.removeAll()
        #expect(all.count == 7 && list.isEmpty && all.allSatisfy { $0.parkedSlot == -1 })
    }
}
