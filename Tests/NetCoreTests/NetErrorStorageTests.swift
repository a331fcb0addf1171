import Testing

@testable import NetCoreBase

/// NetError keeps its fields in one shared object, copied when a copy changes
/// (NetError.swift): a copy must still behave as an independent value.
@Suite struct NetErrorStorageTests {
    @Test func changingACopyLeavesTheOriginalAndTheSharedConstantsAlone() {
        let original = NetError.cancelled
        var copy = original
        copy.attempts = 3
        copy.message = "changed"
        copy.timeout = .idle
        #expect(copy.attempts == 3 && copy.message == "changed" && copy.timeout == .idle)
        #expect(original.attempts == 0 && original.timeout == nil)
        #expect(original.message.hasPrefix("The request was cancelled"))
        // The shared constant every cancelled request starts from is unchanged too.
        #expect(NetError.cancelled.attempts == 0 && NetError.cancelled.message == original.message)
        let attempted = NetError.shutdown.attempted(2)
        #expect(attempted.attempts == 2 && NetError.shutdown.attempts == 0)
    }

    @Test func theCopyMadeOnAChangeKeepsEveryOtherField() throws {
        var e = NetError(domain: .api, code: 401_001, codeString: "401001", message: "token expired")
        e.httpStatus = 200
        e.traceID = "t-1"
        e.data = try JSONValue.parse(#"{"a":1}"#).get()
        e.body = NetBytes(#"{"code":401001}"#)
        e.attempts = 2
        e.isRetryable = true
        e.isAuthExpired = true
        e.timeout = .total
        var changed = e   // shares e's fields until the next line copies them
        changed.code = 7
        #expect(changed.code == 7 && e.code == 401_001)
        #expect(changed.domain == .api && changed.codeString == "401001" && changed.message == "token expired")
        #expect(changed.httpStatus == 200 && changed.traceID == "t-1" && changed.attempts == 2)
        #expect(changed.isRetryable && changed.isAuthExpired && changed.timeout == .total)
        #expect(changed.body?.count == e.body?.count && changed.body != nil)
        #expect(changed.data?.text == e.data?.text && changed.data != nil)
    }
}
