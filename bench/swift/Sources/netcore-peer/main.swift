// libnetcore's Swift async API peer: `try await client.send(request)` with the
// envelope on, the same requests as the other peers (bench/README.md). Success =
// no error thrown and the business data available (`response.data`).
import BenchCommon
import NetCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let args = BenchArgs()
// `--executor on`: every task prefers the client's executor (NetClient+Executor.swift),
// so it runs on the transfer thread instead of Swift's global pool.
let peer = args.executor ? "nc-swift-exec" : "nc-swift-async"
// Same bench configuration as the C peer: no per-host connection cap (0, or
// $BENCH_NC_MAX_CONNECTIONS_PER_HOST), bodies up to 1 GiB, compression off,
// coalescing off (its tasks send one URL at once: bench/README.md).
let maxConn = getenv("BENCH_NC_MAX_CONNECTIONS_PER_HOST").flatMap { Int(String(cString: $0)) } ?? 0
let config = """
    {"envelope":{},"compression":false,"coalesce":false,"timeout_ms":300000,"connect_timeout_ms":10000,
     "limits":{"max_connections_per_host":\(maxConn),"max_response_bytes":1073741824}}
    """
let client: NetClient
do { client = try NetClient(json: config) } catch {
    print("{\"peer\":\"\(peer)\",\"workload\":\"\(args.workload)\",\"skipped\":\"client: \(error)\"}")
    exit(1)
}

func fetch(_ request: Request, raw: Bool) async -> Outcome {
    do {
        let response = try await client.send(request)
        if !raw && response.data == nil { return .failed("no data") }
        return .ok(response.body.count)
    } catch {
        return .failed("\(error)")
    }
}

let raw = args.workload == "download"
var request: Request
do {
    request = try Request(method: "GET", target: args.url)
} catch {
    print("{\"peer\":\"\(peer)\",\"workload\":\"\(args.workload)\",\"skipped\":\"bad url\"}")
    exit(1)
}
if raw { request.envelope = false }
let req = request

func worker(count: Int) async -> Tally {
    var t = Tally()
    for _ in 0..<count { t.add(await fetch(req, raw: raw)) }
    return t
}

/// `n` requests with `c` in flight: c child tasks, each doing its share in sequence.
func runWindow(n: Int, c: Int) async -> Tally {
    if args.executor {
        return await withTaskExecutorPreference(client.executor) { await runGroup(n: n, c: c) }
    }
    return await runGroup(n: n, c: c)
}

func runGroup(n: Int, c: Int) async -> Tally {
    await withTaskGroup(of: Tally.self) { group in
        for i in 0..<c {
            let share = n / c + (i < n % c ? 1 : 0)
            if share > 0 { group.addTask { await worker(count: share) } }
        }
        var total = Tally()
        for await t in group { total.merge(t) }
        return total
    }
}

switch args.workload {
case "seq", "conc", "download":
    let c = args.workload == "conc" ? args.c : 1
    if args.warmup > 0 { _ = await runWindow(n: max(args.warmup, c), c: c) }
    var slicer = Slicer(n: args.n, slices: args.workload == "download" ? 0 : args.slices)
    var t = Tally()
    for size in slicer.sizes {
        slicer.start()
        let part = await runWindow(n: size, c: min(c, size))
        slicer.finish(done: part.ok + part.errors)
        t.merge(part)
    }
    emitRun(
        peer: peer, args: args, ok: t.ok, errors: t.errors, bytes: t.bytes, secs: slicer.secs, cpu: slicer.cpu,
        firstError: t.firstError)

case "slow":
    // n requests in flight at once against the slow route.
    await runSlow(peer: peer, args: args) { await fetch(req, raw: false) }

default:
    emit([("peer", peer), ("workload", args.workload), ("skipped", "n/a for this peer")])
}
client.shutdown()
