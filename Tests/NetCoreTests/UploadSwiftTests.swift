import Foundation
import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// Uploads from the Swift API: `Request.setBodyFile` and multipart parts.
@Suite struct UploadSwiftTests {
    struct Echo: Decodable {
        let length: Int
        let content_type: String?
    }
    struct Part: Decodable {
        let filename: String?
        let length: Int
        let text: String
    }
    struct Parts: Decodable { let parts: [Part] }

    let server = MockServer.shared

    @Test func aBodyFileAndMultipartPartsGoThroughSend() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nc-up-swift-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("report.csv").path
        let content = Array(repeating: Array("a,b,c\n".utf8), count: 50_000).flatMap { $0 }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(content)))
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)","envelope":{}}"#)
        defer { c.shutdown() }

        var put = try Request(method: "PUT", target: "/upload/echo")
        try put.setBodyFile(path: path, contentType: "text/csv")
        let echoed = try await c.send(put)
        let echo = try echoed.decode(Echo.self)
        #expect(echo.length == content.count)
        #expect(echo.content_type == "text/csv")

        var form = try Request(method: "POST", target: "/upload/multipart")
        try form.addPart(name: "title", data: Array("hello".utf8))
        try form.addFilePart(name: "report", path: path, contentType: "text/csv")
        let parsed = try await c.send(form)
        let parts = try parsed.decode(Parts.self).parts
        #expect(parts.count == 2)
        #expect(parts.first?.text == "hello")
        #expect(parts.last?.filename == "report.csv")
        #expect(parts.last?.length == content.count)

        // A later raw body replaces the upload; setting a part replaces the raw body.
        try form.setBody(UnsafeRawBufferPointer(start: nil, count: 0), contentType: nil)
        #expect(form.upload == nil)
        #expect(throws: NetError.self) { try form.addPart(name: "", data: [UInt8]()) }
    }
}
