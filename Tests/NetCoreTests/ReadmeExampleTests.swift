import Foundation
import MockServerSupport
import NetCore
import Testing

/// The README's "From Swift" example, run for real, and a check that the README
/// shows exactly this code (so neither can rot without a failing test).
///
/// README.md holds the example as the ```swift block between
/// `<!-- swift-example:begin -->` and `<!-- swift-example:end -->`; this file holds
/// it between `// readme-swift:begin` and `// readme-swift:end`. They must be equal
/// line by line, ignoring leading and trailing whitespace. Set NETCORE_README to
/// check another file (e.g. a draft of the section).
@Suite struct ReadmeExampleTests {
    // Kept as written, since the README shows it (make format leaves it alone):
    // swift-format-ignore
    @Test func readmeExampleRuns() async throws {
        let baseURL = MockServer.shared.baseURL // the README says: your API's base URL
        // readme-swift:begin
        var config = Configuration(baseURL: baseURL, envelope: EnvelopeSchema())
        config.headers = ["User-Agent": "shop/2.3"]
        config.timeoutMs = 10_000
        let client = try NetClient(configuration: config)
        defer { client.shutdown() }

        struct User: Decodable { let id: Int; let name: String }
        let user = try await client.decode(User.self, from: Request(method: "GET", target: "/env/code/ok"))
        print(user.name)                                      // Ada

        do throws(NetError) {   // building and sending throw the one error type
            _ = try await client.send(Request(method: "GET", target: "/env/code/fail"))
        } catch {
            print(error.domain.name, error.code, error.message)  // NCAPIErrorDomain 1001 wrong password
            print(error.response?.status ?? 0)                   // 200: HTTP/API/PARSE errors keep the response
        }

        let slow = Task { try await client.send(Request(method: "GET", target: "/slow?ms=5000")) }
        slow.cancel()                                         // cancels the transfer
        if case .failure(NetError.cancelled) = await slow.result { print("cancelled") }
        // readme-swift:end

        #expect(user.id == 7 && user.name == "Ada")
        guard case .failure(NetError.cancelled) = await slow.result else {
            Issue.record("the slow request was not cancelled")
            return
        }
    }

    @Test func readmeShowsThisExample() throws {
        let readmePath =
            ProcessInfo.processInfo.environment["NETCORE_README"]
            ?? MockServer.repositoryRoot + "/README.md"
        let readme = try String(contentsOfFile: readmePath, encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)

        let expected = try #require(
            Self.lines(of: source, from: "// readme-swift:begin", to: "// readme-swift:end"),
            "markers missing in \(#filePath)")
        let block = Self.swiftBlock(in: readme)
        guard let inReadme = block else {
            Issue.record(
                "\(readmePath) has no ```swift block between <!-- swift-example:begin --> and <!-- swift-example:end --> (paste the \"From Swift\" section)"
            )
            return
        }
        let common = min(inReadme.count, expected.count)
        let first = (0..<common).first { inReadme[$0] != expected[$0] } ?? common
        #expect(
            inReadme == expected,
            """
            README example differs from ReadmeExampleTests.swift at example line \(first + 1):
              README: \(first < inReadme.count ? inReadme[first] : "<end>")
              test:   \(first < expected.count ? expected[first] : "<end>")
            """)
    }

    /// Lines strictly between the lines equal to `begin` and `end` (trimmed),
    /// trimmed; nil if a marker is missing.
    static func lines(of text: String, from begin: String, to end: String) -> [String]? {
        let all = text.split(separator: "\n", omittingEmptySubsequences: false).map(trim)
        guard let b = all.firstIndex(of: begin), let e = all[(b + 1)...].firstIndex(of: end) else { return nil }
        return Array(all[(b + 1)..<e])
    }

    /// The body of the first ```swift fence between the README markers, trimmed.
    static func swiftBlock(in readme: String) -> [String]? {
        guard let section = lines(of: readme, from: "<!-- swift-example:begin -->", to: "<!-- swift-example:end -->"),
            let open = section.firstIndex(of: "```swift"),
            let close = section[(open + 1)...].firstIndex(of: "```")
        else { return nil }
        return Array(section[(open + 1)..<close])
    }

    static func trim(_ line: Substring) -> String {
        String(
            line.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
