import Glibc
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// EasyHandlePool's sizing, with the clock in the test's hands.
@Suite struct EasyHandlePoolTests {
    func handles(_ n: Int) -> [EasyHandle] { (0..<n).compactMap { _ in EasyHandle() } }

    /// Returns `n` handles, `inUse` counting down as each finishes.
    func finish(_ pool: inout EasyHandlePool, _ hs: [EasyHandle], from inUse: Int) {
        for (i, h) in hs.enumerated() { pool.put(h, inUse: inUse - i - 1) }
    }

    /// A pool at time 0 that saw `peak` handles in use, then got `returned` of them back.
    func pool(peak: Int, returned: Int) -> EasyHandlePool {
        var pool = EasyHandlePool(now: 0)
        for n in 1...peak { pool.noteInUse(n) }
        finish(&pool, handles(returned), from: peak)
        return pool
    }

    @Test func keepsEveryHandleOfASteadyLoadWhateverTheOrderOfCompletions() {
        // 200 of 256 finish in one pass: all are kept (the old rule freed 72 of them).
        var pool = pool(peak: 256, returned: 200)
        #expect(pool.count == 200)
        pool.tick(inUse: 56, now: 1_000)
        #expect(pool.count == 200)
    }

    @Test func neverHoldsMoreThanThePeak() {
        var pool = pool(peak: 100, returned: 100)
        #expect(pool.count == 100)
        pool.put(EasyHandle()!, inUse: 0)   // a 101st handle has no place
        #expect(pool.count == 100)
    }

    @Test func shrinksByHalfEachIdleSecondDownToTheFloor() {
        var pool = pool(peak: 1_000, returned: 1_000)
        #expect(pool.count == 1_000)
        pool.tick(inUse: 0, now: 999)   // not a second yet
        #expect(pool.count == 1_000)
        pool.tick(inUse: 0, now: 1_000)   // this window's peak was 1,000
        #expect(pool.count == 1_000)
        pool.tick(inUse: 0, now: 2_000)
        #expect(pool.count == 500)
        pool.tick(inUse: 0, now: 3_000)
        #expect(pool.count == 250)
        for s in 4...10 { pool.tick(inUse: 0, now: Int64(s) * 1_000) }
        #expect(pool.count == EasyHandlePool.floor)
    }

    @Test func handlesInUseCountAgainstWhatIsKept() {
        var pool = pool(peak: 300, returned: 200)   // 100 still in use
        pool.tick(inUse: 100, now: 1_000)
        pool.tick(inUse: 100, now: 2_000)   // keep 150: 100 in use + 50 idle
        #expect(pool.count == 50)
    }
}
