import Testing
import NetCore
import MockServerSupport

@Test func envelopeSuccessThroughTheCore() throws {
    let server = MockServer.shared
    let client = try Client(json: #"{"base_url":"\#(server.baseURL)","envelope":{}}"#)
    defer { client.shutdown() }
    let request = try Request(method: "GET", target: "/env/code/ok")
    guard case .success(let (response, error)) = client.sendSync(request) else {
        Issue.record("refused"); return
    }
    #expect(error == nil)
    #expect(response?.status == 200)
    #expect(response?.data?.text == #"{"id":7,"name":"Ada"}"#)
}
