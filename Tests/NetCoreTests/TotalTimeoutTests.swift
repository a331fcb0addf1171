import Testing
@testable import NetCore

/// Transfer.remainingMs: what a later redirect hop gets of timeout_ms (pure).
@Suite struct TotalTimeoutTests {
    @Test func aLaterHopGetsWhatRemains() {
        #expect(Transfer.remainingMs(total: 1000, startedAt: 5000, now: 5000) == 1000)
        #expect(Transfer.remainingMs(total: 1000, startedAt: 5000, now: 5900) == 100)
        #expect(Transfer.remainingMs(total: 1000, startedAt: 5000, now: 5999) == 1)
    }

    @Test func nothingRemainsOnceTheTotalHasPassed() {
        #expect(Transfer.remainingMs(total: 1000, startedAt: 5000, now: 6000) == nil)
        #expect(Transfer.remainingMs(total: 1000, startedAt: 5000, now: 9000) == nil)
    }

    @Test func aClockThatWentBackGivesTheWholeTotal() {
        #expect(Transfer.remainingMs(total: 1000, startedAt: 5000, now: 4000) == 1000)
    }
}
