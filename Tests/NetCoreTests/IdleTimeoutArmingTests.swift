import Testing

@testable import NetCoreBase

/// When libcurl's low-speed check (idle_timeout_ms) is armed for a hop
/// (EasyHandle.armedIdleSeconds): only when it could fire before the total timeout.
@Suite struct IdleTimeoutArmingTests {
    @Test func anIdleLimitNotShorterThanTheTotalIsNotArmed() {
        // The defaults: idle 30 s, total 15 s.
        #expect(EasyHandle.armedIdleSeconds(30, hopTimeoutMs: 15_000) == 0)
        // Equal: both would fire at the same moment; the total is named either way.
        #expect(EasyHandle.armedIdleSeconds(2, hopTimeoutMs: 2_000) == 0)
        // 1500 ms rounds up to 2 s, which a 1.8 s total always beats.
        #expect(EasyHandle.armedIdleSeconds(2, hopTimeoutMs: 1_800) == 0)
    }

    @Test func aShorterIdleLimitIsArmed() {
        #expect(EasyHandle.armedIdleSeconds(1, hopTimeoutMs: 30_000) == 1)
        #expect(EasyHandle.armedIdleSeconds(2, hopTimeoutMs: 2_001) == 2)
        // No total timeout: the idle limit is the only one.
        #expect(EasyHandle.armedIdleSeconds(30, hopTimeoutMs: 0) == 30)
    }

    @Test func noIdleLimitStaysOff() {
        #expect(EasyHandle.armedIdleSeconds(0, hopTimeoutMs: 15_000) == 0)
        #expect(EasyHandle.armedIdleSeconds(0, hopTimeoutMs: 0) == 0)
    }
}
