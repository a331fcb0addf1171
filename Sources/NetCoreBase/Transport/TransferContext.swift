/// What a transfer knows of the loop that runs it: its one back-reference
/// (`Transfer.context`). Two kinds of members:
///
/// - what the transfer's own decisions read (`Transfer.beginAttempt`,
///   `Transfer.next(after:)`, the hop's options): the client's proxies and whether
///   the caller is on the driving thread;
/// - what code holding only a transfer asks of its loop (a task handle's cancel, a
///   gate's resume, a body resumed, a waiter handed back): each from any thread,
///   each only queues work and wakes the loop (`TransferLoop+Calls.swift`,
///   `TransferLoop+Cancel.swift` say exactly what).
///
/// `TransferLoop` is the one production conformer. Tests give a transfer a context
/// of their own, so the decisions are tested with no client and no thread
/// (Tests/NetCoreTests/Transport/TransferDecisionTests.swift). Nothing here names a
/// feature; a feature that needs more of its client holds the client's loop itself.
///
/// Cost: one witness-table call where a direct call was; no allocation.
package protocol TransferContext: AnyObject, Sendable {
    /// The proxies of the client's environment, read when the client was made
    /// (each hop's options; the advice of a transport error names the proxy).
    var proxies: ProxyEnvironment { get }
    /// True on the thread that drives this context's transfers (the loop thread):
    /// the user's code called from there is already marked as a callback.
    var onLoopThread: Bool { get }

    /// Cancels `t` and, from another thread in loop mode, returns once its
    /// completion has run (`Transfer.cancel()`).
    func cancel(_ t: Transfer)
    /// Asks for `t` to be cancelled and returns at once; never runs the completion
    /// on the calling thread. Idempotent.
    func requestCancel(_ t: Transfer)
    /// Relaunches `t`, parked by `TransferAction.park` (a gate held it).
    func resume(_ t: Transfer)
    /// Sends now `t`, waiting out a retry's delay.
    func relaunchNow(_ t: Transfer)
    /// Lets the body of `t`, paused by its body callback, continue.
    func resumeBody(_ t: Transfer) -> TransferLoop.BodyResume
    /// Marks `t` completed and wakes the threads waiting for it.
    func markDone(_ t: Transfer)
    /// Queue mode, on the driving thread: runs `call` at the next dispatch and
    /// answers true; otherwise false, and the caller runs it now.
    func deferToDispatch(_ call: @escaping @Sendable () -> Void) -> Bool
    /// An async waiter completed on the driving thread, resumed with the others of
    /// this pass by one `resumeAll`; false when not on that thread.
    func deferResume(_ waiter: UnsafeRawPointer, resumeAll: @escaping ([UnsafeRawPointer]) -> Void) -> Bool
}

extension TransferLoop: TransferContext {}
