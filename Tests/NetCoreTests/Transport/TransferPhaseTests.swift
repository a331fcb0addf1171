import Testing

@testable import NetCoreBase

/// What a cancel does in each phase of a transfer (Transfer.Phase.onCancel): the
/// loop carries the step out, but the choice is a pure function, checked here with
/// no client and no thread.
@Suite struct TransferPhaseTests {
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
}
