import Foundation
import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The table of configuration keys (ConfigurationKeys.swift) against
/// docs/configuration.md and against the Swift types whose defaults it sets.
@Suite struct ConfigurationDocsTests {
    /// One row of a key table of docs/configuration.md.
    struct DocRow {
        var path: String
        var defaultCell: String
        /// Every cell, joined: ranges are written in the type or range column.
        var line: String
    }

    static let docPath = MockServer.repositoryRoot + "/docs/configuration.md"

    static func docText() throws -> String {
        try String(contentsOfFile: docPath, encoding: .utf8)
    }

    /// The rows of the key tables: "## Top-level keys", "## `envelope`", "## `limits`"
    /// (any table whose header has a "key" and a "default" column).
    static func docRows() throws -> [DocRow] {
        var rows: [DocRow] = []
        var prefix: String? = nil
        var columns: (key: Int, default: Int)? = nil
        for raw in try docText().split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("## ") {
                let title = line.dropFirst(3)
                if title == "Top-level keys" {
                    prefix = ""
                } else if title.hasPrefix("`"), title.hasSuffix("`") {
                    prefix = title.dropFirst().dropLast() + "."
                } else {
                    prefix = nil
                }
                columns = nil
                continue
            }
            guard let prefix, line.hasPrefix("|") else { columns = nil; continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard let columns else {
                if let k = cells.firstIndex(of: "key"), let d = cells.firstIndex(of: "default") {
                    columns = (k, d)
                }
                continue
            }
            guard cells.count > max(columns.key, columns.default), cells[columns.key].hasPrefix("`") else { continue }
            let key = cells[columns.key].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            rows.append(DocRow(path: prefix + key, defaultCell: cells[columns.default], line: line))
        }
        return rows
    }

    /// How the reference writes a default.
    static func documented(_ d: ConfigKeySpec.Default) -> [String] {
        switch d {
        case .none: return ["none", "null"]
        case .integer(let n): return ["`\(n)`"]
        case .boolean(let b): return ["`\(b)`"]
        case .text(let s): return ["`\"\(s)\"`"]
        case .list(let items):
            return ["`[" + items.map { Int64($0) != nil ? $0 : "\"\($0)\"" }.joined(separator: ", ") + "]`"]
        case .emptyMap: return ["`{}`"]
        case .section: return ["see below"]
        }
    }

    /// How the reference writes a range: "0–100", "256–64 MiB", "≥ 1" (no upper bound).
    static func documented(_ r: ClosedRange<Int64>) -> [String] {
        if r.upperBound == Int64.max { return ["≥ \(r.lowerBound)"] }
        var forms = ["\(r.lowerBound)–\(r.upperBound)"]
        if r.upperBound >= 1 << 20, r.upperBound % (1 << 20) == 0 {
            forms.append("\(r.lowerBound)–\(r.upperBound >> 20) MiB")
        }
        return forms
    }

    @Test func everyDocumentedKeyIsInTheTable() throws {
        let rows = try Self.docRows()
        #expect(rows.count >= 20, "the key tables of \(Self.docPath) were not found")
        for row in rows {
            let key = ConfigKey(rawValue: row.path)
            #expect(key != nil, "docs/configuration.md documents '\(row.path)', which the table does not have")
            #expect(key?.spec.type != .reserved, "'\(row.path)' is reserved but documented as a key")
        }
        #expect(Set(rows.map(\.path)).count == rows.count, "a key is documented twice")
    }

