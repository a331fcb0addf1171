/// Where a transfer the loop runs is, and what a cancel does to it, as a value
/// state machine: the loop tells `Lifecycle` what happened (taken, launched, hop
/// ended, waits, completes, cancelled) through its `mutating` functions, and each
/// answers with what the loop must do (`Next`, `CancelStep`), which the loop
/// carries out (TransferLoop.swift, TransferLoop+Cancel.swift). The machine holds
/// no reference and calls nothing, so every transition is tested with no client
/// and no thread (TransferLifecycleTests).
///
///     queued ──taken──► moving ──launched──► running(slot) ──hop ended──► moving
///                        │ ▲                                                │
///                        │ └───── due / resumed ──── waiting(timer|parked) ◄┘ waits
///                        └──── completes ────► completed
///
/// `moving`: the loop is taking it from one state to the next (starting it,
/// beginning an attempt, deciding after a hop) and hooks run meanwhile; it is in
/// no list, so a cancel from one of those hooks cannot take it out of one: the
/// machine keeps the cancel pending (`cancelPending`) and the next step that would
/// send or wait answers `.endCancelled` instead. A transfer the loop never runs (a
/// synchronous send, a caller of a shared transfer) stays `queued`.
///
/// Threads: the loop thread only. What other threads read — `Transfer.done` and
/// `Transfer.cancelRequested`, the claim that makes a cancel complete a transfer
/// once — stays apart, under the loop's monitor.
extension Transfer {
    struct Lifecycle: Equatable {
        private(set) var phase: Phase = .queued
        /// A cancel arrived while no list held the transfer (taken from the queue
        /// with a cancel claimed, or cancelled while `moving`): acted on before it
        /// sends or waits again.
        private(set) var cancelPending = false

        /// What the loop does at a step that would send or wait.
        enum Next: Equatable {
            case proceed
            /// Complete it as cancelled instead (a cancel is pending).
            case endCancelled
        }

        /// The loop takes the transfer from its queue (`queued` → `moving`);
        /// `cancelClaimed`: a cancel claimed it before the loop took it.
        mutating func taken(cancelClaimed: Bool) {
            phase = .moving
            if cancelClaimed { cancelPending = true }
        }

        /// It leaves the multi handle or its wait (`running`/`waiting` → `moving`),
        /// or the loop begins moving it on.
        mutating func moves() {
            if phase != .completed { phase = .moving }
        }

        /// Before it sends (an attempt, a redirect) or waits: whether it may.
        var next: Next { cancelPending ? .endCancelled : .proceed }

        /// Its hop is on the transport, at `slot` of the loop's running list.
        mutating func launched(slot: Int) {
            phase = .running(slot: slot)
        }

        /// Another transfer left the running list: it now sits at `slot`.
        mutating func moved(to slot: Int) {
            if case .running = phase { phase = .running(slot: slot) }
        }

        /// It waits between attempts (`moving` → `waiting(place)`), unless a cancel
        /// is pending: then it stays `moving` and the loop completes it as cancelled.
        mutating func waits(_ place: Waiting) -> Next {
            if cancelPending { return .endCancelled }
            phase = .waiting(place)
            return .proceed
        }

        /// Its single completion begins: any phase → `completed`, for good.
        mutating func completes() {
            phase = .completed
        }

        /// A cancel reaches it on the loop thread: the step the loop carries out.
        /// In `moving` the cancel stays pending (`next` answers `.endCancelled`).
        mutating func cancel() -> CancelStep {
            let step = phase.onCancel
            if step == .askBeforeNextStep { cancelPending = true }
            return step
        }
    }

    /// Where a transfer the loop runs is, as the loop thread sees it (`Lifecycle`).
    /// The loop's list, timer queue and parked list hold exactly the transfers
    /// whose phase names them.
    enum Phase: Equatable {
        case queued
        case moving
        /// In the multi handle, at this index of the loop's list.
        case running(slot: Int)
        case waiting(Waiting)
        case completed

        /// What a cancel does to a transfer in this phase (`Lifecycle.cancel()`
        /// takes the step; a sweep reads it first, to claim the transfer).
        var onCancel: CancelStep {
            switch self {
            case .running: return .stopHop
            case .waiting: return .endWait
            case .moving: return .askBeforeNextStep
            case .queued: return .takeFromQueue
            case .completed: return .nothing
            }
        }
    }

    /// Where a transfer between attempts waits: the timer queue, or parked.
    enum Waiting: Equatable {
        case timer
        case parked
    }

    /// A cancel's step for each phase, carried out by the loop.
    enum CancelStep: Equatable {
        /// Take it out of the multi handle and complete it as cancelled.
        case stopHop
        /// Take it out of the timer queue or parked list and complete it as cancelled.
        case endWait
        /// Nothing now: the cancel is pending, and it ends as cancelled before it
        /// sends or waits again.
        case askBeforeNextStep
        /// Not taken by the loop yet: take it out of the queue and complete it.
        case takeFromQueue
        /// Completing or completed: its result stands.
        case nothing
    }

    /// Its index in the loop's list while `running`, else -1.
    var runningSlot: Int {
        if case .running(let slot) = lifecycle.phase { return slot }
        return -1
    }
}
