import Testing

@testable import NetCore
@testable import NetCoreBase

/// The catalog's pure parts: spec parsing, path templates, resolution of a request
/// naming an endpoint into the plain request it stands for. No server.
@Suite struct EndpointCatalogTests {
    func endpoint(_ name: String, _ spec: String) throws -> Endpoint {
        try Endpoint.parse(name: name, json: spec)
    }

    func params(_ text: String) throws -> JSONValue { try JSONValue.parse(text).get() }

    @Test func placeholders() {
        #expect(Endpoint.placeholders(in: "/users/{id}/posts/{post}") == ["id", "post"])
        #expect(Endpoint.placeholders(in: "/plain") == [])
        #expect(Endpoint.placeholders(in: "/x/{id") == nil)
        #expect(Endpoint.placeholders(in: "/x/id}") == nil)
        #expect(Endpoint.placeholders(in: "/x/{}") == nil)
        #expect(Endpoint.placeholders(in: "/x/{a{b}}") == nil)
    }

    @Test func pathSegments() {
        #expect(Endpoint.pathSegment("a/b c?d#e%f") == "a%2Fb%20c%3Fd%23e%25f")
        #expect(Endpoint.pathSegment("é") == "%C3%A9")
        #expect(Endpoint.pathSegment("..") == "%2E%2E")
        #expect(Endpoint.pathSegment("a.b-c_d~") == "a.b-c_d~")
    }

    @Test func specDefaultsAndValues() throws {
        let e = try endpoint("u", #"{"path":"/u/{id}"}"#)
        #expect(e.method == "GET" && e.encoding == .default && e.timeoutMs == nil && e.envelope == nil)
        #expect(e.retry == nil && e.cache == nil && e.group == nil)
        let all = try endpoint(
            "a",
            #"{"method":"post","path":"/a","encoding":"json","headers":{"X":"1"},"timeout_ms":9,"envelope":false,"retry":false,"cache":"cache_only","group":"g"}"#
        )
        #expect(all.method == "POST" && all.encoding == .json && all.headers["X"] == "1" && all.timeoutMs == 9)
        #expect(all.envelope == false && all.retry == .disabled && all.cache == "cache_only" && all.group == "g")
        let retry = try endpoint("r", #"{"path":"/r","retry":{"max_attempts":3}}"#)
        #expect(retry.retry == .policy(json: #"{"max_attempts":3}"#))
    }

    @Test(arguments: [
        (#"{"path":"/x","nope":1}"#, "key 'nope' is unknown"),
        (#"{"method":2,"path":"/x"}"#, "key 'method' must be a string, got integer"),
        (#"{"path":"/x","encoding":"xml"}"#, "key 'encoding' must be \"query\", \"form\" or \"json\""),
        (#"{"path":"/x","timeout_ms":-5}"#, "key 'timeout_ms' must be between 0 and"),
        (#"{"path":"/x","retry":{"jitter":1}}"#, "key 'retry.jitter' must be true or false"),
        (#"{"path":"/x","headers":{"X":"a\nb"}}"#, "key 'headers.X' contains CR, LF"),
        (#"{"method":"GET"}"#, "key 'path' is required"),
        (#"{"path":"/x/{id"}"#, "unbalanced")
    ])
    func badSpecsNameTheKey(spec: String, message: String) {
        #expect(throws: NetError.self) { try endpoint("u", spec) }
        do throws(NetError) { _ = try Endpoint.parse(name: "u", json: spec) } catch {
            #expect(error.message.contains("Endpoint 'u'") && error.message.contains(message), "\(error.message)")
        }
    }

    @Test func configParsesEndpoints() throws {
        let config = try Configuration.parse(
            json:
                #"{"endpoints":{"user.login":{"method":"POST","path":"/user/login","encoding":"json"},"user.get":{"method":"GET","path":"/users/{id}"}}}"#
        ).get()
        #expect(config.endpoints["user.login"]?.encoding == .json)
        #expect(config.endpoints["user.get"]?.placeholders == ["id"])
        #expect(try Configuration.parse(json: "{}").get().endpoints.isEmpty)
    }

    @Test func resolveFillsThePathAndKeepsTheRestOfTheParams() throws {
        let catalog = EndpointCatalog([
            try endpoint(
                "u",
                #"{"method":"PUT","path":"/users/{id}/{id}","encoding":"json","headers":{"A":"e","B":"e"},"timeout_ms":5,"envelope":false}"#
            )
        ])
        var request = try Request(endpoint: "u", params: try params(#"{"id":"a b","name":"x"}"#))
        try request.setHeader("B", "r")
        let plain = try catalog.resolve(request).get()
        #expect(plain.endpoint == nil)
        #expect(plain.method.rawValue == "PUT")
        #expect(plain.target == "/users/a%20b/a%20b")
        #expect(plain.params?.text == #"{"name":"x"}"#)
        #expect(plain.encoding == .json)
        #expect(plain.headers["A"] == "e" && plain.headers["B"] == "r")
        #expect(plain.timeoutMs == 5 && plain.envelope == false)
    }

    @Test func requestSettingsWin() throws {
        let catalog = EndpointCatalog([
            try endpoint("u", #"{"path":"/u","encoding":"json","timeout_ms":5,"envelope":false}"#)
        ])
        var request = try Request(endpoint: "u")
        request.encoding = .form
        request.envelope = true
        try request.setTimeout(ms: 0)
        let plain = try catalog.resolve(request).get()
        #expect(plain.encoding == .form && plain.envelope == true && plain.timeoutMs == 0)
        #expect(plain.params == nil)
    }

    @Test func unknownAndMissingAreInvalidRequestsNamingThem() throws {
        let catalog = EndpointCatalog([try endpoint("u", #"{"path":"/u/{id}"}"#)])
        guard case .failure(let unknown) = catalog.resolve(try Request(endpoint: "v")) else {
            Issue.record("resolved an unknown endpoint")
            return
        }
        #expect(unknown.domain == .client && unknown.code == NetError.ClientCode.invalidRequest.rawValue)
        #expect(unknown.message.contains("'v'"))
        guard case .failure(let missing) = catalog.resolve(try Request(endpoint: "u", params: try params(#"{"x":1}"#)))
        else {
            Issue.record("resolved without its placeholder")
            return
        }
        #expect(missing.code == NetError.ClientCode.invalidRequest.rawValue)
        #expect(missing.message.contains("'id'") && missing.message.contains("'u'"))
    }

    @Test func namesAreChecked() {
        #expect(Endpoint.isValidName("user.get") && Endpoint.isValidName("订单"))
        #expect(!Endpoint.isValidName("") && !Endpoint.isValidName("a\tb") && !Endpoint.isValidName("a\u{7F}"))
        #expect(throws: NetError.self) { try Request(endpoint: "") }
    }

    @Test func definingReplacesAndKeepsOthers() throws {
        var catalog = EndpointCatalog([try endpoint("a", #"{"path":"/a"}"#), try endpoint("b", #"{"path":"/b"}"#)])
        catalog.define(try endpoint("a", #"{"method":"POST","path":"/a2"}"#))
        #expect(catalog["a"]?.path == "/a2" && catalog["a"]?.method == "POST" && catalog["b"]?.path == "/b")
    }
}
