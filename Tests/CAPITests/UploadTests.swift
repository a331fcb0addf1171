// Uploads through the C API (include/netcore.h "Request builder", docs/uploads.md): a body
// streamed from a file, multipart/form-data parsed by the server with Python's
// standard library, files checked at send, retries that send the whole file again.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct UploadTests {
    let server = MockServer.shared

    /// A file of `count` deterministic bytes in a fresh temporary directory, and its SHA-256.
    func makeFile(_ count: Int, name: String = "body.bin") throws -> (path: String, dir: URL, sha256: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nc-up-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        var bytes = [UInt8](repeating: 0, count: count)
        var x: UInt32 = 2_463_534_242
        for i in 0..<count {
            x ^= x << 13
            x ^= x >> 17
            x ^= x << 5
            bytes[i] = UInt8(truncatingIfNeeded: x)
        }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return (path, dir, sha256Hex(bytes))
    }

    /// SHA-256 in hex, through the mock server's own echo of a small body (no CryptoKit here).
    func sha256Hex(_ bytes: [UInt8]) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "python3", "-c", "import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())"
        ]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try? p.run()
        input.fileHandleForWriting.write(Data(bytes))
        try? input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aBodyFileIsStreamedAndArrivesWhole() throws {
        let f = try makeFile(6_000_000)
        defer { try? FileManager.default.removeItem(at: f.dir) }
        let o = try fetch(config(base: server.baseURL, envelope: Envelope.a), "/upload/echo", method: "POST") {
            #expect(nc_request_set_body_file($0.handle, f.path, "application/x-test") == NC_OK)
        }
        #expect(o.succeeded, "\(o)")
        let echo = try #require(o.echo)
        #expect(echo["length"] as? Int == 6_000_000)
        #expect(echo["sha256"] as? String == f.sha256)
        #expect(echo["content_type"] as? String == "application/x-test")
        #expect(echo["method"] as? String == "POST")
    }

    @Test func aMissingFileFailsTheRequestNamingItAndNothingIsSent() throws {
        let key = uniqueKey()
        let path = "/nonexistent/nc-\(key).bin"
        let o = try fetch(config(base: server.baseURL, envelope: Envelope.a), "/upload/echo?key=\(key)", method: "PUT")
        {
            #expect(nc_request_set_body_file($0.handle, path, nil) == NC_OK)
        }
        #expect(o.rc == NC_ERR_FAILED)
        #expect(o.error?.domain == NC_DOMAIN_CLIENT)
        #expect(o.error?.code == Int64(NC_CLIENT_INVALID_REQUEST))
        #expect(o.error?.message.contains("cannot read the upload file '\(path)'") == true, "\(o)")
        #expect(o.error?.attempts == 0)
        // A multipart file part is checked the same way.
        let m = try fetch(
            config(base: server.baseURL, envelope: Envelope.a), "/upload/multipart?key=\(key)", method: "POST"
        ) {
            #expect(nc_request_add_part($0.handle, "a", "1", 1, nil, nil) == NC_OK)
            #expect(nc_request_add_file_part($0.handle, "f", path, nil, nil) == NC_OK)
        }
        #expect(m.error?.code == Int64(NC_CLIENT_INVALID_REQUEST))
        #expect(hits(key) == 0)
    }

    @Test func aPUTFromAFileRetriedByThePolicySendsTheWholeFileAgain() throws {
        let f = try makeFile(300_000)
        defer { try? FileManager.default.removeItem(at: f.dir) }
        let key = uniqueKey()
        let cfg = config(
            base: server.baseURL, envelope: Envelope.a,
            #""retry":{"max_attempts":3,"initial_ms":10,"jitter":false,"statuses":[503]}"#)
        let o = try fetch(cfg, "/upload/flaky?key=\(key)&fails=2", method: "PUT") {
            #expect(nc_request_set_body_file($0.handle, f.path, nil) == NC_OK)
        }
        #expect(o.succeeded, "\(o)")
        #expect(o.echo?["length"] as? Int == 300_000)
        #expect(o.echo?["sha256"] as? String == f.sha256)
        #expect(hits(key) == 3)
    }

    /// Each attempt opens the body file again: a retry sends the file as it is
    /// then, with its length then — rewritten in place (shorter) or replaced by a
    /// rename between the attempts (done here by the retry handler, which runs
    /// between them).
    @Test func aRetrySendsTheBodyFileAsItIsWhenTheAttemptStarts() throws {
        for replace in [false, true] {
            let f = try makeFile(300_000)
            defer { try? FileManager.default.removeItem(at: f.dir) }
            let newer = try makeFile(100_000, name: "newer.bin")
            defer { try? FileManager.default.removeItem(at: newer.dir) }
            let box = RetryBox { _, _, attempt in
                guard attempt == 1 else { return -2 }
                if replace {
                    _ = rename(newer.path, f.path)
                } else if let data = FileManager.default.contents(atPath: newer.path),
                    let h = FileHandle(forWritingAtPath: f.path)
                {
                    h.truncateFile(atOffset: 0)
                    h.write(data)
                    h.closeFile()
                }
                return 0
            }
            let key = uniqueKey()
            let c = try TestClient(config(base: server.baseURL, envelope: Envelope.a))
            defer { c.free() }
            #expect(nc_client_set_retry_handler(c.handle, retryBoxFn, box.userdata) == NC_OK)
            let o = try c.sync("/upload/flaky?key=\(key)&fails=1", method: "PUT") {
                #expect(nc_request_set_body_file($0.handle, f.path, nil) == NC_OK)
            }
            #expect(o.succeeded, "replace \(replace): \(o)")
            #expect(o.echo?["length"] as? Int == 100_000, "replace \(replace)")
            #expect(o.echo?["sha256"] as? String == newer.sha256, "replace \(replace)")
            #expect(hits(key) == 2)
        }
    }

    /// Signing covers a body file (its SHA-256, read when the attempt starts) and
    /// the server verifies it; a multipart body cannot be signed (libcurl makes its
    /// boundary while sending) and is refused with nothing sent, as is a body file
    /// that cannot be read.
    @Test func aSignedUploadCoversTheFileAndAMultipartOneIsRefused() throws {
        let f = try makeFile(200_000)
        defer { try? FileManager.default.removeItem(at: f.dir) }
        let signing = #""signing":{"secret":"mock-signing-secret"}"#
        let o = try fetch(config(base: server.baseURL, envelope: Envelope.a, signing), "/signed?b=2&a=1", method: "PUT")
        {
            #expect(nc_request_set_body_file($0.handle, f.path, nil) == NC_OK)
        }
        #expect(o.succeeded, "\(o)")
        #expect(o.echo?["verified"] as? Bool == true)
        #expect((o.echo?["string_to_sign"] as? String)?.contains("\n\(f.sha256)\n") == true, "\(o)")

        let quiet = try privateServer()
        defer { quiet.stop() }
        let m = try fetch(config(base: quiet.baseURL, envelope: Envelope.a, signing), "/signed", method: "POST") {
            #expect(nc_request_add_part($0.handle, "a", "1", 1, nil, nil) == NC_OK)
        }
        #expect(m.error?.domain == NC_DOMAIN_CLIENT)
        #expect(m.error?.code == Int64(NC_CLIENT_INVALID_REQUEST))
        #expect(m.error?.message.contains("a multipart body cannot be signed") == true, "\(m)")
        #expect(m.error?.attempts == 0)
        let missing = f.dir.appendingPathComponent("gone.bin").path
        let g = try fetch(config(base: quiet.baseURL, envelope: Envelope.a, signing), "/signed", method: "PUT") {
            #expect(nc_request_set_body_file($0.handle, missing, nil) == NC_OK)
        }
        #expect(g.error?.code == Int64(NC_CLIENT_INVALID_REQUEST))
        #expect(g.error?.message.contains("'\(missing)'") == true, "\(g)")
        #expect(serverStats(quiet).paths["/signed"] == nil)
    }

    @Test func multipartFieldsAndFilesAreParsedByTheServer() throws {
        let f = try makeFile(100_000, name: "photo.jpg")
        defer { try? FileManager.default.removeItem(at: f.dir) }
        let o = try fetch(config(base: server.baseURL, envelope: Envelope.a), "/upload/multipart", method: "POST") {
            #expect(nc_request_add_part($0.handle, "title", "hello", 5, nil, nil) == NC_OK)
            #expect(nc_request_add_part($0.handle, "note", "ünïcödé", 11, "résumé.txt", "text/plain") == NC_OK)
            #expect(nc_request_add_part($0.handle, "we\"ird", "x", 1, "a \"quoted\" name.txt", nil) == NC_OK)
            #expect(nc_request_add_file_part($0.handle, "photo", f.path, nil, "image/jpeg") == NC_OK)
            #expect(nc_request_add_file_part($0.handle, "again", f.path, "renamed.bin", nil) == NC_OK)
        }
        #expect(o.succeeded, "\(o)")
        let echo = try #require(o.echo)
        #expect((echo["content_type"] as? String)?.hasPrefix("multipart/form-data; boundary=") == true)
        let parts = try #require(echo["parts"] as? [[String: Any]])
        try #require(parts.count == 5)
        #expect(parts[0]["name"] as? String == "title")
        #expect(parts[0]["text"] as? String == "hello")
        #expect(parts[0]["filename"] is NSNull)
        #expect(parts[1]["name"] as? String == "note")
        #expect(parts[1]["filename"] as? String == "résumé.txt")
        #expect(parts[1]["text"] as? String == "ünïcödé")
        #expect(parts[1]["content_type"] as? String == "text/plain")
        // HTML5 escaping, as browsers send it: a quote is %22 (never a broken header).
        #expect(parts[2]["name"] as? String == "we%22ird")
        #expect(parts[2]["filename"] as? String == "a %22quoted%22 name.txt")
        #expect(parts[3]["name"] as? String == "photo")
        #expect(parts[3]["filename"] as? String == "photo.jpg")
        #expect(parts[3]["content_type"] as? String == "image/jpeg")
        #expect(parts[3]["length"] as? Int == 100_000)
        #expect(parts[3]["sha256"] as? String == f.sha256)
        #expect(parts[4]["filename"] as? String == "renamed.bin")
        #expect(parts[4]["sha256"] as? String == f.sha256)
    }

    /// Names and file names with `"`, CR, LF, backslash and UTF-8 go on the wire as
    /// a browser sends them (HTML5: `"` %22, CR %0D, LF %0A, the rest as is), and
    /// Python's cgi.FieldStorage reads back exactly that.
    @Test func awkwardNamesArriveAsABrowserSendsThem() throws {
        let cases: [(name: String, wire: String, file: String, wireFile: String)] = [
            ("we\"ird", "we%22ird", "a \"q\".txt", "a %22q%22.txt"),
            ("line\r\nbreak", "line%0D%0Abreak", "two\nlines.bin", "two%0Alines.bin"),
            ("back\\slash", "back\\slash", "C:\\dir\\f.txt", "C:\\dir\\f.txt"),
            ("ünï", "ünï", "résumé.pdf", "résumé.pdf")
        ]
        let o = try fetch(config(base: server.baseURL, envelope: Envelope.a), "/upload/multipart", method: "POST") {
            for c in cases {
                #expect(nc_request_add_part($0.handle, c.name, "v", 1, nil, nil) == NC_OK)
                #expect(nc_request_add_part($0.handle, c.name, "f", 1, c.file, nil) == NC_OK)
            }
        }
        #expect(o.succeeded, "\(o)")
        let parts = try #require(o.echo?["parts"] as? [[String: Any]])
        try #require(parts.count == 2 * cases.count)
        for (i, c) in cases.enumerated() {
            let field = parts[2 * i], file = parts[2 * i + 1]
            #expect(field["disposition"] as? String == "form-data; name=\"\(c.wire)\"")
            #expect(field["cgi_name"] as? String == c.wire)
            #expect(field["cgi_filename"] is NSNull)
            #expect(field["content_type"] is NSNull)
            #expect(file["disposition"] as? String == "form-data; name=\"\(c.wire)\"; filename=\"\(c.wireFile)\"")
            #expect(file["cgi_filename"] as? String == c.wireFile)
        }
        // A file without a type: from its extension, else application/octet-stream.
        #expect(parts[1]["content_type"] as? String == "text/plain")
        #expect(parts[3]["content_type"] as? String == "application/octet-stream")
        #expect(parts[7]["content_type"] as? String == "application/pdf")
    }

    /// A POST from a file, or a multipart POST, whose kept-alive connection the
    /// server closes after reading it is sent once: libcurl would resend it by itself.
    @Test func aDroppedPOSTFromAFileIsSentOnce() throws {
        let f = try makeFile(400_000)
        defer { try? FileManager.default.removeItem(at: f.dir) }
        let client = try TestClient(config(base: server.baseURL, envelope: Envelope.a))
        defer { client.free() }
        let bodies: [(String, (Request) -> Void)] = [
            ("body file", { #expect(nc_request_set_body_file($0.handle, f.path, nil) == NC_OK) }),
            ("file part", { #expect(nc_request_add_file_part($0.handle, "f", f.path, nil, nil) == NC_OK) }),
            ("field", { #expect(nc_request_add_part($0.handle, "a", "1", 1, nil, nil) == NC_OK) })
        ]
        for (what, build) in bodies {
            #expect(try client.sync("/env/code/ok").succeeded)   // a kept-alive connection to reuse
            let key = uniqueKey()
            let o = try client.sync("/drop?key=\(key)", method: "POST", build)
            let e = try #require(o.error, "\(what)")
            #expect(e.domain == NC_DOMAIN_TRANSPORT)
            #expect([52, 65].contains(e.code), "\(what): \(e)")
            #expect(e.attempts == 1)
            #expect(hits(key) == 1, "\(what) was sent \(hits(key)) times")
        }
    }

    @Test func badArgumentsChangeNothing() throws {
        var r: OpaquePointer?
        #expect(nc_request_new("POST", "/upload/echo", &r) == NC_OK)
        defer { nc_request_free(r) }
        #expect(nc_request_set_body_file(nil, "/tmp/x", nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_body_file(r, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_body_file(r, "", nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_set_body_file(r, "/tmp/x", "text/plain\r\nX: y") == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_add_part(r, nil, "x", 1, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_add_part(r, "", "x", 1, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_add_part(r, "a", nil, 1, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_add_file_part(r, "a", nil, nil, nil) == NC_ERR_INVALID_ARGUMENT)
        #expect(nc_request_add_file_part(r, "a", "", nil, nil) == NC_ERR_INVALID_ARGUMENT)
        // Nothing changed: the request still sends no body.
        let client = try TestClient(config(base: server.baseURL, envelope: Envelope.a))
        defer { client.free() }
        var resp: OpaquePointer?
        var err: OpaquePointer?
        #expect(nc_client_send_sync(client.handle, r, &resp, &err) == NC_OK)
        defer { nc_response_free(resp); nc_error_free(err) }
        let o = Outcome(response: resp, error: err)
        #expect(o.echo?["length"] as? Int == 0, "\(o)")
    }
}
