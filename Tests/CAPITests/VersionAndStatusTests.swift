// "Bad input never crashes": NULL handles and strings, unknown enum values, invalid
// UTF-8 and malformed methods/URLs, for every nc_* function.
import CNetCore
import Foundation
import MockServerSupport
import Testing

/// "G" 0xC3 0x28 — 0xC3 starts a two-byte sequence that 0x28 does not continue.
private let badUTF8 = cBytes([0x47, 0xC3, 0x28])
/// "/echo" followed by an invalid sequence.
private let badUTF8Path = cBytes(Array("/echo".utf8) + [0xC3, 0x28])

/// A pointer value that must not be overwritten by a refused call.
nonisolated(unsafe) private let untouched = OpaquePointer(bitPattern: 0x1234_5678)!

@Suite struct VersionAndStatusTests {
    @Test func versionMatchesTheHeader() {
        #expect(string(nc_version()) == NC_VERSION_STRING)
        #expect(nc_version_number() == UInt32((NC_VERSION_MAJOR << 16) | (NC_VERSION_MINOR << 8) | NC_VERSION_PATCH))
    }

    @Test func statusNames() {
        #expect(string(nc_status_str(NC_OK)) == "NC_OK")
        #expect(string(nc_status_str(NC_ERR_INVALID_ARGUMENT)) == "NC_ERR_INVALID_ARGUMENT")
        #expect(string(nc_status_str(NC_ERR_INVALID_STATE)) == "NC_ERR_INVALID_STATE")
        #expect(string(nc_status_str(NC_ERR_NO_MEMORY)) == "NC_ERR_NO_MEMORY")
        #expect(string(nc_status_str(NC_ERR_FAILED)) == "NC_ERR_FAILED")
        for unknown: nc_status in [5, 6, 100, -1, Int32.min, Int32.max] {
            #expect(string(nc_status_str(unknown)) == "NC_UNKNOWN_STATUS", "\(unknown)")
        }
    }

    @Test func stableNumbers() {
        #expect(
            [NC_OK, NC_ERR_INVALID_ARGUMENT, NC_ERR_INVALID_STATE, NC_ERR_NO_MEMORY, NC_ERR_FAILED] == [0, 1, 2, 3, 4])
        #expect(
            [NC_DOMAIN_CLIENT, NC_DOMAIN_TRANSPORT, NC_DOMAIN_HTTP, NC_DOMAIN_API, NC_DOMAIN_PARSE] == [1, 2, 3, 4, 5])
        #expect(
            [
                NC_CLIENT_CANCELLED, NC_CLIENT_UNREACHABLE, NC_CLIENT_INVALID_REQUEST, NC_CLIENT_INVALID_CONFIG,
                NC_CLIENT_RESPONSE_TOO_LARGE, NC_CLIENT_SHUTDOWN, NC_CLIENT_HEADERS_TOO_LARGE, NC_CLIENT_INTERNAL
            ] == Array(1...8))
        #expect(
            [
                NC_PARSE_INVALID_JSON, NC_PARSE_NOT_OBJECT, NC_PARSE_MISSING_FIELD, NC_PARSE_FIELD_TYPE,
                NC_PARSE_DECODING_FAILED, NC_PARSE_DUPLICATE_KEY
            ] == Array(1...6))
        #expect([NC_ENCODING_DEFAULT, NC_ENCODING_QUERY, NC_ENCODING_FORM, NC_ENCODING_JSON] == [0, 1, 2, 3])
    }
}
