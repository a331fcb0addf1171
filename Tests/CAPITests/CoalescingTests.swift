// In-flight coalescing through the header: identical GET/HEAD requests in flight
// at once share one transfer ("coalesce", NC_REQUEST_NO_COALESCE); each caller
// gets its own completion exactly once; cancelling callers, groups, queue mode.
// The mock server counts what reached it (/_stats), so every test uses a private
// server.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

private func isCancelled(_ c: Collector) -> Bool {
    c.calls == 1 && c.outcome?.error?.isClient(NC_CLIENT_CANCELLED) == true
}

private func succeeded(_ c: Collector) -> Bool { c.calls == 1 && c.outcome?.succeeded == true }

/// Records the response handle each completion received (the same object for
/// every caller of one shared transfer).
final class HandleRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [UnsafeRawPointer] = []
    func note(_ r: OpaquePointer?) { if let r { lock.withLock { seen.append(UnsafeRawPointer(r)) } } }
    var handles: [UnsafeRawPointer] { lock.withLock { seen } }
}

/// Collects event texts.
final class EventTexts: @unchecked Sendable {
    private let lock = NSLock()
    private var texts: [String] = []
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    func add(_ s: String) { lock.withLock { texts.append(s) } }
    var all: [String] { lock.withLock { texts } }
    func ends() -> [String] { all.filter { $0.contains(#""event":"request_end""#) } }
}

private let eventTextFn: nc_event_fn = { text, len, ud in
    guard let ud, let text else { return }
    let s = String(decoding: UnsafeRawBufferPointer(start: text, count: len), as: UTF8.self)
    Unmanaged<EventTexts>.fromOpaque(ud).takeUnretainedValue().add(s)
}

/// Sends `request` once per collector; returns the tasks (the caller frees them).
private func sendAll(_ client: TestClient, _ request: Request, _ cs: [Collector]) -> [OpaquePointer?] {
    cs.map { c in
        let (rc, t) = client.send(request, c)
        #expect(rc == NC_OK)
        return t
    }
}

private func freeTasks(_ tasks: [OpaquePointer?]) { for t in tasks { nc_task_free(t) } }

private func hits(_ server: MockServer, _ path: String) -> Int { serverStats(server).paths[path] ?? 0 }

@Suite struct CoalescingTests {
    @Test func fiftyIdenticalGETsShareOneTransferAndEachCallerGetsTheSameResponseOnce() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL))
        let handles = HandleRecorder()
        let cs = (0..<50).map { _ in Collector { r, _ in handles.note(r) } }
        // Fifty request objects, equal in content: "identical" is what is sent.
        let requests = try (0..<50).map { _ in try Request("GET", "/slow?ms=500") }
        var tasks: [OpaquePointer?] = []
        for (r, c) in zip(requests, cs) { tasks.append(client.send(r, c).1) }
        for c in cs { #expect(c.wait(timeout: 20)) }
        #expect(cs.allSatisfy(succeeded))
        #expect(Set(cs.compactMap { $0.outcome?.data }).count == 1)
        #expect(Set(handles.handles).count == 1)   // the same nc_response for everyone
        // Every caller's task carries the shared transfer's id (its events' "id").
        #expect(Set(tasks.map { nc_task_id($0) }).count == 1)
        #expect(hits(server, "/slow") == 1)
        client.free()
        #expect(cs.allSatisfy { $0.calls == 1 })
        freeTasks(tasks)
    }

    @Test func theFlagAndTheConfigurationTurnItOff() throws {
        let server = try privateServer()
        // NC_REQUEST_NO_COALESCE on a client that coalesces.
        let client = try TestClient(config(base: server.baseURL))
        let flagged = try Request("GET", "/slow?ms=50")
        #expect(nc_request_set_flags(flagged.handle, UInt32(NC_REQUEST_NO_COALESCE)) == NC_OK)
        let cs = (0..<50).map { _ in Collector() }
        freeTasks(sendAll(client, flagged, cs))
        for c in cs { #expect(c.wait(timeout: 30)) }
        #expect(cs.allSatisfy(succeeded))
        #expect(hits(server, "/slow") == 50)
        client.free()

        // "coalesce": false.
        let off = try TestClient(config(base: server.baseURL, #""coalesce":false"#))
        let plain = try Request("GET", "/slow?ms=50&second=1")
        let more = (0..<50).map { _ in Collector() }
        freeTasks(sendAll(off, plain, more))
        for c in more { #expect(c.wait(timeout: 30)) }
        #expect(more.allSatisfy(succeeded))
        #expect(hits(server, "/slow") == 100)
        off.free()
    }

    @Test func aWrongCoalesceValueIsRefusedNamingTheKey() throws {
        var c: OpaquePointer?
        var e: OpaquePointer?
        #expect(nc_client_new(#"{"coalesce":"yes"}"#, &c, &e) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_error_code(e) == Int64(NC_CLIENT_INVALID_CONFIG))
        #expect(c == nil)
        #expect(string(nc_error_message(e))?.contains("coalesce") == true)
        nc_error_free(e)
    }

    @Test func differentURLsHeadersModesAndMethodsAreNotShared() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL))
        // Five variants, five callers each: one transfer per variant.
        let a = try Request("GET", "/slow?ms=400&v=1")
        let b = try Request("GET", "/slow?ms=400&v=2")
        let c = try Request("GET", "/slow?ms=400&v=1")
        c.header("X-Variant", "c")
        let d = try Request("GET", "/slow?ms=400&v=1")
        d.header("Authorization", "Bearer other")
        let raw = try Request("GET", "/slow?ms=400&v=1")
        raw.envelope(0)
        var all: [Collector] = []
        for r in [a, b, c, d, raw] {
            let cs = (0..<5).map { _ in Collector() }
            freeTasks(sendAll(client, r, cs))
            all += cs
        }
        for x in all { #expect(x.wait(timeout: 20)) }
        #expect(all.allSatisfy(succeeded))
        #expect(hits(server, "/slow") == 5)

        // POST is never shared, nor a GET writing to a file.
        let post = try Request("POST", "/slow?ms=300")
        let posts = (0..<10).map { _ in Collector() }
        freeTasks(sendAll(client, post, posts))
        for x in posts { #expect(x.wait(timeout: 20)) }
        #expect(posts.allSatisfy(succeeded))
        #expect(hits(server, "/slow") == 15)
        let dir = FileManager.default.temporaryDirectory.path
        let files = try (0..<4).map { _ in try Request("GET", "/slow?ms=300") }
        let saved = (0..<4).map { _ in Collector() }
        for (i, (f, c)) in zip(files, saved).enumerated() {
            #expect(nc_request_set_output_file(f.handle, "\(dir)/nc-coalesce-\(getpid())-\(i)") == NC_OK)
            nc_task_free(client.send(f, c).1)
        }
        for x in saved { #expect(x.wait(timeout: 20)) }
        #expect(saved.allSatisfy(succeeded))
        #expect(hits(server, "/slow") == 19)
        for i in 0..<4 { unlink("\(dir)/nc-coalesce-\(getpid())-\(i)") }
        client.free()
    }

    /// A caller whose retry policy, deadline or idle timeout differs runs on a
    /// transfer of its own: it gets the outcome its own settings give.
    @Test func callersWithTheirOwnRetryDeadlineOrIdleTimeoutAreNotShared() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL, #""retry":{"max_attempts":2}"#))
        let plain = try Request("GET", "/slow?ms=1500")
        let noRetry = try Request("GET", "/slow?ms=1500")
        #expect(nc_request_set_flags(noRetry.handle, UInt32(NC_REQUEST_NO_RETRY)) == NC_OK)
        let ownRetry = try Request("GET", "/slow?ms=1500")
        let three = #"{"max_attempts":3}"#
        #expect(nc_request_set_retry_json(ownRetry.handle, three, three.utf8.count) == NC_OK)
        let idle = try Request("GET", "/slow?ms=1500")
        #expect(nc_request_set_idle_timeout_ms(idle.handle, 20000) == NC_OK)
        let deadline = try Request("GET", "/slow?ms=1500")
        #expect(nc_request_set_deadline_ms(deadline.handle, 300) == NC_OK)
        var callers: [[Collector]] = []
        for r in [plain, noRetry, ownRetry, idle, deadline] {
            let cs = (0..<3).map { _ in Collector() }
            freeTasks(sendAll(client, r, cs))
            callers.append(cs)
        }
        for x in callers.joined() { #expect(x.wait(timeout: 20)) }
        for cs in callers.dropLast() { #expect(cs.allSatisfy(succeeded)) }
        // The deadline's callers end at their own deadline, not with the others' 200.
        #expect(
            callers.last?.allSatisfy {
                $0.calls == 1 && $0.outcome?.error?.isClient(NC_CLIENT_DEADLINE_EXCEEDED) == true
            } == true)
        #expect(hits(server, "/slow") == 5)
        client.free()
    }

    @Test func headRequestsAreSharedToo() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL, envelope: "null"))
        let head = try Request("HEAD", "/slow?ms=400")
        let cs = (0..<10).map { _ in Collector() }
        freeTasks(sendAll(client, head, cs))
        for c in cs { #expect(c.wait(timeout: 20)) }
        #expect(cs.allSatisfy { $0.calls == 1 && $0.outcome?.response?.status == 200 })
        #expect(hits(server, "/slow") == 1)
        client.free()
    }

    @Test func aRequestSentAfterTheCompletionStartsANewTransfer() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL))
        let r = try Request("GET", "/slow?ms=10")
        #expect(succeeded(client.sendAndWait(r)))
        #expect(succeeded(client.sendAndWait(r)))
        #expect(hits(server, "/slow") == 2)
        client.free()
    }

