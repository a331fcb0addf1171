#if canImport(Glibc)
import Glibc
#endif

/// Log levels of nc_client_set_log_handler (NC_LOG_OFF 0 … NC_LOG_TRACE 5).
public enum LogLevel: Int32, Sendable, Comparable, CaseIterable {
    case off = 0, error = 1, warn = 2, info = 3, debug = 4, trace = 5

    /// Orders levels from `.off` to `.trace`.
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    /// The configuration's name of the level ("off", "warn", …: the "log" key): its
    /// word in lower case.
    public var name: String { word.lowercased() }

    /// The level named `name` ("off" … "trace"); nil for another name.
    public init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    /// The word that starts every line of this level ("INFO", "DEBUG"…).
    public var word: String {
        switch self {
        case .off: return "OFF"
        case .error: return "ERROR"
        case .warn: return "WARN"
        case .info: return "INFO"
        case .debug: return "DEBUG"
        case .trace: return "TRACE"
        }
    }
}

/// Where a client's log lines go (`NetClient.logHandler`): lines of `level` and
/// more severe are given to `write` with their own level. Each line is
/// `LEVEL text`, e.g. `INFO GET http://127.0.0.1:8080/users => 200 (12.3 ms)`.
///
/// What is logged (built on the event seam, `LoggingMonitor`):
/// - warn: a failed request, `GET url => NCTransportErrorDomain 7: message`
/// - info: a successful (or cancelled) request, `GET url => 200 (12.3 ms)`, and
///   each retry, `GET url: retry 2 in 200 ms (reason)`
/// - debug: each start, and each attempt's end with libcurl's timings
/// - trace: nothing more today.
/// Never logged: header values (so no token, Authorization, Cookie,
/// Proxy-Authorization or configured credential header), the signing secret,
/// bodies, userinfo or secret query values (Redaction.swift).
/// Each line is one line: control characters in it (a server's message may hold
/// any) are escaped, `\r`, `\n`, `\x1B`, `\u2028` (`LogLines.oneLine`).
public struct LogHandler: Sendable {
    /// The most detailed level written.
    public var level: LogLevel
    /// Receives each line with its level (never credentials, tokens or secrets).
    public var write: @Sendable (LogLevel, String) -> Void

    /// A logger writing lines up to `level` through `write`.
    public init(level: LogLevel, write: @escaping @Sendable (LogLevel, String) -> Void) {
        self.level = level
        self.write = write
    }

    /// Lines to standard error, prefixed with "netcore ".
    public static func standardError(level: LogLevel) -> LogHandler {
        LogHandler(level: level) { _, line in
            let text = "netcore " + line + "\n"
            var bytes = Array(text.utf8)
            _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        }
    }
}

/// The lines of one event at `level` (empty when none is due).
enum LogLines {
    /// Each line is one line: its control characters are escaped (`oneLine`).
    static func lines(for e: RequestEvent, level: LogLevel) -> [(LogLevel, String)] {
        var lines = composed(for: e, level: level)
        for i in lines.indices { lines[i].1 = oneLine(lines[i].1) }
        return lines
    }

    /// `text` with its control characters written as escapes: `\n`, `\r`, `\xHH`
    /// for the other C0 and C1 controls and DEL, `\u2028`/`\u2029` for the Unicode
    /// line and paragraph separators; a tab stays. A line carries text from the
    /// server (an envelope's message, a Retry-After value): escaped, it cannot end
    /// the line early and forge another, nor drive the terminal reading standard
    /// error. Text without such characters is returned as it is.
    static func oneLine(_ text: String) -> String {
        func escaped(_ s: Unicode.Scalar) -> Bool {
            (s.value < 0x20 && s != "\t") || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
        }
        guard text.unicodeScalars.contains(where: escaped) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for s in text.unicodeScalars {
            if !escaped(s) {
                out.unicodeScalars.append(s)
            } else if s == "\n" {
                out += "\\n"
            } else if s == "\r" {
                out += "\\r"
            } else {
                let hex = String(s.value, radix: 16, uppercase: true)
                out += s.value > 0xFF ? "\\u" + hex : "\\x" + (s.value < 0x10 ? "0" : "") + hex
            }
        }
        return out
    }

    private static func composed(for e: RequestEvent, level: LogLevel) -> [(LogLevel, String)] {
        // A request that could not be resolved has no method or URL: its number.
        var target =
            e.method.isEmpty ? "request #\(e.id)" : "\(e.method) \(e.urlIsRedacted ? e.url : Redaction.url(e.url))"
        // Which call it is: the endpoint and the caller's label, when there are.
        if e.endpoint != nil || e.label != nil {
            let parts = [e.endpoint.map { "endpoint=\($0)" }, e.label.map { "label=\($0)" }].compactMap { $0 }
            target += " [" + parts.joined(separator: " ") + "]"
        }
        switch e.kind {
        case .requestStart:
            guard level >= .debug else { return [] }
            return [(.debug, "\(target) #\(e.id) started")]
        case .attemptEnd:
            guard level >= .debug else { return [] }
            var line = "\(target) #\(e.id) attempt \(e.attempt) => " + outcome(e)
            if let t = e.timings {
                line +=
                    " (dns \(ms(t.dnsUs)), connect \(ms(t.connectUs)), tls \(ms(t.tlsUs)), first byte \(ms(t.firstByteUs)), total \(ms(t.totalUs)), \(t.bytes) bytes, \(t.hops) hop\(t.hops == 1 ? "" : "s")"
                    + (t.httpVersion.map { ", \($0.text)" } ?? "") + (t.tlsVersion.map { ", \($0)" } ?? "") + ")"
            }
            return [(.debug, line)]
        case .retry:
            guard level >= .info else { return [] }
            return [
                (.info, "\(target): retry \(e.attempt + 1) in \(e.delayMs ?? 0) ms (\(Redaction.text(e.reason ?? "")))")
            ]
        case .cacheHit:
            guard level >= .debug else { return [] }
            return [(.debug, "\(target) #\(e.id) answered from the cache (\(e.status))")]
        case .requestEnd:
            let elapsed = " (\(ms(e.elapsedUs ?? 0)))"
            if let err = e.error, !(err.domain == .client && err.code == Int64(NetError.ClientCode.cancelled.rawValue))
            {
                guard level >= .warn else { return [] }
                return [(.warn, "\(target) => " + outcome(e) + elapsed)]
            }
            guard level >= .info else { return [] }
            return [(.info, "\(target) => " + outcome(e) + elapsed)]
        }
    }

    private static func outcome(_ e: RequestEvent) -> String {
        guard let err = e.error else { return "\(e.status)" }
        return "\(err.domain.name) \(err.code): \(Redaction.text(err.message))"
    }

    /// Microseconds as "12.3 ms".
    static func ms(_ us: Int64) -> String {
        let tenths = us / 100
        return "\(tenths / 10).\(abs(tenths % 10)) ms"
    }
}
