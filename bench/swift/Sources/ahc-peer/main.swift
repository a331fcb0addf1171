// AsyncHTTPClient peer: the same requests and envelope check as the other peers
// (bench/README.md). One JSON result line on stdout.
import AsyncHTTPClient
import BenchCommon
import Foundation
import NIOCore
import NIOPosix

let args = BenchArgs()
let peer = "ahc"

var config = HTTPClient.Configuration()
config.httpVersion = .http1Only   // nginx serves cleartext HTTP/1.1 here
// Same as raw libcurl: no per-host connection cap (AHC's default soft limit is 8).
config.connectionPool = .init(
    idleTimeout: .seconds(120),
    concurrentHTTP1ConnectionsPerHostSoftLimit: max(args.c, args.n, 8))
config.timeout = .init(connect: .seconds(10), read: .seconds(120))
let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: config)

/// What a careful Swift user does: parse the body with JSONSerialization and check
/// the envelope (object, code == 0, a data member).
func checkEnvelope(_ buf: ByteBuffer) -> String? {
    let data = Data(buf.readableBytesView)
    guard let any = try? JSONSerialization.jsonObject(with: data) else { return "body is not JSON" }
    guard let obj = any as? [String: Any] else { return "body is not an object" }
    guard let code = obj["code"] as? Int else { return "no integer code" }
    guard code == 0 else { return "business code \(code)" }
    guard obj["data"] != nil else { return "no data member" }
    return nil
}

func fetch(_ url: String, parse: Bool) async -> Outcome {
    do {
        let request = HTTPClientRequest(url: url)
        let response = try await client.execute(request, timeout: .seconds(300))
        let body = try await response.body.collect(upTo: 1 << 30)
        guard response.status == .ok else { return .failed("HTTP \(response.status.code)") }
        if parse, let why = checkEnvelope(body) { return .failed(why) }
        return .ok(body.readableBytes)
    } catch {
        return .failed("\(error)")
    }
}

func worker(count: Int, parse: Bool) async -> Tally {
    var t = Tally()
    for _ in 0..<count { t.add(await fetch(args.url, parse: parse)) }
    return t
}

/// `n` requests with `c` in flight: c workers, each doing its share in sequence.
func runWindow(n: Int, c: Int, parse: Bool) async -> Tally {
    await withTaskGroup(of: Tally.self) { group in
        for i in 0..<c {
            let share = n / c + (i < n % c ? 1 : 0)
            if share > 0 { group.addTask { await worker(count: share, parse: parse) } }
        }
        var total = Tally()
        for await t in group { total.merge(t) }
        return total
    }
}

switch args.workload {
case "seq", "conc", "download":
    let parse = args.workload != "download"
    let c = args.workload == "conc" ? args.c : 1
    if args.warmup > 0 { _ = await runWindow(n: max(args.warmup, c), c: c, parse: parse) }
    let cpu0 = cpuSeconds(), t0 = now()
    let t = await runWindow(n: args.n, c: c, parse: parse)
    let secs = now() - t0, cpu = cpuSeconds() - cpu0
    emitRun(
        peer: peer, args: args, ok: t.ok, errors: t.errors, bytes: t.bytes, secs: secs, cpu: cpu,
        firstError: t.firstError)

case "download-file":
    var t = Tally()
    let cpu0 = cpuSeconds(), t0 = now()
    for _ in 0..<args.n {
        do {
            let delegate = try FileDownloadDelegate(path: args.out)
            let progress = try await client.execute(
                request: try HTTPClient.Request(url: args.url),
                delegate: delegate
            ).futureResult.get()
            t.add(.ok(progress.receivedBytes))
        } catch { t.add(.failed("\(error)")) }
    }
    let secs = now() - t0, cpu = cpuSeconds() - cpu0
    emitRun(
        peer: peer, args: args, ok: t.ok, errors: t.errors, bytes: t.bytes, secs: secs, cpu: cpu,
        firstError: t.firstError)

case "slow":
    // n requests in flight at once against the slow route.
    await runSlow(peer: peer, args: args) { await fetch(args.url, parse: true) }

default:
    emit([("peer", peer), ("workload", args.workload), ("skipped", "workload not implemented by this peer")])
}

do { try await client.shutdown() } catch {}
