import NetCoreBase

/// A task executor on the client's transfer thread (opt-in).
///
/// By default an `await client.send(...)` resumes on Swift's global concurrent
/// executor: the completion, on the transfer thread, wakes a pool thread, and
/// the task's next `send` wakes the transfer thread again — two thread switches
/// per request. A task that prefers `client.executor` runs on the transfer thread
/// itself: completions resume it in the same loop pass and its next request
/// starts in that pass, with no switch at all (the way SwiftNIO's event loops
/// serve AsyncHTTPClient).
///
///     let total = await withTaskExecutorPreference(client.executor) {
///         await withTaskGroup(of: Int.self) { group in ... client.send(...) ... }
///     }
///     Task(executorPreference: client.executor) { try await client.send(request) }
///
/// - Threads: code of such a task between two awaits runs on the transfer thread
///   and delays every transfer of the client while it runs. Keep it short and
///   never block there (no sleeping, no blocking I/O, no `sendSync`, which is
///   refused there as in any callback). Move heavy work to another executor.
/// - Order: jobs run in the order they were enqueued, one at a time, at the start
///   of each loop pass; priorities are not looked at.
/// - Shutdown: once the client shuts down (or is deallocated), jobs go to Swift's
///   global concurrent executor, so no task is left waiting.
/// - Queue mode (`"callbacks": "queue"`): the executor still runs on the transfer
///   thread, but completions wait for `dispatch()` as always.
extension NetClient {
    /// A task executor that runs jobs on the client's transfer thread, so a task sending one request after another needs no thread switch.
    public final class Executor: TaskExecutor, LoopPassHook, @unchecked Sendable {
        let loop: TransferLoop
        /// Jobs queued for the loop's next pass; guarded by the loop's monitor.
        @exclusivity(unchecked) private var jobs: [UnownedJob] = []
        /// The jobs taken for one pass; the loop thread's only (or, after the loop
        /// stopped, the thread that cleans up).
        @exclusivity(unchecked) private var taken: [UnownedJob] = []

        init(loop: TransferLoop) { self.loop = loop }

        /// Queues `job` for the loop thread, from any thread (the loop thread
        /// included): it runs at the start of the loop's next pass, before new
        /// transfers start (TransferLoop.queueForPass). Once shutdown has begun it
        /// goes to Swift's global executor instead: no task waits on a stopped loop.
        public func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            if !loop.queueForPass(self, { jobs.append(job) }) {
                globalConcurrentExecutor.enqueue(ExecutorJob(job))
            }
        }

        public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
            UnownedTaskExecutor(ordinary: self)
        }

        // LoopPassHook: the loop's side (TransferLoop.swift).

        package var hasWork: Bool { !jobs.isEmpty }

        package func take() { swap(&taken, &jobs) }

        package func runTaken() {
            let me = asUnownedTaskExecutor()
            for job in taken { job.runSynchronously(on: me) }
            taken.clearKeepingBuffer()
        }

        package func loopStopped() {
            // Tasks waiting on the executor continue on Swift's global executor.
            for job in taken { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
            taken.removeAll()
        }
    }

    /// Runs tasks that prefer it on the transfer thread (see `Executor`): one per
    /// client, made on first use.
    public var executor: Executor { loop.passHook { Executor(loop: loop) } }
}
