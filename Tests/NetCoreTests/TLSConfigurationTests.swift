import Foundation
import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// The TLS, proxy and HTTP-version settings built in Swift (Configuration+Swift.swift)
/// against the HTTPS servers of Tests/Support/tls_server.py; the same cases through
/// the C header are in CAPITests/TLSTests.swift.
@Suite struct TLSConfigurationTests {
    let tls = TLSServer.shared

    func send(_ config: Configuration, _ url: String) async -> Result<Response, NetError> {
        do {
            let client = try NetClient(configuration: config)
            defer { _ = client.shutdown() }
            return .success(try await client.send(Request(method: "GET", target: url)))
        } catch {
            return .failure(error)
        }
    }

    @Test func aPrivateCAAPinAndAClientCertificateInSwift() async throws {
        let config = Configuration(
            baseURL: nil,
            tls: TLSOptions(
                caFile: tls.file("ca"), clientCert: tls.file("client_cert"), clientKey: tls.file("client_key"),
                pinnedPublicKeys: [tls.pins["server"] ?? ""]))
        let response = try await send(config, tls.url("clientauth")).get()
        #expect(response.status == 200)
        #expect(response.body.text.contains(#""client_cert":"netcore test client""#), "\(response.body.text)")

        var wrongPin = config
        wrongPin.tls.pinnedPublicKeys = [tls.pins["other"] ?? ""]
        guard case .failure(let e) = await send(wrongPin, tls.url("clientauth")) else {
            Issue.record("a wrong pin succeeded")
            return
        }
        #expect(e.domain == .transport && e.code == 90, "\(e.message)")
    }

    @Test func withoutACAFileTheSystemStoreRefusesTheTestServer() async {
        guard case .failure(let e) = await send(Configuration(), tls.url("good")) else {
            Issue.record("an unknown CA was trusted")
            return
        }
        #expect(e.domain == .transport && e.code == 60)
        #expect(e.message.contains("tls.ca_file"), "\(e.message)")
    }

    @Test func http2InSwift() async throws {
        var config = Configuration(baseURL: nil, tls: TLSOptions(caFile: tls.file("ca")), httpVersion: .http2)
        let two = try await send(config, tls.url("h2")).get()
        #expect(two.body.text.contains(#""http":"2""#), "\(two.body.text)")
        config.httpVersion = .http1_1
        let one = try await send(config, tls.url("h2")).get()
        #expect(one.body.text.contains(#""http":"1.1""#), "\(one.body.text)")
    }

    @Test func validateRefusesBadTLSAndProxyValuesNamingTheProperty() {
        let missing = tls.file("missing")
        let cases: [(Configuration, String)] = [
            (Configuration(baseURL: nil, tls: TLSOptions(caFile: missing)), "Configuration.tls.caFile"),
            (Configuration(baseURL: nil, tls: TLSOptions(caPath: tls.file("ca"))), "Configuration.tls.caPath"),
            (
                Configuration(baseURL: nil, tls: TLSOptions(clientKey: tls.file("client_key"))),
                "Configuration.tls.clientKey"
            ),
            (
                Configuration(baseURL: nil, tls: TLSOptions(pinnedPublicKeys: ["md5//x"])),
                "Configuration.tls.pinnedPublicKeys"
            ),
            (Configuration(baseURL: nil, proxy: ProxyOptions(url: "gopher://p")), "Configuration.proxy.url")
        ]
        for (config, name) in cases {
            do {
                _ = try NetClient(configuration: config)
                Issue.record("\(name): accepted")
            } catch {
                #expect(error.code == NetError.ClientCode.invalidConfig.rawValue, "\(name)")
                #expect(error.message.hasPrefix(name), "\(error.message)")
            }
        }
    }

    @Test func anEndpointsTLSReplacesTheClients() async throws {
        let endpoint = try Endpoint(
            name: "private", path: tls.url("good", path: "/e"), tls: EndpointTLS(caFile: tls.file("ca")))
        var config = Configuration()
        config.endpoints = EndpointCatalog([endpoint])
        let client = try NetClient(configuration: config)
        defer { _ = client.shutdown() }
        let ok = try await client.send(Request(endpoint: "private"))
        #expect(ok.status == 200)
        #expect(throws: NetError.self) {
            _ = try Endpoint(name: "bad", path: "/x", tls: EndpointTLS(pinnedPublicKeys: ["nope"]))
        }
    }
}
