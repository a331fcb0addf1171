// nc_request_set_output_file: 2xx bodies streamed to a file, everything else as usual.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct OutputFileTests {
    let server = MockServer.shared

    /// A fresh path in a new temporary directory (removed by `cleanup`).
    func tempPath(_ name: String = "out.bin") -> (path: String, dir: URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nc-out-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir.appendingPathComponent(name).path, dir)
    }

    /// The file's bytes (POSIX reads: Foundation's reader leaks on empty files).
    func contents(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    /// What /large?bytes=N sends: "0123456789abcdef" repeated, cut at N.
    func pattern(_ n: Int) -> [UInt8] {
        let unit = Array("0123456789abcdef".utf8)
        return (0..<n).map { unit[$0 % unit.count] }
    }

    @Test func largeBodyGoesToTheFileNotMemoryEvenInEnvelopeModeAndOverTheBodyLimit() throws {
        let (path, dir) = tempPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Envelope configured and a 1 KB body limit: neither applies to the file.
        let cfg = config(base: server.baseURL, envelope: Envelope.a, #""limits":{"max_response_bytes":1000}"#)
        let o = try fetch(cfg, "/large?bytes=3000000") { #expect(nc_request_set_output_file($0.handle, path) == NC_OK) }
        #expect(o.rc == NC_OK, "\(o)")
        #expect(o.response?.status == 200)
        #expect(o.response?.body.isEmpty == true)
        #expect(o.response?.dataIsNULL == true)
        let bytes = try #require(contents(path))
        #expect(bytes.count == 3_000_000)
        #expect(bytes == pattern(3_000_000))
    }

    @Test func anHTTPErrorKeepsItsBodyInTheErrorAndLeavesNoFile() throws {
        let (path, dir) = tempPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let o = try fetch(config(), "/status/404?body=text") {
            #expect(nc_request_set_output_file($0.handle, path) == NC_OK)
        }
        #expect(o.rc == NC_ERR_FAILED)
        #expect(o.error?.domain == NC_DOMAIN_HTTP)
        #expect(o.error?.code == 404)
        #expect(o.error?.body?.isEmpty == false)
        #expect(contents(path) == nil)
        #expect(contents(path + ".part") == nil)
    }

    @Test func onlyTheFinalResponseOfARedirectIsWritten() throws {
        let (path, dir) = tempPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let o = try fetch(config(), "/redirect?to=%2Flarge%3Fbytes%3D100") {
            #expect(nc_request_set_output_file($0.handle, path) == NC_OK)
        }
        #expect(o.rc == NC_OK, "\(o)")
        #expect(contents(path) == pattern(100))
    }

    @Test func aFileThatCannotBeOpenedFailsWithWriteErrorAndSendsNothing() throws {
        let server = try privateServer()
        defer { server.stop() }
        _ = try fetch("{}", server.url("/_stats/reset"))
        let path = "/nonexistent-\(UUID().uuidString)/out.bin"
        let o = try fetch(config(base: server.baseURL), "/large?bytes=10") {
            #expect(nc_request_set_output_file($0.handle, path) == NC_OK)
        }
        #expect(o.rc == NC_ERR_FAILED)
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT)
        #expect(o.error?.code == 23)
        #expect(o.error?.attempts == 0)
        #expect(o.error?.message.contains(path) == true, "\(o)")
        #expect(o.error?.message.contains("No such file or directory") == true, "\(o)")
        #expect(serverStats(server).paths["/large"] == nil)
    }

    @Test func aFailingWriteIsAWriteError() throws {
        // /dev/full accepts open() and fails every write with ENOSPC.
        let o = try fetch(config(), "/large?bytes=100000") {
            #expect(nc_request_set_output_file($0.handle, "/dev/full") == NC_OK)
        }
        #expect(o.rc == NC_ERR_FAILED)
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT)
        #expect(o.error?.code == 23)
        #expect(o.error?.message.contains("No space left on device") == true, "\(o)")
    }

    @Test func theFileIsCompleteWhenTheCallbackRuns() throws {
        let (path, dir) = tempPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let client = try TestClient(config())
        defer { client.free() }
        let request = try Request("GET", "/large?bytes=500000")
        #expect(nc_request_set_output_file(request.handle, path) == NC_OK)
        let sizeInCallback = Box<Int>(-1)
        let c = Collector()
        c.hook = { _, _ in
            sizeInCallback.value = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -2
        }
        client.send(request, c, task: false)
        #expect(c.wait())
        #expect(c.calls == 1)
        #expect(c.outcome?.error == nil)
        #expect(sizeInCallback.value == 500_000)
    }

    @Test func invalidArgumentsChangeNothingAndNullGoesBackToMemory() throws {
        #expect(nc_request_set_output_file(nil, "/tmp/x") == NC_ERR_INVALID_ARGUMENT)
        let request = try Request("GET", "/large?bytes=64")
        #expect(nc_request_set_output_file(request.handle, "") == NC_ERR_INVALID_ARGUMENT)
        let bad: [CChar] = [0x2F, CChar(bitPattern: 0xFF), 0]   // "/\xFF": not UTF-8
        #expect(nc_request_set_output_file(request.handle, bad) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_output_file(request.handle, "/tmp/unused-\(UUID().uuidString)") == NC_OK)
        #expect(nc_request_set_output_file(request.handle, nil) == NC_OK)
        let client = try TestClient(config(base: server.baseURL, envelope: nil))
        defer { client.free() }
        let o = client.sync(request)
        #expect(o.rc == NC_OK, "\(o)")
        #expect(o.response?.body == pattern(64))
    }
}
