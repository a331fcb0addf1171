/// Stubs (docs/configuration.md, "Stubs"; README, "Working offline: stubs and
/// recordings"): the public API. A client made without "stubs" has none, and its
/// hops go to libcurl with no lookup.
extension NetClient {
    /// The transport of a client with "stubs": its table in front of libcurl. nil
    /// without "stubs", or when a transport is given (tests: TableTransport).
    static func stubTransport(
        _ configuration: Configuration, share: CurlShare?, given: (any HopTransport)?
    ) throws(NetError) -> StubTransport? {
        guard given == nil, let s = configuration.stubs else { return nil }
        let table = try StubTable.make(s, credentialHeaders: configuration.credentialHeaders)
        guard let network = CurlTransport(limits: configuration.limits, share: share, probe: LoopProbe()) else {
            throw NetError.internalError("libcurl could not be started (out of memory).")
        }
        return StubTransport(table: table, network: network)
    }

    /// Whether the client was made with "stubs" (only such a client takes `addStub`).
    public var hasStubs: Bool { stubTable != nil }

    /// Adds a route after the others, for requests sent from now on. Throws
    /// `invalidState`-like CLIENT INVALID_REQUEST when the client was made without
    /// "stubs" (give `"stubs": {}` to add routes later), or `invalidArgument`
    /// naming what is wrong with the route; nothing changes then.
    public func addStub(_ stub: Stub) throws(NetError) {
        guard let stubTable else { throw NetError.stubsOff }
        stubTable.add(try stub.validated(label: "stub"))
    }

    /// `addStub(_:)` from the JSON object of nc_client_add_stub.
    public func addStub(json: String) throws(NetError) {
        guard stubTable != nil else { throw NetError.stubsOff }
        try addStub(try Stub(json: json))
    }

    /// How many requests the routes whose path is `path` (as written in the route)
    /// answered so far; 0 without stubs.
    public func stubHits(path: String) -> Int { stubTable?.hops(path) ?? 0 }
}

extension Response {
    /// A stub of the client's "stubs" gave this response, not the network.
    public var isStubbed: Bool { completionInfo.stubbed }
}

extension NetError {
    package static var stubsOff: NetError {
        .invalidArgument(
            "This client has no stubs: create it with \"stubs\" in its configuration (\"stubs\": {} is enough) to add routes later."
        )
    }
}