    @Test(arguments: ConfigKey.allCases)
    func tableKeyIsDocumentedWithItsDefault(_ key: ConfigKey) throws {
        if key.spec.type == .reserved {
            // Refused rather than documented as keys: the text says so.
            #expect(
                try Self.docText().contains("`\(key.path)`"),
                "docs/configuration.md does not mention reserved '\(key.path)'")
            return
        }
        guard let row = try Self.docRows().first(where: { $0.path == key.path }) else {
            Issue.record("'\(key.path)' is not in the key tables of docs/configuration.md")
            return
        }
        let forms = Self.documented(key.spec.defaultValue)
        #expect(
            forms.contains { row.defaultCell.hasPrefix($0) },
            "'\(key.path)': the doc's default is \"\(row.defaultCell)\", the table's \(forms[0])")
        if let range = key.spec.range {
            let forms = Self.documented(range)
            #expect(
                forms.contains { row.line.contains($0) },
                "'\(key.path)': the doc does not give the range \(forms[0]): \(row.line)")
        }
    }

    @Test func theReferenceExampleIsAccepted() throws {
        let text = try Self.docText()
        let start = try #require(text.range(of: "```json\n"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let example = String(text[start.upperBound..<end.lowerBound])
        if case .failure(let e) = Configuration.parse(json: example) {
            Issue.record("the first example of docs/configuration.md is refused: \(e.message)")
        }
    }

    // MARK: the table against itself and the Swift types

    @Test(arguments: ConfigKey.allCases)
    func defaultHasTheFormOfTheType(_ key: ConfigKey) {
        let spec = key.spec
        switch (spec.type, spec.defaultValue) {
        case (.integer(let range), .integer(let n)): #expect(range.contains(n), "\(key)")
        case (.boolean, .boolean), (.fieldName, .text), (.fieldName, .none), (.codes, .list),
            (.headerNames, .list), (.urlMap, .emptyMap), (.headerMap, .emptyMap), (.url, .none),
            (.name, .none), (.section(optional: true), .none), (.section(optional: false), .section),
            (.reserved, .none), (.endpointMap, .emptyMap), (.object, .none), (.path, .none), (.pins, .list),
            (.proxyURL, .none):
            break
        // A deprecated alias has no default of its own: the key it stands for decides.
        case (.boolean, .none) where key == .cachePrivate:
            break
        case (.choice(let choices), .text(let s)): #expect(choices.contains(s), "\(key)")
        default: Issue.record("\(key): default \(spec.defaultValue) does not fit \(spec.type)")
        }
        #expect(ConfigKey.named(key.name, in: key.section) == key)
        if let section = key.section {
            if case .section = section.spec.type {} else { Issue.record("\(key): \(section) is not a section") }
        }
    }

    /// The plain Swift values carry the table's defaults; so does parsing `{}`.
    @Test func swiftDefaultsAreTheTables() throws {
        let plain = Configuration()
        let envelope = EnvelopeSchema()
        for key in ConfigKey.allCases {
            let d = key.spec.defaultValue
            switch key {
            case .baseURL: #expect(plain.baseURL == nil && d == .none)
            case .environments: #expect(plain.environments.isEmpty && d == .emptyMap)
            case .environment: #expect(plain.environment == nil && d == .none)
            case .headers: #expect(plain.headers.isEmpty && d == .emptyMap)
            case .credentialHeaders: #expect(d == .list(plain.credentialHeaders))
            case .compression: #expect(d == .boolean(plain.compression))
            case .coalesce: #expect(d == .boolean(plain.coalesce))
            case .timeoutMs, .connectTimeoutMs, .idleTimeoutMs, .deadlineMs, .limitsMaxConnectionsPerHost,
                .limitsMaxResponseBytes,
                .limitsMaxRedirects, .limitsMaxHeaderCount, .limitsMaxHeaderBytes:
                #expect(plain.integerValue(of: key).map(ConfigKeySpec.Default.integer) == d, "\(key)")
            case .envelope: #expect(plain.envelope == nil && d == .none)
            case .limits: #expect(d == .section)
            case .callbacks: #expect(d == .text(plain.callbacks.rawValue))
            case .retry: #expect(plain.retry == nil && d == .none)
            case .cache: #expect(plain.cache == nil && d == .none)
            case .endpoints: #expect(plain.endpoints.isEmpty && d == .emptyMap)
            case .commonParams: #expect(plain.commonParams == nil && d == .none)
            case .signing: #expect(plain.signing == nil && d == .none)
            case .messages: #expect(plain.messages == nil && d == .none)
            case .stubs: #expect(plain.stubs == nil && d == .none)
            case .envelopeCode: #expect(d == (envelope.codeField.map { .text($0) } ?? .none))
            case .envelopeOkCodes: #expect(d == .list(envelope.okCodes))
            case .envelopeSuccess: #expect(d == (envelope.successField.map { .text($0) } ?? .none))
            case .envelopeStatus: #expect(d == (envelope.statusField.map { .text($0) } ?? .none))
            case .envelopeOkStatus: #expect(d == .list(envelope.okStatuses))
            case .envelopeMessage: #expect(d == (envelope.messageField.map { .text($0) } ?? .none))
            case .envelopeData: #expect(d == (envelope.dataField.map { .text($0) } ?? .none))
            case .envelopeTraceID: #expect(d == (envelope.traceIDField.map { .text($0) } ?? .none))
            case .envelopeAuthExpiredCodes: #expect(d == .list(envelope.authExpiredCodes))
            case .tls, .proxy: #expect(d == .section)
            case .httpVersion: #expect(d == .text(plain.httpVersion.rawValue))
            case .tlsCAFile: #expect(plain.tls.caFile == nil && d == .none)
            case .tlsCAPath: #expect(plain.tls.caPath == nil && d == .none)
            case .tlsClientCert: #expect(plain.tls.clientCert == nil && d == .none)
            case .tlsClientKey: #expect(plain.tls.clientKey == nil && d == .none)
            case .tlsPinnedPublicKeys: #expect(d == .list(plain.tls.pinnedPublicKeys))
            case .tlsMinVersion: #expect(d == .text(plain.tls.minVersion.rawValue))
            case .proxyURL: #expect(plain.proxy.url == nil && d == .none)
            case .proxyNoProxy: #expect(plain.proxy.noProxy == nil && d == .none)
            case .reachability: #expect(d == .section)
            case .reachabilityMode: #expect(d == .text(plain.reachability.mode.name))
            case .reachabilityWaitForNetworkMs: #expect(d == .integer(plain.reachability.waitForNetworkMs))
            case .auth: #expect(d == .section)
            case .authToken: #expect(plain.auth.token == nil && d == .none)
            case .authMaxRefreshesPerMinute: #expect(d == .integer(plain.auth.maxRefreshesPerMinute))
            case .cacheMemoryBytes: #expect(d == .integer(Configuration.Cache().memoryBytes))
            case .cacheDir: #expect(Configuration.Cache().dir == nil && d == .none)
            case .cacheDiskBytes: #expect(d == .integer(Configuration.Cache().diskBytes))
            case .cachePartition: #expect(Configuration.Cache().partition == nil && d == .none)
            case .cacheShared: #expect(d == .boolean(Configuration.Cache().isShared))
            case .cachePrivate: #expect(d == .none)
            case .cookies: #expect(d == .section)
            case .cookiesEnabled: #expect(d == .boolean(plain.cookies.enabled))
            case .cookiesFile: #expect(plain.cookies.file == nil && d == .none)
            case .log: #expect(d == .section)
            case .logLevel: #expect(d == .text(plain.log.level.name))
            }
        }
        let parsed = try Configuration.parse(json: "{}").get()
        for key in ConfigKey.allCases where key.spec.range != nil {
            #expect(parsed.integerValue(of: key) == plain.integerValue(of: key), "\(key)")
        }
    }

    /// Each key's range as the parser and validate() apply it: the bounds pass, one
    /// beyond is refused naming the key (JSON) or the property (Swift).
    @Test(arguments: ConfigKey.allCases.filter { $0.spec.range != nil })
    func rangesAreTheTables(_ key: ConfigKey) throws {
        let range = try #require(key.spec.range)
        func json(_ n: Int64) -> String {
            guard let section = key.section else { return "{\"\(key.path)\":\(n)}" }
            return "{\"\(section.path)\":{\"\(key.name)\":\(n)}}"
        }
        for n in [range.lowerBound, range.upperBound] {
            #expect(throws: Never.self) { try Configuration.parse(json: json(n)).get() }
        }
        var beyond = [range.lowerBound &- 1]
        if range.upperBound < Int64.max { beyond.append(range.upperBound + 1) }
        for n in beyond {
            guard case .failure(let e) = Configuration.parse(json: json(n)) else {
                Issue.record("\(key.path) = \(n) was accepted")
                continue
            }
            #expect(
                e.message.contains("'\(key.path)' must be between \(range.lowerBound) and \(range.upperBound)"),
                "\(e.message)")
        }
    }
}
