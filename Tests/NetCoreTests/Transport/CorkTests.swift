import Synchronization
import Testing

@testable import NetCoreBase

/// `NetClient.corked(_:)` (nc_client_cork / nc_client_uncork): every request sent
/// inside completes exactly once with its answer, corks nest, and the client is left
/// uncorked — after the closure returns and after it throws.
@Suite struct CorkTests {
    struct Boom: Error {}

    func client() throws -> (NetClient, TableTransport) {
        let table = TableTransport([.init(method: "GET", path: "/item", answers: [.status(200, body: "ok")])])
        let config = try Configuration.parse(json: #"{"base_url": "http://table.invalid"}"#).get()
        return (try NetClient(configuration: config, transport: table), table)
    }

    @Test func requestsSentWhileCorkedEachCompleteOnce() async throws {
        let (c, table) = try client()
        defer { c.shutdown() }
        let calls = Mutex<[Int]>(Array(repeating: 0, count: 12))
        let answered = Mutex(0)
        let value = try c.corked {
            try c.corked {   // nested
                for i in 0..<12 {
                    let request = try Request(method: "GET", target: "/item?i=\(i)")
                    _ = c.send(request) { response, error in
                        calls.withLock { $0[i] += 1 }
                        if error == nil, response?.status == 200 { answered.withLock { $0 += 1 } }
                    }
                }
            }
            #expect(c.uncork() && c.cork())   // still corked once here (the one taken put back)
            return 7
        }
        #expect(value == 7)
        #expect(await waitUntilAsync { calls.withLock { $0.allSatisfy { $0 >= 1 } } })
        #expect(calls.withLock { $0 } == Array(repeating: 1, count: 12))
        #expect(answered.withLock { $0 } == 12)
        #expect(table.hops("/item") == 12)
        #expect(!c.uncork())   // the count is back to zero: an uncork is refused
    }

    @Test func aThrowingClosureStillUncorks() throws {
        let (c, _) = try client()
        defer { c.shutdown() }
        #expect(throws: Boom.self) { try c.corked { throw Boom() } }
        #expect(!c.uncork())
        #expect(c.cork())
        #expect(c.uncork())
    }
}
