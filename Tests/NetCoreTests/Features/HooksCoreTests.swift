import Foundation
import MockServerSupport
import Testing

// Pure tests of the hooks' core pieces: redaction, event JSON, log lines, flags.
@testable import NetCore
@testable import NetCoreBase

@Suite struct HooksCoreTests {
    @Test func redactionDropsUserinfoFragmentAndSecretValues() {
        let u = Redaction.url(
            "https://bob:SECRET@api.example.com:8443/v1/items?page=2&access_token=SECRET&Api_Key=SECRET&q=a%20b#SECRET")
        #expect(u == "https://api.example.com:8443/v1/items?page=2&access_token=REDACTED&Api_Key=REDACTED&q=a%20b")
        #expect(
            Redaction.url("http://h/p?my_token=SECRET&sig=SECRET&flag")
                == "http://h/p?my_token=REDACTED&sig=REDACTED&flag")
        #expect(Redaction.url("http://h/p") == "http://h/p")
        // ";" separates pairs too; a name that does not decode is read without its
        // "%"; a value that is a URL with userinfo is hidden, plain or encoded.
        #expect(
            Redaction.url("http://h/p?a=1;token=SECRET&b=2;c") == "http://h/p?a=1;token=REDACTED&b=2;c")
        #expect(Redaction.url("http://h/p?token%=SECRET&x=1") == "http://h/p?token%=REDACTED&x=1")
        #expect(
            Redaction.url("http://h/p?to=http://u:SECRET@h2/x&next=https%3A%2F%2Fu%3AS%40h3%2F&ok=http://h4/a@b")
                == "http://h/p?to=REDACTED&next=REDACTED&ok=http://h4/a@b")
        #expect(
            Redaction.text("GET 'http://u:SECRET@h/x?password=SECRET' failed")
                == "GET 'http://h/x?password=REDACTED' failed")
        // Nested names (Rails, PHP, qs): secret when one of their parts is.
        #expect(
            Redaction.url("http://h/p?auth[token]=SECRET&client%5Bapi_key%5D=SECRET&session.key=SECRET&user[name]=ada")
                == "http://h/p?auth[token]=REDACTED&client%5Bapi_key%5D=REDACTED&session.key=REDACTED&user[name]=ada")
        #expect(!Redaction.isSecret(name: "page.size") && !Redaction.isSecret(name: "items[0]"))
    }

    @Test func eventJSONHasEveryKey() {
        var e = RequestEvent(kind: .attemptEnd, id: 7, method: "GET", url: "http://h/a?token=SECRET", attempt: 1)
        e.status = 200
        e.timings = AttemptTimings(dnsUs: 1, connectUs: 2, tlsUs: 0, firstByteUs: 3, totalUs: 4, bytes: 5, hops: 1)
        #expect(
            e.json
                == #"{"event":"attempt_end","id":7,"method":"GET","url":"http://h/a?token=REDACTED","endpoint":null,"label":null,"attempt":1,"status":200,"domain":null,"code":null,"delay_ms":null,"reason":null,"timings":{"dns":1,"connect":2,"tls":0,"first_byte":3,"total":4},"bytes":5,"from_cache":false,"not_modified":false,"cache":null,"elapsed_us":null,"stubbed":false}"#
        )
    }

    /// The escape check reads eight bytes a step: a character that needs an escape
    /// is found at every position of strings of every length around a word, and
    /// text without one (UTF-8, DEL) is copied unescaped.
    @Test func eventJSONEscapesAtEveryPositionAndLength() throws {
        for special in ["\"", "\\", "\n", "\u{01}", "\u{1f}", "é", "\u{7f}", "x"] {
            for length in 0...40 {
                for position in 0...length where position < length || length == 0 {
                    var chars = Array(repeating: "a", count: length)
                    if length > 0 { chars[position] = special }
                    let text = chars.joined()
                    var e = RequestEvent(kind: .retry, id: 1, method: "GET", url: "http://h/", attempt: 1)
                    e.reason = text
                    let json = e.json
                    let parsed = try #require(
                        JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
                    #expect(parsed["reason"] as? String == text, "\(json)")
                    // Only what JSON requires is escaped.
                    let escaped = special == "\"" || special == "\\" || special.utf8.first! < 0x20
                    #expect(json.contains("\\") == (escaped && length > 0), "\(json)")
                }
            }
        }
    }

    /// Numbers at the edges of the decimal writer, and an event longer than the
    /// stack buffer it starts in (512 bytes: it moves to the heap).
    @Test func eventJSONNumbersAndLongEvents() throws {
        for v: Int64 in [0, 9, 10, 99, 100, -1, -10, 1_000_000_000_000_000_000, .max, .min] {
            var e = RequestEvent(kind: .retry, id: 1, method: "GET", url: "http://h/", attempt: 1)
            e.delayMs = v
            #expect(e.json.contains(#""delay_ms":\#(v),"#), "\(e.json)")
        }
        let long = "http://h/" + String(repeating: "p", count: 3000)
        var e = RequestEvent(kind: .requestEnd, id: .max, method: "GET", url: long, attempt: 2)
        e.reason = String(repeating: "\"", count: 300)
        let parsed = try #require(JSONSerialization.jsonObject(with: Data(e.json.utf8)) as? [String: Any])
        #expect(parsed["url"] as? String == long)
        #expect(parsed["reason"] as? String == e.reason)
        #expect(parsed["id"] as? Int64 == .max)   // clamped: JSON readers take signed 64-bit
        var lent: (String, Int)?
        e.withJSON { lent = (String(cString: $0), $1) }
        #expect(lent?.0 == e.json && lent?.1 == e.json.utf8.count)
    }

    @Test func eventKindNamesAreTheRawValues() {
        for kind in RequestEvent.Kind.allCases {
            #expect("\(kind.jsonName)" == kind.rawValue)
        }
    }

    @Test func logLinesFollowTheLevel() {
        var end = RequestEvent(kind: .requestEnd, id: 1, method: "GET", url: "http://h/p", attempt: 1)
        end.status = 200
        end.elapsedUs = 12_345
        #expect(LogLines.lines(for: end, level: .info).map(\.1) == ["GET http://h/p => 200 (12.3 ms)"])
        #expect(LogLines.lines(for: end, level: .warn).isEmpty)
        end.error = NetError.client(.responseTooLarge, "too big")
        #expect(LogLines.lines(for: end, level: .warn).first?.0 == .warn)
        #expect(
            LogLines.lines(for: end, level: .warn).first?.1.hasPrefix(
                "GET http://h/p => NCClientErrorDomain 5: too big") == true)
        let start = RequestEvent(kind: .requestStart, id: 1, method: "GET", url: "http://h/p", attempt: 0)
        #expect(LogLines.lines(for: start, level: .info).isEmpty)
        #expect(LogLines.lines(for: start, level: .debug).count == 1)
    }

    @Test func aLogLineIsOneLineWhateverTheServerSaid() {
        #expect(LogLines.oneLine("plain text, tab\tand é") == "plain text, tab\tand é")
        #expect(LogLines.oneLine("a\r\nINFO forged") == "a\\r\\nINFO forged")
        #expect(
            LogLines.oneLine("\u{1B}[2J\u{0}\u{7F}\u{85}\u{2028}\u{2029}") == "\\x1B[2J\\x00\\x7F\\x85\\u2028\\u2029")
        var end = RequestEvent(kind: .requestEnd, id: 1, method: "GET", url: "http://h/p", attempt: 1)
        end.elapsedUs = 1_000
        end.error = NetError(domain: .api, code: 7, message: "bad\nWARN forged")
        let line = LogLines.lines(for: end, level: .warn).first?.1 ?? ""
        #expect(line == "GET http://h/p => NCAPIErrorDomain 7: bad\\nWARN forged (1.0 ms)")
    }

    @Test func requestFlagsAreStoredAndCopied() throws {
        var r = try Request(method: "GET", target: "/x")
        r.flags = [.skipErrorHandler, .noRetry]
        let copy = r
        r.flags = []
        #expect(copy.flags == [.skipErrorHandler, .noRetry] && r.flags.isEmpty)
        #expect(!RequestFlags.all.isSuperset(of: RequestFlags(rawValue: 32)))
    }

    @Test func swiftErrorHandlerAndLogHandlerRunThroughTheClient() throws {
        let client = try NetClient(json: "{}")
        let box = Locked<[String]>([])
        client.errorHandler = { _, e in box.mutate { $0.append("error \(e.domain.name)") } }
        client.logHandler = LogHandler(level: .info) { _, line in box.mutate { $0.append(line) } }
        let r = try Request(method: "GET", target: "http://127.0.0.1:1/nothing?token=SECRET")
        _ = client.sendSync(r)
        let seen = box.value
        #expect(seen.contains("error NCTransportErrorDomain"))
        #expect(
            seen.contains {
                $0.hasPrefix("WARN GET http://127.0.0.1:1/nothing?token=REDACTED => NCTransportErrorDomain 7")
            })
        #expect(!seen.contains { $0.contains("SECRET") })
        client.errorHandler = nil
        client.logHandler = nil
        #expect(client.eventMonitor == nil)
    }

    /// `eventKinds` filters what the event handler receives, not the log handler.
    @Test func eventKindsFilterTheEventHandlerOnly() throws {
        let client = try NetClient(json: "{}")
        #expect(client.eventKinds == Set(RequestEvent.Kind.allCases))
        let events = Locked<[RequestEvent.Kind]>([])
        let lines = Locked<Int>(0)
        client.eventHandler = { e in events.mutate { $0.append(e.kind) } }
        client.logHandler = LogHandler(level: .debug) { _, _ in lines.mutate { $0 += 1 } }
        let r = try Request(method: "GET", target: "http://127.0.0.1:1/nothing")
        _ = client.sendSync(r)
        #expect(events.value == [.requestStart, .attemptEnd, .requestEnd])
        let linesForAll = lines.value

        client.eventKinds = [.requestEnd]
        #expect(client.eventKinds == [.requestEnd])
        #expect(client.eventMask == RequestEvent.Kind.requestEnd.bit)
        events.mutate { $0 = [] }
        lines.mutate { $0 = 0 }
        _ = client.sendSync(r)
        #expect(events.value == [.requestEnd])
        #expect(lines.value == linesForAll)   // the log handler still sees every event

        client.eventKinds = []
        events.mutate { $0 = [] }
        _ = client.sendSync(r)
        #expect(events.value.isEmpty)
        client.eventMask = 0xffff_ffff   // bits beyond the kinds are dropped
        #expect(client.eventMask == RequestEvent.Kind.allBits)
        client.eventHandler = nil
        client.logHandler = nil
    }

    /// A Swift monitor that `wants` only some kinds is called for those alone (the
    /// others are not built), and the response's attempt log is kept all the same.
    @Test func aMonitorIsAskedWhichKindsItWants() throws {
        final class EndsOnly: EventMonitor, @unchecked Sendable {
            let calls = Locked<[String]>([])
            func wants(_ kind: RequestEvent.Kind) -> Bool { kind == .requestEnd }
            func requestDidStart(_ event: RequestEvent) { calls.mutate { $0.append("start") } }
            func attemptDidEnd(_ event: RequestEvent) { calls.mutate { $0.append("attempt") } }
            func requestDidComplete(_ event: RequestEvent) { calls.mutate { $0.append("end") } }
        }
        let client = try NetClient(json: #"{"base_url":"\#(MockServer.shared.baseURL)"}"#)
        defer { client.shutdown() }
        let monitor = EndsOnly()
        client.eventMonitor = monitor
        guard case .success(let (response, error)) = client.sendSync(try Request(method: "GET", target: "/env/code/ok"))
        else {
            Issue.record("sendSync was refused")
            return
        }
        #expect(error == nil)
        #expect(monitor.calls.value == ["end"])
        #expect(response?.metrics.attemptLog.count == 1)   // kept though attemptDidEnd was not wanted
        client.eventMonitor = nil
    }

    /// The attempt log (libcurl's timings read at each hop) is kept for a monitor
    /// that asks for it: a log at DEBUG, not one at WARN or INFO alone, whose lines
    /// carry no timings; a Swift monitor that says `keepsAttemptLog` false.
    @Test func theAttemptLogIsKeptOnlyWhenSomethingReadsIt() throws {
        final class NoLog: EventMonitor, @unchecked Sendable {
            let timings = Locked<[AttemptTimings?]>([])
            var keepsAttemptLog: Bool { false }
            func attemptDidEnd(_ event: RequestEvent) { timings.mutate { $0.append(event.timings) } }
        }
        let client = try NetClient(json: #"{"base_url":"\#(MockServer.shared.baseURL)"}"#)
        defer { client.shutdown() }
        func attemptLog() -> Int? {
            guard let request = try? Request(method: "GET", target: "/env/code/ok"),
                case .success(let (response, _)) = client.sendSync(request)
            else { return nil }
            return response?.metrics.attemptLog.count
        }
        for (level, kept) in [(LogLevel.warn, 0), (.info, 0), (.debug, 1)] {
            client.logHandler = LogHandler(level: level) { _, _ in }
            #expect(attemptLog() == kept, "log at \(level.name)")
        }
        client.logHandler = nil
        let monitor = NoLog()
        client.eventMonitor = monitor
        #expect(attemptLog() == 0)
        #expect(monitor.timings.value.count == 1 && monitor.timings.value[0] == nil)   // none read
        client.eventMonitor = nil
    }
}

final class Locked<T>: @unchecked Sendable {
    private let lock = Lock()
    private var v: T
    init(_ v: T) { self.v = v }
    var value: T { lock.withLock { v } }
    func mutate(_ f: (inout T) -> Void) { lock.withLock { f(&v) } }
}