    @Test func aSynchronousSendNeitherJoinsNorLeads() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL))
        let r = try Request("GET", "/slow?ms=400")
        let async = Collector()
        nc_task_free(client.send(r, async).1)
        #expect(waitForServer(server, path: "/slow", count: 1))
        #expect(client.sync(r).succeeded)
        #expect(async.wait(timeout: 20))
        #expect(succeeded(async))
        #expect(hits(server, "/slow") == 2)
        client.free()
    }

    @Test func cancellingOneFollowerCompletesItAloneAtOnce() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL))
        let r = try Request("GET", "/slow?ms=1000")
        let cs = (0..<10).map { _ in Collector() }
        let tasks = sendAll(client, r, cs)
        #expect(waitForServer(server, path: "/slow", count: 1))
        nc_task_cancel(tasks[3])
        // From another thread in loop mode, the completion has run when cancel returns.
        #expect(isCancelled(cs[3]))
        nc_task_cancel(tasks[3])   // idempotent
        for c in cs { #expect(c.wait(timeout: 20)) }
        #expect(isCancelled(cs[3]))
        for (i, c) in cs.enumerated() where i != 3 { #expect(succeeded(c), "caller \(i)") }
        #expect(hits(server, "/slow") == 1)
        client.free()
        #expect(cs.allSatisfy { $0.calls == 1 })
        freeTasks(tasks)
    }

    @Test func cancellingTheFirstCallerLeavesTheTransferToTheOthers() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL))
        let r = try Request("GET", "/slow?ms=800")
        let cs = (0..<5).map { _ in Collector() }
        let tasks = sendAll(client, r, cs)
        #expect(waitForServer(server, path: "/slow", count: 1))
        nc_task_cancel(tasks[0])
        #expect(isCancelled(cs[0]))
        for c in cs { #expect(c.wait(timeout: 20)) }
        #expect(cs.dropFirst().allSatisfy(succeeded))
        #expect(hits(server, "/slow") == 1)
        client.free()
        freeTasks(tasks)
    }

    @Test func cancellingEveryCallerCancelsTheTransfer() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL))
        let events = EventTexts()
        #expect(nc_client_set_event_handler(client.handle, eventTextFn, events.userdata) == NC_OK)
        let r = try Request("GET", "/slow?ms=30000")
        let cs = (0..<6).map { _ in Collector() }
        let tasks = sendAll(client, r, cs)
        #expect(waitForServer(server, path: "/slow", count: 1))
        for t in tasks { nc_task_cancel(t) }
        #expect(cs.allSatisfy(isCancelled))
        // The one transfer ended cancelled (its connection closed), not with a result.
        #expect(waitUntil { events.ends().count == 1 })
        let end = foundationJSON(events.ends().first) as? [String: Any]
        #expect(end?["domain"] as? String == "NCClientErrorDomain")
        #expect(end?["code"] as? Int == Int(NC_CLIENT_CANCELLED))
        // The next identical request is a new transfer.
        let again = Collector()
        nc_task_free(client.send(try Request("GET", "/slow?ms=10"), again).1)
        #expect(again.wait(timeout: 20) && succeeded(again))
        #expect(hits(server, "/slow") == 2)
        client.free()
        #expect(cs.allSatisfy { $0.calls == 1 })
        freeTasks(tasks)
    }

    @Test func aGroupCancelCountsEveryCallerOfTheGroupAndSparesTheOthers() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL))
        // Same key: the group is not part of it; each caller is cancelled in its own.
        let grouped = try Request("GET", "/slow?ms=800")
        #expect(nc_request_set_group(grouped.handle, "screen") == NC_OK)
        let plain = try Request("GET", "/slow?ms=800")
        let inGroup = (0..<5).map { _ in Collector() }
        let others = (0..<4).map { _ in Collector() }
        freeTasks(sendAll(client, grouped, inGroup))
        freeTasks(sendAll(client, plain, others))
        #expect(waitForServer(server, path: "/slow", count: 1))
        var n = -1
        #expect(nc_client_cancel_group(client.handle, "screen", &n) == NC_OK)
        #expect(n == 5)
        for c in inGroup + others { #expect(c.wait(timeout: 20)) }
        #expect(inGroup.allSatisfy(isCancelled))
        #expect(others.allSatisfy(succeeded))
        #expect(hits(server, "/slow") == 1)

        // Every caller in the group: all counted, the transfer cancelled.
        let all = (0..<7).map { _ in Collector() }
        freeTasks(sendAll(client, grouped, all))
        var m = -1
        #expect(nc_client_cancel_all(client.handle, &m) == NC_OK)
        #expect(m == 7)
        for c in all { #expect(c.wait(timeout: 20)) }
        #expect(all.allSatisfy(isCancelled))
        client.free()
    }

    @Test func queueModeFansOutInsideDispatchOnTheCallersThread() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL, #""callbacks":"queue""#))
        let r = try Request("GET", "/slow?ms=400")
        let cs = (0..<8).map { _ in Collector() }
        let tasks = sendAll(client, r, cs)
        #expect(waitForServer(server, path: "/slow", count: 1))
        nc_task_cancel(tasks[2])   // queue mode: completes at the next dispatch
        #expect(cs[2].calls == 0)
        var spins = 0
        while cs.contains(where: { $0.calls == 0 }) && spins < 5000 {
            var p = pollfd(fd: nc_client_fd(client.handle), events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 100)
            #expect(nc_client_dispatch(client.handle) == NC_OK)
            spins += 1
        }
        #expect(isCancelled(cs[2]))
        for (i, c) in cs.enumerated() where i != 2 { #expect(succeeded(c), "caller \(i)") }
        for c in cs { #expect(c.threads.allSatisfy { pthread_equal($0, pthread_self()) != 0 }) }
        #expect(hits(server, "/slow") == 1)
        client.free()
        #expect(cs.allSatisfy { $0.calls == 1 })
        freeTasks(tasks)
    }

    @Test func shutdownCompletesEveryCallerOnce() throws {
        let server = try privateServer()
        let client = try TestClient(config(base: server.baseURL))
        let r = try Request("GET", "/slow?ms=30000")
        let cs = (0..<5).map { _ in Collector() }
        let tasks = sendAll(client, r, cs)
        #expect(waitForServer(server, path: "/slow", count: 1))
        nc_task_cancel(tasks[1])
        client.free()
        #expect(isCancelled(cs[1]))
        for (i, c) in cs.enumerated() where i != 1 {
            #expect(c.calls == 1 && c.outcome?.error?.isClient(NC_CLIENT_SHUTDOWN) == true, "caller \(i)")
        }
        freeTasks(tasks)
    }
}
