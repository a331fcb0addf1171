import NetCoreBase

/// Endpoint calls for Swift concurrency (NetCoreBase's NetClient+Endpoints.swift).
extension NetClient {
    /// Sends a request naming `endpoint` with `params` (a JSON object; nil: none)
    /// and waits for its result, as `send(_:)`.
    public func call(_ endpoint: String, params: JSONValue? = nil) async throws(NetError) -> Response {
        try await send(try Request(endpoint: endpoint, params: params))
    }
}
