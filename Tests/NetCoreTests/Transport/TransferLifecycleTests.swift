import Testing

@testable import NetCoreBase

/// The transfer's lifecycle (Transfer+Lifecycle.swift) is a value state machine:
/// the loop reports what happened and carries out what it answers. Every transition
/// is checked here with no client, no loop and no thread.
@Suite struct TransferLifecycleTests {
    typealias Lifecycle = Transfer.Lifecycle

    /// A lifecycle walked to `running(slot: 0)` as the loop does: taken, launched.
    private func running() -> Lifecycle {
        var l = Lifecycle()
        l.taken(cancelClaimed: false)
        l.launched(slot: 0)
        return l
    }

    @Test func aCancelTakesTheStepItsPhaseNames() {
        #expect(Transfer.Phase.queued.onCancel == .takeFromQueue)
        #expect(Transfer.Phase.moving.onCancel == .askBeforeNextStep)
        #expect(Transfer.Phase.running(slot: 0).onCancel == .stopHop)
        #expect(Transfer.Phase.running(slot: 41).onCancel == .stopHop)
        #expect(Transfer.Phase.waiting(.timer).onCancel == .endWait)
        #expect(Transfer.Phase.waiting(.parked).onCancel == .endWait)
        #expect(Transfer.Phase.completed.onCancel == .nothing)
    }

    @Test func phasesCompareByPlaceAndSlot() {
        #expect(Transfer.Phase.running(slot: 1) != .running(slot: 2))
        #expect(Transfer.Phase.waiting(.timer) != .waiting(.parked))
        #expect(Transfer.Phase.waiting(.parked) == .waiting(.parked))
    }

    @Test func aNewTransferIsQueuedWithNoCancelPending() {
        let l = Lifecycle()
        #expect(l.phase == .queued)
        #expect(l.next == .proceed)
    }

    @Test func theWholeWayOfARetriedTransfer() {
        var l = running()
        #expect(l.phase == .running(slot: 0))
        l.moved(to: 3)   // others left the running list
        #expect(l.phase == .running(slot: 3))
        l.moves()   // hop ended
        #expect(l.phase == .moving)
        #expect(l.waits(.timer) == .proceed)   // relaunchAfter
        #expect(l.phase == .waiting(.timer))
        l.moves()   // due
        #expect(l.next == .proceed)
        l.launched(slot: 1)
        l.moves()
        l.completes()
        #expect(l.phase == .completed)
        #expect(l.next == .proceed)
    }

    @Test func aCancelClaimedBeforeTheLoopTookItEndsItBeforeItSends() {
        var l = Lifecycle()
        l.taken(cancelClaimed: true)
        #expect(l.phase == .moving)
        #expect(l.next == .endCancelled)
    }

    @Test func aCancelWhileRunningStopsTheHopAndLeavesNothingPending() {
        var l = running()
        #expect(l.cancel() == .stopHop)
        #expect(l.phase == .running(slot: 0))   // the loop takes it out (moves), then completes it
        #expect(l.next == .proceed)
        l.moves()
        l.completes()
        #expect(l.cancel() == .nothing)
    }

    @Test func aCancelWhileWaitingEndsTheWait() {
        for place in [Transfer.Waiting.timer, .parked] {
            var l = running()
            l.moves()
            #expect(l.waits(place) == .proceed)
            #expect(l.cancel() == .endWait)
            #expect(l.next == .proceed)
        }
    }

    @Test func aCancelWhileMovingIsPendingUntilTheNextSendOrWait() {
        var l = running()
        l.moves()   // deciding after the hop; a hook cancels
        #expect(l.cancel() == .askBeforeNextStep)
        #expect(l.phase == .moving)
        #expect(l.next == .endCancelled)   // before a redirect or a new attempt
        #expect(l.waits(.timer) == .endCancelled)   // before a retry's wait
        #expect(l.phase == .moving)   // it never entered the wait
        #expect(l.waits(.parked) == .endCancelled)
        l.completes()
        #expect(l.phase == .completed)
    }

    @Test func aCancelOfAQueuedTransferTakesItFromTheQueue() {
        var l = Lifecycle()
        #expect(l.cancel() == .takeFromQueue)
        #expect(l.phase == .queued)
        #expect(l.next == .proceed)   // nothing pending: the queue's removal completes it
    }

    @Test func aCompletedTransferStaysCompleted() {
        var l = running()
        l.completes()
        l.moves()
        #expect(l.phase == .completed)
        l.moved(to: 2)
        #expect(l.phase == .completed)
        #expect(l.cancel() == .nothing)
        #expect(l.next == .proceed)
    }
}
