// NetCore sits below the C header and cannot import it, so the numbers it declares
// (domains, NC_CLIENT_* / NC_PARSE_* codes, encodings) and its version agree with
// include/netcore.h by this test. Each switch is exhaustive: a NetCore case without a
// header macro does not compile; the header scan catches a macro without a case.
import CNetCore
import Foundation
import MockServerSupport
import NetCore
import Testing

@Suite struct HeaderAgreementTests {
    /// The names of the `#define PREFIX...` macros of include/netcore.h.
    static func macros(_ prefix: String) throws -> Set<String> {
        let header = try String(contentsOfFile: MockServer.repositoryRoot + "/include/netcore.h", encoding: .utf8)
        var names = Set<String>()
        for line in header.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count >= 3, words[0] == "#define", words[1].hasPrefix(prefix) { names.insert(String(words[1])) }
        }
        return names
    }

    static func macro(_ d: NetError.Domain) -> (String, nc_domain) {
        switch d {
        case .client: return ("NC_DOMAIN_CLIENT", NC_DOMAIN_CLIENT)
        case .transport: return ("NC_DOMAIN_TRANSPORT", NC_DOMAIN_TRANSPORT)
        case .http: return ("NC_DOMAIN_HTTP", NC_DOMAIN_HTTP)
        case .api: return ("NC_DOMAIN_API", NC_DOMAIN_API)
        case .parse: return ("NC_DOMAIN_PARSE", NC_DOMAIN_PARSE)
        }
    }

    static func macro(_ c: NetError.ClientCode) -> (String, Int32) {
        switch c {
        case .cancelled: return ("NC_CLIENT_CANCELLED", NC_CLIENT_CANCELLED)
        case .unreachable: return ("NC_CLIENT_UNREACHABLE", NC_CLIENT_UNREACHABLE)
        case .invalidRequest: return ("NC_CLIENT_INVALID_REQUEST", NC_CLIENT_INVALID_REQUEST)
        case .invalidConfig: return ("NC_CLIENT_INVALID_CONFIG", NC_CLIENT_INVALID_CONFIG)
        case .responseTooLarge: return ("NC_CLIENT_RESPONSE_TOO_LARGE", NC_CLIENT_RESPONSE_TOO_LARGE)
        case .shutdown: return ("NC_CLIENT_SHUTDOWN", NC_CLIENT_SHUTDOWN)
        case .headersTooLarge: return ("NC_CLIENT_HEADERS_TOO_LARGE", NC_CLIENT_HEADERS_TOO_LARGE)
        case .internalError: return ("NC_CLIENT_INTERNAL", NC_CLIENT_INTERNAL)
        case .adapterFailed: return ("NC_CLIENT_ADAPTER_FAILED", NC_CLIENT_ADAPTER_FAILED)
        case .deadlineExceeded: return ("NC_CLIENT_DEADLINE_EXCEEDED", NC_CLIENT_DEADLINE_EXCEEDED)
        case .authRefreshFailed: return ("NC_CLIENT_AUTH_REFRESH_FAILED", NC_CLIENT_AUTH_REFRESH_FAILED)
        case .noStub: return ("NC_CLIENT_NO_STUB", NC_CLIENT_NO_STUB)
        case .notCached: return ("NC_CLIENT_NOT_CACHED", NC_CLIENT_NOT_CACHED)
        }
    }

    static func macro(_ c: NetError.ParseCode) -> (String, Int32) {
        switch c {
        case .invalidJSON: return ("NC_PARSE_INVALID_JSON", NC_PARSE_INVALID_JSON)
        case .notObject: return ("NC_PARSE_NOT_OBJECT", NC_PARSE_NOT_OBJECT)
        case .missingField: return ("NC_PARSE_MISSING_FIELD", NC_PARSE_MISSING_FIELD)
        case .fieldType: return ("NC_PARSE_FIELD_TYPE", NC_PARSE_FIELD_TYPE)
        case .decodingFailed: return ("NC_PARSE_DECODING_FAILED", NC_PARSE_DECODING_FAILED)
        case .duplicateKey: return ("NC_PARSE_DUPLICATE_KEY", NC_PARSE_DUPLICATE_KEY)
        }
    }

    static func macro(_ e: ParameterEncoding) -> (String, Int32) {
        switch e {
        case .default: return ("NC_ENCODING_DEFAULT", NC_ENCODING_DEFAULT)
        case .query: return ("NC_ENCODING_QUERY", NC_ENCODING_QUERY)
        case .form: return ("NC_ENCODING_FORM", NC_ENCODING_FORM)
        case .json: return ("NC_ENCODING_JSON", NC_ENCODING_JSON)
        }
    }

    @Test func domains() throws {
        for d in NetError.Domain.allCases {
            let (name, value) = Self.macro(d)
            #expect(d.rawValue == value, "\(d) is \(d.rawValue), \(name) is \(value)")
        }
        #expect(Set(NetError.Domain.allCases.map { Self.macro($0).0 }) == (try Self.macros("NC_DOMAIN_")))
    }

    @Test func clientCodes() throws {
        for c in NetError.ClientCode.allCases {
            let (name, value) = Self.macro(c)
            #expect(c.rawValue == Int64(value), "\(c) is \(c.rawValue), \(name) is \(value)")
        }
        #expect(Set(NetError.ClientCode.allCases.map { Self.macro($0).0 }) == (try Self.macros("NC_CLIENT_")))
    }

    @Test func parseCodes() throws {
        for c in NetError.ParseCode.allCases {
            let (name, value) = Self.macro(c)
            #expect(c.rawValue == Int64(value), "\(c) is \(c.rawValue), \(name) is \(value)")
        }
        #expect(Set(NetError.ParseCode.allCases.map { Self.macro($0).0 }) == (try Self.macros("NC_PARSE_")))
    }

    @Test func encodings() throws {
        for e in ParameterEncoding.allCases {
            let (name, value) = Self.macro(e)
            #expect(e.rawValue == value, "\(e) is \(e.rawValue), \(name) is \(value)")
        }
        #expect(Set(ParameterEncoding.allCases.map { Self.macro($0).0 }) == (try Self.macros("NC_ENCODING_")))
    }

    /// NetCoreVersion (NetCore) and nc_version() / nc_version_number() (built from the
    /// macros in Sources/CNetAPI/Version.swift) describe the header's version.
    @Test func version() {
        #expect(NetCoreVersion.major == UInt32(NC_VERSION_MAJOR))
        #expect(NetCoreVersion.minor == UInt32(NC_VERSION_MINOR))
        #expect(NetCoreVersion.patch == UInt32(NC_VERSION_PATCH))
        #expect(NetCoreVersion.string == NC_VERSION_STRING)
        #expect(NC_VERSION_STRING == "\(NC_VERSION_MAJOR).\(NC_VERSION_MINOR).\(NC_VERSION_PATCH)")
        #expect(NetCoreVersion.number == nc_version_number())
        #expect(string(nc_version()) == NetCoreVersion.string)
    }
}
