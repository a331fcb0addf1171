import Testing

@testable import NetCore
@testable import NetCoreBase

/// Which CA bundle variable is read and when it is trusted (CABundleEnvironment.swift,
/// ConnectionSettings.swift); end to end, in processes with the variables set, in
/// Tests/python/test_tls.py and Tests/ncurl/run.sh.
@Suite struct CABundleEnvironmentTests {
    func read(_ vars: [String: String]) -> CABundleEnvironment? { CABundleEnvironment.read { vars[$0] } }
    func text(_ s: CString?) -> String? { s.map { String(cString: $0.pointer) } }

    @Test func curlCABundleWinsOverSSLCertFileAndEmptyIsUnset() {
        #expect(read([:]) == nil)
        #expect(read(["SSL_CERT_FILE": "/b.pem"]) == CABundleEnvironment(variable: "SSL_CERT_FILE", path: "/b.pem"))
        #expect(
            read(["CURL_CA_BUNDLE": "/a.pem", "SSL_CERT_FILE": "/b.pem"])
                == CABundleEnvironment(variable: "CURL_CA_BUNDLE", path: "/a.pem"))
        #expect(read(["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": "/b.pem"])?.path == "/b.pem")
        #expect(read(["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": ""]) == nil)
        // Variables of other libraries are not read.
        #expect(read(["REQUESTS_CA_BUNDLE": "/r.pem", "SSL_CERT_DIR": "/d", "ssl_cert_file": "/l.pem"]) == nil)
    }

    func settings(_ json: String, _ env: CABundleEnvironment?) throws -> ClientSettings {
        ClientSettings(config: try Configuration.parse(json: json).get(), environmentCA: env)
    }

    @Test func theBundleReplacesTheSystemStoreOnlyWhenTLSNamesNoCA() throws {
        let env = CABundleEnvironment(variable: "SSL_CERT_FILE", path: "/env/ca.pem")
        let plain = try settings("{}", env).connection
        #expect(text(plain.caFile) == "/env/ca.pem")
        #expect(plain.caPath == nil, "the bundle alone: no system directory beside it")
        #expect(plain.environmentCA == env)
        // Without the variable: libcurl's built-in store.
        let system = try settings("{}", nil).connection
        #expect(text(system.caFile) == text(CurlGlobal.defaultCAFile))
        #expect(text(system.caPath) == text(CurlGlobal.defaultCAPath))
        #expect(system.environmentCA == nil)
        #expect(!plain.sameOptions(as: system), "a handle moving between them is given the options again")
    }

    @Test func theConfigurationWins() throws {
        let env = CABundleEnvironment(variable: "CURL_CA_BUNDLE", path: "/env/ca.pem")
        // tls.ca_file / tls.ca_path must name readable things: this test file and its directory.
        let file = #filePath
        let dir = String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)])
        let withFile = try settings(#"{"tls":{"ca_file":"\#(file)"}}"#, env).connection
        #expect(text(withFile.caFile) == file && withFile.caPath == nil && withFile.environmentCA == nil)
        let withPath = try settings(#"{"tls":{"ca_path":"\#(dir)"}}"#, env).connection
        #expect(withPath.caFile == nil && text(withPath.caPath) == dir && withPath.environmentCA == nil)
        // An endpoint's own ca_file wins for its requests; one with only pins trusts
        // what the client trusts: the environment's bundle.
        let pin = "sha256//" + String(repeating: "A", count: 43) + "="
        let s = try settings(
            #"{"endpoints":{"own":{"path":"/o","tls":{"ca_file":"\#(file)"}},"pinned":{"path":"/p","tls":{"pinned_public_keys":["\#(pin)"]}}}}"#,
            env)
        #expect(text(s.endpointConnections["own"]?.caFile) == file)
        #expect(text(s.endpointConnections["pinned"]?.caFile) == "/env/ca.pem")
    }

    @Test func readOnceLaterSnapshotsKeepIt() throws {
        let env = CABundleEnvironment(variable: "SSL_CERT_FILE", path: "/env/ca.pem")
        let first = try settings("{}", env)
        var config = first.config
        config.headers.set("X-Later", "1")
        let later = first.with(config: config)
        #expect(later.environmentCA == env)
        #expect(later.connection === first.connection, "unchanged options: the same object, nothing set again")
    }
}
