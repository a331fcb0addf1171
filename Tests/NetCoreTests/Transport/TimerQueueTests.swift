import Testing

@testable import NetCore
@testable import NetCoreBase

/// The loop's timer queue, with a made-up clock (no loop, no server).
@Suite struct TimerQueueTests {
    @Test func popsDueItemsEarliestFirstAndTiesInOrder() {
        var q = TimerQueue<String>()
        q.schedule("c", at: 30)
        q.schedule("a", at: 10)
        q.schedule("b1", at: 20)
        q.schedule("b2", at: 20)
        q.schedule("d", at: 40)
        #expect(q.nextDeadline == 10)
        #expect(q.popDue(now: 5).isEmpty)
        #expect(q.popDue(now: 20) == ["a", "b1", "b2"])
        #expect(q.count == 2)
        #expect(q.nextDeadline == 30)
        #expect(q.popDue(now: 100) == ["c", "d"])
        #expect(q.isEmpty)
        #expect(q.nextDeadline == nil)
    }

    @Test func manyItemsComeOutSorted() {
        var q = TimerQueue<Int>()
        var lcg: UInt64 = 12345
        var deadlines: [UInt64] = []
        for i in 0..<1000 {
            lcg = lcg &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let d = lcg >> 54
            deadlines.append(d)
            q.schedule(i, at: d)
        }
        let out = q.popDue(now: .max)
        #expect(out.count == 1000)
        let outDeadlines = out.map { deadlines[$0] }
        #expect(outDeadlines == outDeadlines.sorted())
        // Equal deadlines keep the order they were scheduled in.
        for (a, b) in zip(out, out.dropFirst()) where deadlines[a] == deadlines[b] { #expect(a < b) }
    }

    @Test func removeTakesOutOnlyTheMatchesAndKeepsTheOrder() {
        var q = TimerQueue<Int>()
        for i in 0..<20 { q.schedule(i, at: UInt64(100 - i)) }
        #expect(q.remove { $0 % 2 == 0 }.sorted() == Array(stride(from: 0, to: 20, by: 2)))
        #expect(q.remove { $0 == 1000 }.isEmpty)
        #expect(q.popDue(now: .max) == Array(stride(from: 19, through: 1, by: -2)))
    }

    @Test func removeAllEmptiesEarliestFirst() {
        var q = TimerQueue<Int>()
        q.schedule(2, at: 2)
        q.schedule(1, at: 1)
        #expect(q.removeAll() == [1, 2])
        #expect(q.isEmpty)
    }

    @Test func pollTimeoutFollowsTheNextDeadline() {
        var q = TimerQueue<Int>()
        #expect(q.pollTimeoutMs(now: 0, cap: 1000) == 1000)
        q.schedule(1, at: 250_000_000)   // 250 ms
        #expect(q.pollTimeoutMs(now: 0, cap: 1000) == 250)
        #expect(q.pollTimeoutMs(now: 249_500_000, cap: 1000) == 1)   // rounds up: never spins early
        #expect(q.pollTimeoutMs(now: 250_000_000, cap: 1000) == 0)
        #expect(q.pollTimeoutMs(now: 0, cap: 100) == 100)
        q.schedule(2, at: 5_000_000_000_000)
        #expect(q.pollTimeoutMs(now: 300_000_000, cap: 1000) == 0)
    }
}
