// Shared by the Swift peers: argument parsing, clocks, getrusage, RSS and the
// one-JSON-line result every peer of the benchmark prints (see bench/README.md).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public struct BenchArgs: Sendable {
    public var workload = "seq"
    public var url = ""
    public var n = 1000
    public var c = 1
    public var warmup = 50
    public var out = ""
    public var label = ""
    public var timeLimit = 600.0
    /// libnetcore peer only: run the tasks on the client's executor (`--executor on`).
    public var executor = false
    /// seq/conc: run the timed requests in this many slices on the driver's word
    /// (`--slices K`, workload 10; `Slicer`).
    public var slices = 0

    public init() {
        var it = CommandLine.arguments.dropFirst().makeIterator()
        while let a = it.next() {
            let v = it.next() ?? ""
            switch a {
            case "--workload": workload = v
            case "--url": url = v
            case "-n": n = Int(v) ?? n
            case "-c": c = max(1, Int(v) ?? c)
            case "--warmup": warmup = Int(v) ?? warmup
            case "--out": out = v
            case "--label": label = v
            case "--time-limit": timeLimit = Double(v) ?? timeLimit
            case "--executor": executor = v == "on"
            case "--slices": slices = max(0, Int(v) ?? 0)
            default:
                let msg = "unknown argument \(a)\n"
                _ = msg.withCString { write(2, $0, strlen($0)) }
                exit(2)
            }
        }
    }
}

/// Monotonic seconds.
public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// User + system CPU seconds of the whole process (every thread).
public func cpuSeconds() -> Double {
    var ru = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &ru)
    #else
    getrusage(RUSAGE_SELF, &ru)
    #endif
    return Double(ru.ru_utime.tv_sec) + Double(ru.ru_utime.tv_usec) / 1e6
        + Double(ru.ru_stime.tv_sec) + Double(ru.ru_stime.tv_usec) / 1e6
}

/// A field of /proc/self/status in kB (VmRSS, VmHWM), 0 if unavailable.
public func procStatusKB(_ field: String) -> Int {
    guard let f = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
        let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if s.hasPrefix(field + ":") {
            let digits = s.dropFirst(field.count + 1).filter { $0.isNumber }
            return Int(digits) ?? 0
        }
    }
    return 0
}

/// Resets VmHWM to the current RSS (Linux: write 5 to clear_refs), so a later
/// VmHWM is the peak of what follows.
public func resetPeakRSS() {
    if let f = fopen("/proc/self/clear_refs", "w") { fputs("5", f); fclose(f) }
}

