/// Work another module runs on a loop's thread at the start of each pass: module
/// NetCore's executor (NetClient.Executor) queues the jobs of tasks that prefer the
/// client's executor through it, so that this module (and the C library built on
/// it) names no Swift concurrency type. Installed by `TransferLoop.passHook(_:)`;
/// the loop holds it until it stops.
package protocol LoopPassHook: AnyObject {
    /// Whether work waits for the next pass. The loop's monitor is held.
    var hasWork: Bool { get }
    /// Takes the work waiting now, for `runTaken()` or `loopStopped()`. The loop's
    /// monitor is held; on the loop thread, or after it ended.
    func take()
    /// Runs, in order, what `take()` took. On the loop thread, monitor not held.
    func runTaken()
    /// The loop has stopped (the hook is dropped): hands on what `take()` took
    /// last, which must not wait for the loop. Once; any thread, monitor not held.
    func loopStopped()
}
