import Glibc
import MockServerSupport
import Synchronization
import Testing

@testable import NetCore
@testable import NetCoreBase

/// A response's body and header lines share one block (ncsink_take): each part
/// stays intact and outlives the response object.
@Suite struct ResponseBlockTests {
    let server = MockServer.shared

    @Test(arguments: ["/chunked?chunks=7", "/env/code/ok", "/large?bytes=300000", "/nocontent"])
    func bodyAndHeadersSurviveTheResponseAndEachOther(path: String) throws {
        let c = try NetClient(json: #"{"base_url":"\#(server.baseURL)"}"#)
        defer { c.shutdown() }
        let reference = try #require(try c.sendSync(try Request(method: "GET", target: path)).get().0)
        let expectedBody = reference.body.array
        var response: Response? = try c.sendSync(try Request(method: "GET", target: path)).get().0
        try #require(response != nil)
        let headers = try #require(response?.headers)
        let body = try #require(response?.body)
        response = nil
        // Indexing the headers rewrites their bytes in place; the body next to them
        // must not change, and both outlive the response.
        #expect(headers.count >= 2)
        #expect(headers.value("date") != nil)
        if path.hasPrefix("/chunked") {
            #expect(headers.value("transfer-encoding") == "chunked")
        } else if !path.hasPrefix("/nocontent") {
            #expect(headers.value("content-length") == String(expectedBody.count))
        }
        #expect(body.array == expectedBody)
        #expect(body.pointer[body.count] == 0)
        #expect(headers.all.count == headers.count)
    }
}
