import Foundation
import MockServerSupport
import Testing

@testable import NetCoreBase

/// The retryable statuses and transport codes are stated once in the core
/// (Response/Retryable.swift); every copy written elsewhere — docs/errors.md,
/// docs/configuration.md, README.md, the header, the Python binding — says the same.
@Suite struct RetryableFactsTests {
    static let root = MockServer.repositoryRoot

    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    /// The integers of the first line of `path` that contains `marker`, after it.
    static func numbers(in path: String, after marker: String) throws -> [Int] {
        let t = try text(path)
        guard let line = t.split(separator: "\n").first(where: { $0.contains(marker) }),
            let at = line.range(of: marker)
        else { return [] }
        // The table cell (to the next `|`), the name "HTTP/2" left out of the numbers.
        let cell = line[at.upperBound...].split(separator: "|", omittingEmptySubsequences: false).first ?? ""
        return integers(String(cell))
    }

    static func integers(_ text: String) -> [Int] {
        text.replacingOccurrences(of: "HTTP/2", with: "").split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    }

    /// The integers between `start` and `end` in the text of `path` (joined lines).
    static func numbers(in path: String, between start: String, and end: String) throws -> [Int] {
        let t = try text(path)
        guard let a = t.range(of: start), let b = t.range(of: end, range: a.upperBound..<t.endIndex) else { return [] }
        return integers(String(t[a.upperBound..<b.lowerBound]))
    }

    static let statuses = Set(Retryable.statuses.map { Int($0.status) })
    static let codes = Set(Retryable.transportErrors.map { Int($0.code.rawValue) })

    @Test func theCoreReadsOneList() {
        #expect(HTTPStatus.retryable == Retryable.statusSet)
        #expect(TransportErrors.retryable == Retryable.transportCodeSet)
        #expect(RetryPolicy.defaultStatuses.map(\.status) == Retryable.statuses.map(\.status))
        #expect(RetryPolicy().statuses == Retryable.statuses.map(\.status))
        #expect(RetryPolicy.retriedTransportErrors.map(\.code) == Retryable.transportErrors.map(\.code))
    }

    @Test func docsAndBindingsStateTheSameStatuses() throws {
        let copies: [(String, [Int])] = [
            (
                "docs/errors.md domain table",
                try Self.numbers(in: "docs/errors.md", after: "`NCHTTPErrorDomain` | the HTTP status |")
            ),
            (
                "docs/configuration.md statuses row",
                try Self.numbers(in: "docs/configuration.md", after: "| `statuses` | array of HTTP statuses |")
            ),
            ("README.md retry table", try Self.numbers(in: "README.md", after: "| HTTP statuses retried |")),
            (
                "netcore.h nc_error_is_retryable",
                try Self.numbers(in: "include/netcore.h", between: "failures, HTTP ", and: "), else 0")
            ),
            (
                "Python DEFAULT_STATUS_FORCELIST",
                try Self.numbers(in: "bindings/python/netcore/_retry.py", after: "DEFAULT_STATUS_FORCELIST = ")
            )
        ]
        for (name, found) in copies {
            #expect(Set(found) == Self.statuses, "\(name): \(found)")
        }
    }

    @Test func docsStateTheSameTransportCodes() throws {
        let copies: [(String, [Int])] = [
            (
                "docs/errors.md domain table",
                try Self.numbers(in: "docs/errors.md", after: "the `CURLcode`, unchanged |")
            ),
            ("README.md retry table", try Self.numbers(in: "README.md", after: "| transport errors retried |")),
            (
                "netcore.h retry policy",
                try Self.numbers(
                    in: "include/netcore.h", between: "NC_DOMAIN_TRANSPORT DNS (", and: "; NC_DOMAIN_HTTP with")
            )
        ]
        for (name, found) in copies {
            #expect(Set(found) == Self.codes, "\(name): \(found)")
        }
    }

    @Test func theRedirectRangeIsStatedAsTheCoreHasIt() throws {
        let r = Configuration.Limits.maxRedirectsRange
        let row = try Self.text("docs/configuration.md").split(separator: "\n")
            .first { $0.hasPrefix("| `max_redirects` |") }
        #expect(row?.contains("\(r.lowerBound)–\(r.upperBound)") == true, "docs/configuration.md: \(row ?? "")")
        #expect(try Self.text("include/netcore.h").contains("-1…\(r.upperBound)) and the request is unchanged"))
    }
}
