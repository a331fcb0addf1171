// Many requests on one client at once, from one thread and from many threads.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct ConcurrencyTests {
    @Test func twoHundredConcurrentRequestsCompleteOnceEachWithTheirOwnResult() throws {
        let server = try privateServer()
        defer { server.stop() }
        // Every request its own transfer (identical GETs would share one: CoalescingTests).
        let client = try TestClient(config(base: server.baseURL, #""coalesce":false"#))
        let n = 200
        let collectors = (0..<n).map { _ in Collector() }
        for i in 0..<n {
            let request = try Request(i % 2 == 0 ? "GET" : "POST", i % 2 == 0 ? "/env/code/ok" : "/echo")
            if i % 2 == 1 {
                request.query("i", "\(i)")
                request.params(#"{"n":\#(i)}"#)
            }
            let (rc, task) = client.send(request, collectors[i])
            #expect(rc == NC_OK)
            nc_task_free(task)
        }
        for c in collectors { #expect(c.wait(timeout: 30)) }
        client.free()
        var wrong: [String] = []
        for (i, c) in collectors.enumerated() {
            if c.calls != 1 { wrong.append("\(i): \(c.calls) calls") }
            guard let o = c.outcome, o.error == nil else {
                wrong.append("\(i): \(String(describing: c.outcome))")
                continue
            }
            if i % 2 == 0 {
                if o.response?.dataJSON != #"{"id":7,"name":"Ada"}"# { wrong.append("\(i): \(o)") }
            } else {
                let echo = o.echo
                if echo?["raw_path"] as? String != "/echo?i=\(i)"
                    || echo?["form"] as? [String: [String]] != ["n": ["\(i)"]]
                {
                    wrong.append("\(i): \(o)")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        let stats = serverStats(server)
        #expect(stats.paths["/env/code/ok"] == n / 2)
        #expect(stats.paths["/echo"] == n / 2)
    }

    @Test func twentyThreadsSendSyncConcurrently() throws {
        let server = MockServer.shared
        let client = try TestClient(config(base: server.baseURL))
        let handle = Handle(client.handle)
        let results = (0..<20).map { _ in Box<Outcome?>(nil) }
        onThreads(20) { i in
            for round in 0..<5 {
                guard let request = try? Request("GET", "/echo") else { return }
                request.query("t", "\(i)-\(round)")
                var r: OpaquePointer?
                var e: OpaquePointer?
                let rc = nc_client_send_sync(handle.pointer, request.handle, &r, &e)
                let o = Outcome(rc: rc, response: r, error: e)
                nc_response_free(r)
                nc_error_free(e)
                // Keep the first wrong answer, else the last one.
                if results[i].value == nil || results[i].value?.rc == NC_OK {
                    results[i].value = o
                }
                if o.echo?["raw_path"] as? String != "/echo?t=\(i)-\(round)" { return }
            }
        }
        client.free()
        for (i, box) in results.enumerated() {
            let o = try #require(box.value, "thread \(i)")
            #expect(o.rc == NC_OK, "thread \(i): \(o)")
            #expect(o.echo?["raw_path"] as? String == "/echo?t=\(i)-4", "thread \(i)")
        }
    }

    @Test func sequentialSendsReuseOneConnectionSyncAndAsync() throws {
        let server = try privateServer()
        defer { server.stop() }
        _ = try fetch("{}", server.url("/_stats/reset"))
        let client = try TestClient(config(base: server.baseURL))
        for i in 0..<30 {
            let o = try client.sync("/echo?i=\(i)")
            #expect(o.rc == NC_OK, "\(o)")
        }
        for _ in 0..<10 {
            let c = Collector()
            client.send(try Request("GET", "/echo"), c, task: false)
            #expect(c.wait())
            #expect(c.outcome?.error == nil)
        }
        client.free()
        // One connection for the synchronous sends (their lane), one for the transfer
        // thread, one for this /_stats request.
        let stats = serverStats(server)
        #expect(stats.paths["/echo"] == 40)
        #expect(stats.connections == 3, "\(stats)")
    }

    @Test func manyClientsAtOnce() throws {
        let server = MockServer.shared
        let results = (0..<8).map { _ in Box<String?>(nil) }
        onThreads(8) { i in
            guard let client = try? TestClient(config(base: server.baseURL)) else { return }
            let o = try? client.sync("/echo") { $0.query("c", "\(i)") }
            results[i].value = o?.echo?["raw_path"] as? String
            client.free()
        }
        for (i, r) in results.enumerated() { #expect(r.value == "/echo?c=\(i)") }
    }

    @Test func headersAndEnvironmentChangeWhileSending() throws {
        let server = MockServer.shared
        let client = try TestClient(
            config(
                base: nil, envelope: Envelope.a,
                #""environments":{"a":"\#(server.baseURL)","b":"\#(server.baseURL)/api"},"environment":"a""#))
        let handle = Handle(client.handle)
        let failures = Box(0)
        let lock = NSLock()
        onThreads(6) { i in
            for round in 0..<20 {
                switch i % 3 {
                case 0:
                    _ = nc_client_set_header(handle.pointer, "X-Round", "\(round)")
                case 1:
                    _ = nc_client_set_environment(handle.pointer, round % 2 == 0 ? "a" : "b")
                default:
                    guard let request = try? Request("GET", "/env/code/ok") else { return }
                    if nc_client_send_sync(handle.pointer, request.handle, nil, nil) != NC_OK {
                        lock.withLock { failures.value += 1 }
                    }
                }
            }
        }
        #expect(failures.value == 0)
    }
}
