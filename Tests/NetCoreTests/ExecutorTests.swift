import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

#if canImport(Glibc)
import Glibc
#endif

/// `NetClient.executor`: tasks that prefer it run on the client's transfer thread,
/// against the real loopback server. What a user relies on: where the code runs,
/// that sends, cancellation and shutdown behave as on the global executor, that
/// nothing is left waiting when the client goes, and that the client may even be
/// released from a task running on its own executor.
@Suite struct ExecutorTests {
    let server = MockServer.shared

    func client() throws -> NetClient {
        try NetClient(configuration: Configuration(baseURL: server.baseURL, envelope: EnvelopeSchema()).validated())
    }

    @Test func codeOfATaskPreferringTheExecutorRunsOnTheTransferThread() async throws {
        let c = try client()
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/env/code/ok")
        let (before, after, status) = try await withTaskExecutorPreference(c.executor) {
            let before = c.loop.isCallbackThread
            let r = try await c.send(request)
            return (before, c.loop.isCallbackThread, r.status)
        }
        #expect(before, "the body did not start on the transfer thread")
        #expect(after, "the task did not resume on the transfer thread")
        #expect(status == 200)
        // Without the preference, the same code is on Swift's global executor.
        let elsewhere = try await { () async throws -> Bool in
            _ = try await c.send(request)
            return c.loop.isCallbackThread
        }()
        #expect(!elsewhere)
    }

    @Test func manyChildTasksOnTheExecutorEachGetTheirOwnResult() async throws {
        let c = try client()
        defer { c.shutdown() }
        let requests = try (0..<200).map { try Request(method: "GET", target: "/echo?i=\($0)") }
        let results = await withTaskExecutorPreference(c.executor) {
            await withTaskGroup(of: (Int, String?).self) { group in
                for i in 0..<200 {
                    group.addTask {
                        do throws(NetError) {
                            let r = try await c.send(requests[i])
                            return (i, r.body.text)
                        } catch {
                            return (i, nil)
                        }
                    }
                }
                var out: [(Int, String?)] = []
                for await r in group { out.append(r) }
                return out
            }
        }
        #expect(results.count == 200)
        for (i, text) in results {
            #expect(text?.contains("?i=\(i)\"") == true, "request \(i): \(text ?? "no body")")
        }
    }

    @Test func errorsAndSyncRefusalOnTheExecutorAreTheUsualOnes() async throws {
        let c = try client()
        defer { c.shutdown() }
        let fail = try Request(method: "GET", target: "/env/code/fail")
        let ok = try Request(method: "GET", target: "/env/code/ok")
        let (error, refusal) = await withTaskExecutorPreference(c.executor) {
            () async -> (NetError?, NetClient.SyncRefusal?) in
            var thrown: NetError?
            do throws(NetError) {
                _ = try await c.send(fail)
            } catch {
                thrown = error
            }
            // A blocking send here would wait for the thread it blocks: refused.
            var refusal: NetClient.SyncRefusal?
            if case .failure(let r) = c.sendSync(ok) { refusal = r }
            return (thrown, refusal)
        }
        #expect(error?.domain == .api)
        #expect(error?.response?.status == 200)
        #expect(refusal == .insideCallback)
    }

    // The slow route answers after a minute: long enough that only a working cancel
    // or shutdown ends these tests in time, even when a loaded test run (ThreadSanitizer)
    // keeps the cooperative pool busy for seconds.
    @Test func cancellingATaskOnTheExecutorCancelsItsTransfer() async throws {
        let c = try client()
        defer { c.shutdown() }
        let request = try Request(method: "GET", target: "/slow?ms=60000")
        let task = Task(executorPreference: c.executor) { try await c.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        guard case .failure(NetError.cancelled) = result else {
            Issue.record("expected NetError.cancelled, got \(result)")
            return
        }
    }

    /// Shutdown with tasks waiting on the executor: each ends with `.shutdown`, and
    /// what they do afterwards runs on Swift's global executor (nothing hangs).
    @Test func shutdownEndsWaitingTasksAndTheyCarryOnElsewhere() async throws {
        let c = try client()
        let request = try Request(method: "GET", target: "/slow?ms=60000")
        let tasks = (0..<5).map { _ in
            Task(executorPreference: c.executor) { () async -> (String, Bool) in
                var outcome = "success"
                do throws(NetError) {
                    _ = try await c.send(request)
                } catch {
                    outcome = NetError.shutdown ~= error ? "shutdown" : "\(error)"
                }
                await Task.yield()   // after shutdown: enqueued on the global executor
                return (outcome, c.loop.isCallbackThread)
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(c.shutdown())
        for t in tasks {
            let (outcome, onLoop) = await t.value
            #expect(outcome == "shutdown")
            #expect(!onLoop)
        }
        // A task started on the executor after shutdown still runs.
        let late = await Task(executorPreference: c.executor) { () async -> Int in
            await Task.yield()
            return 42
        }.value
        #expect(late == 42)
    }

    /// The last reference to the client goes inside a task on its own executor:
    /// its deinit runs on the transfer thread, which cannot wait for itself. The
    /// thread stops on its own and frees libcurl; nothing hangs.
    @Test func releasingTheClientFromItsOwnExecutorStopsItsThread() async throws {
        final class Holder: @unchecked Sendable { var client: NetClient? }
        let holder = Holder()
        holder.client = try client()
        guard let executor = holder.client?.executor else { return }
        let loop = executor.loop
        let request = try Request(method: "GET", target: "/env/code/ok")
        let (status, releasedOnLoop) = await Task(executorPreference: executor) { () async -> (Int32, Bool) in
            // The task takes the only reference; it ends with the task's local,
            // on the transfer thread.
            guard let c = holder.client else { return (-1, false) }
            holder.client = nil
            let r = try? await c.send(request)
            return (r?.status ?? -1, c.loop.isCallbackThread)
        }.value
        #expect(status == 200)
        #expect(releasedOnLoop)
        for _ in 0..<300 where !loop.isStopped {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(loop.isStopped, "the transfer thread did not stop")
        // The executor outlives its client: jobs go to the global executor.
        #expect(
            await Task(executorPreference: executor) { () async -> Int in
                await Task.yield()
                return 7
            }.value == 7)
    }
}
