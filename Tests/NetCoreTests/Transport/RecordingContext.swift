@testable import NetCoreBase

/// A transfer's context with no loop behind it (TransferContext.swift): the
/// decisions of `Transfer` run on the test's thread, and what the transfer asks of
/// its loop is recorded instead of done.
final class RecordingContext: TransferContext, @unchecked Sendable {
    let proxies: ProxyEnvironment
    /// What `onLoopThread` answers: true, a decision runs as on the loop thread.
    var onLoopThread: Bool
    /// The calls made, by name ("cancel", "resume", …), in order.
    private(set) var calls: [String] = []

    init(proxies: [String: String] = [:], onLoopThread: Bool = true) {
        self.proxies = ProxyEnvironment(lookup: { proxies[$0] })
        self.onLoopThread = onLoopThread
    }

    func cancel(_ t: Transfer) { calls.append("cancel") }
    func requestCancel(_ t: Transfer) { calls.append("requestCancel") }
    func resume(_ t: Transfer) { calls.append("resume") }
    func relaunchNow(_ t: Transfer) { calls.append("relaunchNow") }
    func resumeBody(_ t: Transfer) -> TransferLoop.BodyResume {
        calls.append("resumeBody")
        return .notStreaming
    }
    func markDone(_ t: Transfer) { calls.append("markDone") }
    func deferToDispatch(_ call: @escaping @Sendable () -> Void) -> Bool {
        calls.append("deferToDispatch")
        return false
    }
    func deferResume(_ waiter: UnsafeRawPointer, resumeAll: @escaping ([UnsafeRawPointer]) -> Void) -> Bool {
        calls.append("deferResume")
        return false
    }
}
