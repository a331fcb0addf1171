import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The loopback HTTPS servers of Tests/Support/tls_server.py: a CA, server and
/// client certificates made at start-up with the `openssl` tool in a temporary
/// directory (removed when the server exits), and one port per profile ("good",
/// "selfsigned", "expired", "wronghost", "untrusted", "clientauth", "tls12", "h2").
/// Stopped when the test process ends (the server exits when its stdin closes).
public final class TLSServer: @unchecked Sendable {
    public let ports: [String: Int]
    public let files: [String: String]
    public let pins: [String: String]
    private let process: Process
    private let stdinPipe: Pipe

    /// One server shared by the tests of a process; started on first use.
    public static let shared: TLSServer = {
        do { return try TLSServer() } catch { fatalError("TLS test server did not start: \(error)") }
    }()

    public init() throws {
        let script = MockServer.repositoryRoot + "/Tests/Support/tls_server.py"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--exit-on-stdin-eof"]
        let out = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        var line = Data()
        let handle = out.fileHandleForReading
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
            let ports = object["ports"] as? [String: Int], let files = object["files"] as? [String: String],
            let pins = object["pins"] as? [String: String]
        else {
            process.terminate()
            throw NSError(
                domain: "TLSServer", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "unexpected first line: \(String(decoding: line, as: UTF8.self))"]
            )
        }
        self.ports = ports
        self.files = files
        self.pins = pins
        self.process = process
        self.stdinPipe = input
    }

    /// "https://127.0.0.1:PORT" of a profile.
    public func url(_ profile: String, host: String = "127.0.0.1", path: String = "/") -> String {
        "https://\(host):\(ports[profile] ?? 0)\(path)"
    }

    /// A file's path ("ca", "client_cert", …).
    public func file(_ name: String) -> String { files[name] ?? "/nonexistent/\(name)" }

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
}
