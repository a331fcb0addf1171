// "tls" and "http_version" through the C header, against the HTTPS servers of
// Tests/Support/tls_server.py (certificates made at start-up with the openssl
// tool: a CA, server certificates signed by it, a self-signed one, an expired one,
// one for another host, one from an unrelated CA, client certificates).
// Verification is always on: every server the configuration does not trust fails
// with TRANSPORT 60 (CURLE_PEER_FAILED_VERIFICATION), whatever else is set.
import CNetCore
import Foundation
import MockServerSupport
import Testing

@Suite struct TLSTests {
    let tls = TLSServer.shared

    /// A raw-mode client configuration with a "tls" object of these members.
    func tlsConfig(_ members: String..., extra: String? = nil) -> String {
        var parts = [#""envelope":null"#, #""tls":{\#(members.joined(separator: ","))}"#]
        if let extra { parts.append(extra) }
        return "{" + parts.joined(separator: ",") + "}"
    }

    func caFile(_ name: String = "ca") -> String { #""ca_file":"\#(tls.file(name))""# }

    /// The server's description of the request (its JSON envelope's data).
    func served(_ o: Outcome) -> [String: Any]? {
        guard let body = o.response?.bodyText else { return nil }
        return (foundationJSON(body) as? [String: Any])?["data"] as? [String: Any]
    }

    func expectTransport(_ o: Outcome, _ code: Int64, _ what: String, sourceLocation: SourceLocation = #_sourceLocation)
    {
        #expect(o.rc == NC_ERR_FAILED, "\(what): \(o)", sourceLocation: sourceLocation)
        #expect(o.error?.domain == NC_DOMAIN_TRANSPORT, "\(what): \(o)", sourceLocation: sourceLocation)
        #expect(o.error?.code == code, "\(what): \(o)", sourceLocation: sourceLocation)
        #expect(o.response == nil, "\(what): \(o)", sourceLocation: sourceLocation)
    }

    // MARK: verification on by default

    @Test(arguments: ["good", "selfsigned", "expired", "wronghost", "untrusted"])
    func anUntrustedServerFailsByDefault(_ profile: String) throws {
        // The system store knows none of the test CAs.
        let o = try fetch(#"{"envelope":null}"#, tls.url(profile))
        expectTransport(o, 60, profile)
        #expect(o.error?.message.contains("tls.ca_file") == true, "\(o)")
        #expect(o.error?.retryable == 0)
    }

    @Test(arguments: ["selfsigned", "expired", "wronghost", "untrusted"])
    func theTestCAStillRefusesTheBadCertificates(_ profile: String) throws {
        let o = try fetch(tlsConfig(caFile()), tls.url(profile))
        expectTransport(o, 60, profile)
    }

    @Test func messagesSayWhatIsWrongWithTheCertificate() throws {
        let expired = try fetch(tlsConfig(caFile()), tls.url("expired"))
        #expect(expired.error?.message.contains("expired") == true, "\(expired)")
        let wrongHost = try fetch(tlsConfig(caFile()), tls.url("wronghost"))
        #expect(wrongHost.error?.message.contains("127.0.0.1") == true, "\(wrongHost)")
        #expect(wrongHost.error?.message.contains("host name") == true, "\(wrongHost)")
        let selfSigned = try fetch(#"{"envelope":null}"#, tls.url("selfsigned"))
        #expect(selfSigned.error?.message.contains("self-signed") == true, "\(selfSigned)")
    }

    // MARK: trusting a private CA

    @Test func theRightCAFileSucceeds() throws {
        let client = try TestClient(tlsConfig(caFile()))
        for host in ["127.0.0.1", "localhost"] {
            let o = try client.sync(tls.url("good", host: host, path: "/hello"))
            #expect(o.succeeded, "\(host): \(o)")
            #expect(served(o)?["path"] as? String == "/hello")
            #expect(served(o)?["tls_version"] as? String == "TLSv1.3")
        }
    }

    @Test func aSelfSignedDevelopmentServerIsTrustedThroughItsCertificateAsCAFile() throws {
        let o = try fetch(tlsConfig(caFile("selfsigned")), tls.url("selfsigned"))
        #expect(o.succeeded, "\(o)")
        // …and only it: the real CA's servers are not trusted by that file.
        expectTransport(try fetch(tlsConfig(caFile("selfsigned")), tls.url("good")), 60, "good")
    }

    @Test func aCADirectoryWorks() throws {
        let o = try fetch(tlsConfig(#""ca_path":"\#(tls.file("ca_dir"))""#), tls.url("good", host: "localhost"))
        #expect(o.succeeded, "\(o)")
        expectTransport(
            try fetch(tlsConfig(#""ca_path":"\#(tls.file("ca_dir"))""#), tls.url("untrusted")), 60, "untrusted")
    }

    // MARK: pinning

    @Test func theRightPinSucceedsAndAWrongPinFails() throws {
        let right = tls.pins["server"] ?? "", other = tls.pins["other"] ?? ""
        let ok = try fetch(tlsConfig(caFile(), #""pinned_public_keys":["\#(right)"]"#), tls.url("good"))
        #expect(ok.succeeded, "\(ok)")
        let either = try fetch(tlsConfig(caFile(), #""pinned_public_keys":["\#(other)","\#(right)"]"#), tls.url("good"))
        #expect(either.succeeded, "one of several pins: \(either)")
        let wrong = try fetch(tlsConfig(caFile(), #""pinned_public_keys":["\#(other)"]"#), tls.url("good"))
        expectTransport(wrong, 90, "wrong pin")   // CURLE_SSL_PINNEDPUBKEYNOTMATCH
        #expect(wrong.error?.message.contains("tls.pinned_public_keys") == true, "\(wrong)")
        // A pin narrows trust: it never makes an unverified server acceptable.
        let pinnedOnly = try fetch(tlsConfig(#""pinned_public_keys":["\#(right)"]"#), tls.url("good"))
        expectTransport(pinnedOnly, 60, "pin without the CA")
    }

    // MARK: client certificates

    @Test func aClientCertificateReachesAServerThatRequiresOne() throws {
        let pair = try fetch(
            tlsConfig(
                caFile(), #""client_cert":"\#(tls.file("client_cert"))""#,
                #""client_key":"\#(tls.file("client_key"))""#), tls.url("clientauth"))
        #expect(pair.succeeded, "\(pair)")
        #expect(served(pair)?["client_cert"] as? String == "netcore test client")
        let both = try fetch(
            tlsConfig(caFile(), #""client_cert":"\#(tls.file("client_both"))""#), tls.url("clientauth"))
        #expect(served(both)?["client_cert"] as? String == "netcore test client", "\(both)")
    }

    @Test func withoutAnAcceptedClientCertificateTheServerRefuses() throws {
        // The clientauth server speaks TLS 1.2, where the refusal fails the handshake
        // (35, CURLE_SSL_CONNECT_ERROR; under TLS 1.3 it comes after the handshake,
        // as 55 or 56 depending on timing). The message names the likely cause.
        let none = try fetch(tlsConfig(caFile()), tls.url("clientauth"))
        expectTransport(none, 35, "no client certificate")
        #expect(none.error?.message.contains("tls.client_cert") == true, "\(none)")
        let rogue = try fetch(
            tlsConfig(
                caFile(), #""client_cert":"\#(tls.file("rogue_cert"))""#,
                #""client_key":"\#(tls.file("rogue_key"))""#), tls.url("clientauth"))
        expectTransport(rogue, 35, "a certificate of another CA")
        #expect(rogue.error?.message.contains("does not accept the one sent") == true, "\(rogue)")
    }

    // MARK: TLS version

    @Test func minVersionIsEnforced() throws {
        let twelve = try fetch(tlsConfig(caFile()), tls.url("tls12"))
        #expect(twelve.succeeded, "default minimum 1.2: \(twelve)")
        #expect(served(twelve)?["tls_version"] as? String == "TLSv1.2")
        let o = try fetch(tlsConfig(caFile(), #""min_version":"1.3""#), tls.url("tls12"))
        expectTransport(o, 35, "1.3 against a TLS 1.2 server")   // CURLE_SSL_CONNECT_ERROR
        #expect(o.error?.message.contains("tls.min_version") == true, "\(o)")
        let thirteen = try fetch(tlsConfig(caFile(), #""min_version":"1.3""#), tls.url("good"))
        #expect(served(thirteen)?["tls_version"] as? String == "TLSv1.3", "\(thirteen)")
    }

    // MARK: handles and connections shared by requests with different TLS options

    /// One client, one request at a time (so the same pooled easy handle and the
    /// connection cache): an endpoint's CA file or pins never leak to the next
    /// request, and a connection made under other TLS options is never reused.
    @Test func endpointTLSOptionsDoNotLeakToOtherRequests() throws {
        let right = tls.pins["server"] ?? "", other = tls.pins["other"] ?? ""
        let good = tls.url("good", path: "/x")
        let client = try TestClient(
            """
            {"envelope":null,"endpoints":{
              "trusted":{"path":"\(good)","tls":{"ca_file":"\(tls.file("ca"))"}},
              "pinned":{"path":"\(good)","tls":{"ca_file":"\(tls.file("ca"))","pinned_public_keys":["\(right)"]}},
              "wrongpin":{"path":"\(good)","tls":{"ca_file":"\(tls.file("ca"))","pinned_public_keys":["\(other)"]}}}}
            """)
        func call(_ name: String) throws -> Outcome { client.sync(try Request(endpoint: name)) }

        // The endpoint trusts the CA; a plain request right after it, on the same
        // handle and with its connection still open, uses the system store: 60.
        let first = try call("trusted")
        #expect(first.succeeded, "\(first)")
        expectTransport(try client.sync(good), 60, "plain request after the endpoint")
        let again = try call("trusted")
        #expect(again.succeeded, "\(again)")
        // Same options: the connection is reused.
        #expect(served(again)?["connection"] as? Int == served(first)?["connection"] as? Int, "\(again)")
        #expect(served(again)?["request_on_connection"] as? Int == 2, "\(again)")

        // A wrong pin fails although a connection to the same server is open.
        expectTransport(try call("wrongpin"), 90, "wrong pin after a trusted connection")
        let pinned = try call("pinned")
        #expect(pinned.succeeded, "\(pinned)")
        expectTransport(try call("wrongpin"), 90, "wrong pin after a pinned connection")
        let afterPins = try call("trusted")
        #expect(afterPins.succeeded, "the pins did not stay on the handle: \(afterPins)")
        client.free()
    }

    @Test func aClientCertificateIsNotSentByAClientWithoutOne() throws {
        // Two clients in one process (libcurl's TLS session cache is per client):
        // the one without a certificate is refused after the other was accepted.
        let with = try fetch(
            tlsConfig(caFile(), #""client_cert":"\#(tls.file("client_both"))""#), tls.url("clientauth"))
        #expect(with.succeeded, "\(with)")
        expectTransport(try fetch(tlsConfig(caFile()), tls.url("clientauth")), 35, "client without a certificate")
    }

    // MARK: config-time checks: nothing is created with a bad TLS option

    func refused(_ json: String) -> (nc_status, String) {
        var c: OpaquePointer?
        var e: OpaquePointer?
        let rc = nc_client_new(json, &c, &e)
        defer {
            nc_client_free(c)
            nc_error_free(e)
        }
        #expect(c == nil)
        #expect(
            e.map { nc_error_domain($0) == NC_DOMAIN_CLIENT && nc_error_code($0) == Int64(NC_CLIENT_INVALID_CONFIG) }
                == true)
        return (rc, string(nc_error_message(e)) ?? "")
    }

    @Test func badTLSOptionsAreRefusedNamingTheKey() throws {
        let missing = tls.file("missing")
        let cases: [(String, String, String)] = [
            (#""ca_file":"\#(missing)""#, "'tls.ca_file'", "does not exist"),
            (#""ca_path":"\#(missing)""#, "'tls.ca_path'", "does not exist"),
            (#""ca_path":"\#(tls.file("ca"))""#, "'tls.ca_path'", "not a directory"),
            (#""ca_file":"\#(tls.file("ca_dir"))""#, "'tls.ca_file'", "not a regular file"),
            (#""client_cert":"\#(missing)""#, "'tls.client_cert'", "does not exist"),
            (#""client_key":"\#(tls.file("client_key"))""#, "'tls.client_key'", "without tls.client_cert"),
            (#""pinned_public_keys":["abc"]"#, "'tls.pinned_public_keys'", "sha256//"),
            (#""pinned_public_keys":["sha256//short="]"#, "'tls.pinned_public_keys'", "44 characters"),
            (#""pinned_public_keys":"sha256//x""#, "'tls.pinned_public_keys'", "array of strings"),
            (#""min_version":"1.1""#, "'tls.min_version'", #"must be "1.2" or "1.3""#),
            (#""verify":false"#, "'tls.verify'", "Unknown configuration key"),
            (#""ca_file":7"#, "'tls.ca_file'", "must be a string")
        ]
        for (member, key, reason) in cases {
            let (rc, message) = refused(tlsConfig(member))
            #expect(rc == NC_ERR_INVALID_ARGUMENT, "\(member)")
            #expect(message.contains(key), "\(member): \(message)")
            #expect(message.contains(reason), "\(member): \(message)")
        }
        let (rc, message) = refused(#"{"http_version":"3"}"#)
        #expect(rc == NC_ERR_INVALID_ARGUMENT)
        #expect(message.contains("'http_version' must be \"1.1\" or \"2\" or \"2-prior-knowledge\""), "\(message)")
    }

    @Test func anEndpointWithABadTLSOptionIsRefused() throws {
        let (_, message) = refused(
            #"{"endpoints":{"e":{"path":"/x","tls":{"ca_file":"\#(tls.file("missing"))"}}}}"#)
        #expect(message.contains("'endpoints.e.tls.ca_file'"), "\(message)")
        #expect(message.contains("does not exist"), "\(message)")
        let client = try TestClient("{}")
        let rc = nc_client_define_endpoint(client.handle, "e", #"{"path":"/x","tls":{"pinned_public_keys":["x"]}}"#)
        #expect(rc == NC_ERR_INVALID_ARGUMENT)
        let unknown = nc_client_define_endpoint(client.handle, "e", #"{"path":"/x","tls":{"client_cert":"/c"}}"#)
        #expect(unknown == NC_ERR_INVALID_ARGUMENT, "only ca_file and pins per endpoint")
    }

    // MARK: http_version

    @Test func httpVersions() throws {
        let h2 = tls.url("h2", path: "/v")
        let byDefault = try fetch(tlsConfig(caFile()), h2)
        #expect(served(byDefault)?["http"] as? String == "1.1", "default 1.1: \(byDefault)")
        #expect(served(byDefault)?["alpn"] as? String == "http/1.1")
        #expect(byDefault.response?.httpVersion == "HTTP/1.1")
        let two = try fetch(tlsConfig(caFile(), extra: #""http_version":"2""#), h2)
        #expect(served(two)?["http"] as? String == "2", "\(two)")
        #expect(served(two)?["path"] as? String == "/v")
        #expect(two.response?.httpVersion == "HTTP/2", "nc_response_http_version says what was negotiated")
        // "2" over https to a server without HTTP/2: HTTP/1.1, as libcurl falls back.
        let fallback = try fetch(tlsConfig(caFile(), extra: #""http_version":"2""#), tls.url("good"))
        #expect(served(fallback)?["http"] as? String == "1.1", "\(fallback)")
        #expect(fallback.response?.httpVersion == "HTTP/1.1")
        // Prior knowledge on a plain connection.
        let h2c = "http://127.0.0.1:\(tls.ports["h2c"] ?? 0)/p"
        let prior = try fetch(#"{"envelope":null,"http_version":"2-prior-knowledge"}"#, h2c)
        #expect(served(prior)?["http"] as? String == "2", "\(prior)")
        #expect(prior.response?.httpVersion == "HTTP/2")
        // "2" on http:// stays HTTP/1.1 (no upgrade): the h2c server cannot answer it.
        let plain = try fetch(#"{"envelope":null,"http_version":"2"}"#, h2c)
        #expect(plain.error?.domain == NC_DOMAIN_TRANSPORT, "\(plain)")
    }

    /// A burst on a new client with "http_version": "2": every answer says HTTP/2
    /// and all came on one connection. This Python test server finishes its TLS
    /// handshake too fast to expose the race CURLOPT_PIPEWAIT closes (libcurl opened
    /// one connection here even without it); the check that fails without
    /// PIPEWAIT is the conformance suite's `test_h2_burst`, against nginx's log
    /// (8 connections before, 1 after).
    @Test func anHTTP2BurstSharesOneConnection() throws {
        let client = try TestClient(tlsConfig(caFile(), extra: #""http_version":"2""#))
        defer { client.free() }
        let url = tls.url("h2", path: "/burst")
        // Built first, then sent in one tight loop: all 30 reach the loop while the
        // first connection's TLS handshake is still under way.
        let requests = try (0..<30).map { _ in try Request("GET", url) }
        let collectors = requests.map { _ in Collector() }
        for (r, c) in zip(requests, collectors) {
            let (rc, task) = client.send(r, c, task: false)
            #expect(rc == NC_OK)
            _ = task
        }
        var connections = Set<Int>()
        for c in collectors {
            #expect(c.wait(timeout: 30))
            let o = try #require(c.outcome)
            #expect(o.succeeded, "\(o)")
            #expect(o.response?.httpVersion == "HTTP/2")
            if let n = served(o)?["connection"] as? Int { connections.insert(n) }
        }
        #expect(connections.count == 1, "connections used by the burst: \(connections.sorted())")
    }
}
