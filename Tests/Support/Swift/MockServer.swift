import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The loopback mock API (Tests/Support/mock_server.py), started on a free port by
/// the tests themselves and stopped when the test process ends (the server exits
/// when its stdin closes) or when `stop()` is called.
public final class MockServer: @unchecked Sendable {
    public let port: Int
    /// The loopback address it listens on (127.0.0.1 unless given).
    public let host: String
    private let process: Process
    private let stdinPipe: Pipe

    /// One server shared by the tests of a process; started on first use.
    public static let shared: MockServer = {
        do { return try MockServer() } catch { fatalError("mock server did not start: \(error)") }
    }()

    /// `host`: another loopback address (127.0.0.2 …) gives a server whose URLs are
    /// another host to libcurl: neither "localhost" nor "127.0.0.1" (cookie tests).
    public init(host: String = "127.0.0.1") throws {
        self.host = host
        let script = MockServer.repositoryRoot + "/Tests/Support/mock_server.py"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--exit-on-stdin-eof", "--host", host]
        let out = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        // First line: "PORT <n>".
        var line = Data()
        let handle = out.fileHandleForReading
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw NSError(
                domain: "MockServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "unexpected first line: \(text)"])
        }
        self.port = port
        self.process = process
        self.stdinPipe = input
    }

    /// "http://127.0.0.1:PORT"
    public var baseURL: String { "http://\(host):\(port)" }

    public func url(_ path: String) -> String { baseURL + path }

    /// Stops the server by closing its stdin (it runs with --exit-on-stdin-eof).
    /// Signals are not used: test-runner threads may block SIGTERM, and a child
    /// inherits that mask. SIGKILL is the fallback after 5 s.
    public func stop() {
        try? stdinPipe.fileHandleForWriting.close()
        var waited = 0
        while process.isRunning && waited < 500 {
            usleep(10_000)
            waited += 1
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }

    /// The repository root, found from this source file's location.
    public static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }
}