public func percentile(_ sorted: [Double], _ p: Double) -> Double {
    if sorted.isEmpty { return 0 }
    let i = min(sorted.count - 1, max(0, Int((p / 100.0 * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[i]
}

/// Prints one result line: {"peer":..., "workload":..., ...}.
public func emit(_ fields: [(String, Any?)]) {
    var parts: [String] = []
    for (k, v) in fields {
        guard let v else { continue }
        let text: String
        switch v {
        case let s as String:
            var e = ""
            for ch in s.unicodeScalars {
                switch ch {
                case "\"": e += "\\\""
                case "\\": e += "\\\\"
                case "\n": e += "\\n"
                default: if ch.value < 0x20 { e += " " } else { e.unicodeScalars.append(ch) }
                }
            }
            text = "\"\(e)\""
        case let d as Double: text = d.isFinite ? String(d) : "null"
        case let i as Int: text = String(i)
        case let b as Bool: text = b ? "true" : "false"
        default: text = "\"\(v)\""
        }
        parts.append("\"\(k)\":\(text)")
    }
    print("{" + parts.joined(separator: ",") + "}")
    fflush(nil)
}

/// `--slices K` (workload 10, bench/README.md; the C peers' `bench_slicer` in
/// bench/c/common.h): the timed requests run in K slices of n/K (the last takes the
/// rest). Before each slice the peer waits for one byte on stdin (the driver's go);
/// after it, it prints `{"slice":I,"n":..,"secs":..,"cpu":..}`. Waiting counts in
/// neither secs nor cpu; `secs` and `cpu` sum the finished slices.
public struct Slicer {
    public let count: Int
    let n: Int
    var index = 0, t0 = 0.0, cpu0 = 0.0
    public private(set) var secs = 0.0, cpu = 0.0

    public init(n: Int, slices: Int) {
        self.n = n
        count = min(max(0, slices), n)
    }

    /// Requests in each slice: [n] when slicing is off.
    public var sizes: [Int] {
        if count == 0 { return [n] }
        let per = n / count
        return (0..<count).map { $0 + 1 == count ? n - per * (count - 1) : per }
    }

    /// Waits for the driver's go (exits when stdin is closed) and starts a slice.
    public mutating func start() {
        var go: UInt8 = 0
        if count > 0 && read(0, &go, 1) != 1 { exit(3) }
        t0 = now()
        cpu0 = cpuSeconds()
    }

    /// Ends the slice in which `done` requests completed.
    public mutating func finish(done: Int) {
        let s = now() - t0, c = cpuSeconds() - cpu0
        secs += s
        cpu += c
        if count == 0 { return }
        emit([("slice", index), ("n", done), ("secs", s), ("cpu", c)])
        index += 1
    }
}

/// Standard result of a timed run.
public func emitRun(
    peer: String, args: BenchArgs, ok: Int, errors: Int, bytes: Int,
    secs: Double, cpu: Double, firstError: String?,
    extra: [(String, Any?)] = []
) {
    let done = ok + errors
    var f: [(String, Any?)] = [
        ("peer", peer), ("workload", args.workload), ("label", args.label.isEmpty ? nil : args.label),
        ("url", args.url), ("n", args.n), ("c", args.c), ("ok", ok), ("errors", errors),
        ("bytes", bytes), ("secs", secs),
        ("rps", secs > 0 ? Double(done) / secs : 0),
        ("mbps", secs > 0 ? Double(bytes) / secs / 1e6 : 0),
        ("cpu_us_per_req", done > 0 ? cpu * 1e6 / Double(done) : 0),
        ("rss_peak_kb", procStatusKB("VmHWM")),
        ("first_error", firstError)
    ]
    f += extra
    emit(f)
}

/// One request's result in a peer: bytes received, or why it failed.
public enum Outcome: Sendable { case ok(Int), failed(String) }

/// Results of many requests, merged across workers.
public struct Tally: Sendable {
    public var ok = 0, errors = 0, bytes = 0
    public var firstError: String? = nil
    public init() {}
    public mutating func add(_ o: Outcome) {
        switch o {
        case .ok(let b): ok += 1; bytes += b
        case .failed(let e): errors += 1; if firstError == nil { firstError = e }
        }
    }
    public mutating func merge(_ t: Tally) {
        ok += t.ok; errors += t.errors; bytes += t.bytes
        if firstError == nil { firstError = t.firstError }
    }
}

/// The slow workload: `args.n` requests in flight at once; reports RSS growth per
/// in-flight request. `fetch` makes one request.
public func runSlow(peer: String, args: BenchArgs, _ fetch: @escaping @Sendable () async -> Outcome) async {
    let base = procStatusKB("VmRSS")
    resetPeakRSS()
    let cpu0 = cpuSeconds(), t0 = now()
    let t = await withTaskGroup(of: Outcome.self) { group in
        for _ in 0..<args.n { group.addTask { await fetch() } }
        var total = Tally()
        for await o in group { total.add(o) }
        return total
    }
    let secs = now() - t0, cpu = cpuSeconds() - cpu0
    let peak = procStatusKB("VmHWM")
    emitRun(
        peer: peer, args: args, ok: t.ok, errors: t.errors, bytes: t.bytes, secs: secs, cpu: cpu,
        firstError: t.firstError,
        extra: [
            ("rss_base_kb", base),
            ("rss_per_req_kb", Double(max(0, peak - base)) / Double(max(1, args.n)))
        ])
}
