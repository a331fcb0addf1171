import CCurlShim

/// Request adapters (seam 1, docs/contract.md#the-request-lifecycle): the token, basic
/// credentials and adapters run before every attempt of the requests sent from now
/// on, after "common_params" and before "signing" (AdapterChain.swift).
extension NetClient {
    /// The bearer token: every request carries `Authorization: Bearer <token>`
    /// unless it has an Authorization header of its own. nil (the default) sends
    /// none. Read at each attempt, so a retry carries the current one. Never
    /// logged. Setting a value with CR, LF or another control character, or an
    /// empty one, is ignored: use `setToken(_:)` to be told.
    public var token: String? {
        get { adapterRegistry.token }
        set { try? setToken(newValue) }
    }

    /// Sets (nil: clears) the bearer token. Throws `.invalidArgument` (nothing
    /// changed) for an empty token or one with CR, LF or control characters; the
    /// message does not contain the token.
    public func setToken(_ token: String?) throws(NetError) {
        try NetClient.setToken(token, adapterRegistry, hooks)
    }

    /// `setToken(_:)` on the two objects it changes: a token refresh installs its
    /// token through this without holding the client (NetClient.init).
    static func setToken(_ token: String?, _ registry: AdapterRegistry, _ hooks: ClientHooks) throws(NetError) {
        // A new (or no) token re-arms the auth-expired handler (NetClient+Hooks.swift).
        defer { hooks.noteCredentialsChanged() }
        guard let token else { registry.setBearer(nil); return }
        guard !token.isEmpty, HTTPValidation.isHeaderValue(token) else {
            throw NetError.invalidArgument("the token must be non-empty and contain no CR, LF or control characters")
        }
        registry.setBearer("Bearer " + token)
    }

    /// Sends `Authorization: Basic base64(user:password)` with every request
    /// (unless it has its own Authorization header, or a token is set: the token
    /// wins). nil `user` clears. Throws `.invalidArgument` for a user containing
    /// ":" or either value with control characters; the message names neither.
    public func setBasicAuth(user: String?, password: String?) throws(NetError) {
        defer { noteCredentialsChanged() }
        guard let user else { adapterRegistry.setBasic(nil); return }
        let password = password ?? ""
        guard !user.utf8.contains(UInt8(ascii: ":")),
            !(user + password).utf8.contains(where: { $0 < 0x20 || $0 == 0x7f })
        else {
            throw NetError.invalidArgument(
                "basic auth: the user must not contain ':' and neither value may contain control characters")
        }
        var credentials = Array((user + ":" + password).utf8)
        defer { for i in credentials.indices { credentials[i] = 0 } }
        let capacity = 4 * ((credentials.count + 2) / 3) + 1
        var encoded = [CChar](repeating: 0, count: capacity)
        let n = credentials.withUnsafeBytes { src in
            encoded.withUnsafeMutableBufferPointer { dst in
                ncshim_base64(src.baseAddress, src.count, dst.baseAddress, dst.count)
            }
        }
        guard n > 0 || credentials.isEmpty else {
            throw NetError.internalError("basic auth: the credentials could not be encoded")
        }
        let text = String(decoding: encoded.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        adapterRegistry.setBasic("Basic " + text)
    }

    /// Adds an adapter; adapters run in the order they were added, before every
    /// attempt of the requests sent from now on. The client keeps it until it is
    /// freed.
    public func addAdapter(_ adapter: any RequestAdapter) {
        adapterRegistry.add(adapter)
    }
}
