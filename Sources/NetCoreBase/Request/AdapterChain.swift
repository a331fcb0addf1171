import Synchronization

/// What the adapters of one client read at every attempt (so a retried request
/// carries the current token): what `nc_client_set_token`, `nc_client_set_basic_auth`
/// and `nc_client_add_adapter` installed. The chains hold this, not the registry,
/// which caches a chain: holding the registry would make a cycle that is never freed.
///
/// Threads: any; guarded by a lock, never held while an adapter runs.
final class AdapterCredentials: @unchecked Sendable {
    private let lock = Lock()
    /// The Authorization value the client adds ("Bearer …" or "Basic …"); a secret.
    private var bearer: String?
    private var basic: String?
    private var adapters: [any RequestAdapter] = []
    /// Anything installed: read without the lock on every send.
    let installed = Atomic<Bool>(false)

    func setBearer(_ value: String?) {
        lock.withLock {
            bearer = value
            updateInstalled()
        }
    }

    func setBasic(_ value: String?) {
        lock.withLock {
            basic = value
            updateInstalled()
        }
    }

    func add(_ adapter: any RequestAdapter) {
        lock.withLock {
            adapters.append(adapter)
            updateInstalled()
        }
    }

    var token: String? {
        lock.withLock { bearer.map { String($0.dropFirst("Bearer ".count)) } }
    }

    /// The Authorization value an attempt adds now (the token wins over basic
    /// credentials); nil when neither is set. Read without copying the adapters.
    var authorization: String? {
        guard installed.load(ordering: .acquiring) else { return nil }
        return lock.withLock { bearer ?? basic }
    }

    /// Caller holds the lock.
    private func updateInstalled() {
        installed.store(bearer != nil || basic != nil || !adapters.isEmpty, ordering: .releasing)
    }

    /// What the current attempt adds: the Authorization value (the token wins over
    /// basic credentials) and the adapters in order.
    func snapshot() -> (authorization: String?, adapters: [any RequestAdapter]) {
        lock.withLock { (bearer ?? basic, adapters) }
    }
}

/// The request adapters of one client (seam 1, docs/contract.md#the-request-lifecycle):
/// its credentials and adapters, and the chain and signing key its transfers share.
///
/// Threads: any; guarded by a lock, never held while an adapter runs.
final class AdapterRegistry: @unchecked Sendable {
    let credentials = AdapterCredentials()
    private let lock = Lock()

    init() {}

    func setBearer(_ value: String?) { credentials.setBearer(value) }
    func setBasic(_ value: String?) { credentials.setBasic(value) }
    func add(_ adapter: any RequestAdapter) { credentials.add(adapter) }
    var token: String? { credentials.token }
    func snapshot() -> (authorization: String?, adapters: [any RequestAdapter]) { credentials.snapshot() }

    /// The signing secret prepared last (with the secret it was made from): every
    /// transfer sent with the same secret shares it, so libcrypto's key setup runs
    /// once per client, not once per request.
    private var preparedKey: (secret: String, key: SigningKey)?

    private func signingKey(_ signing: Configuration.Signing?) -> SigningKey? {
        guard let signing else { return nil }
        return lock.withLock {
            if let preparedKey, preparedKey.secret == signing.secret { return preparedKey.key }
            guard let key = SigningKey(secret: signing.secret) else { return nil }
            preparedKey = (signing.secret, key)
            return key
        }
    }

    /// The chain made last (with the signing it was made for): transfers sent with
    /// the same signing share it, so none allocates one or checks the names again.
    private var preparedChain: AdapterChain?

    /// The preparer of a transfer sent now with `settings`; nil (nothing allocated)
    /// when no adapter, token, basic credentials or signing is configured.
    func preparer(for settings: ClientSettings) -> (any AttemptPreparer)? {
        // The flag first: copying the signing config (three Strings) costs retains.
        guard settings.signs || credentials.installed.load(ordering: .acquiring) else { return nil }
        let signing = settings.config.signing
        if let chain = lock.withLock({ preparedChain }), chain.signing == signing { return chain }
        let chain = AdapterChain(credentials: credentials, signing: signing, key: signingKey(signing))
        lock.withLock { preparedChain = chain }
        return chain
    }
}

/// Runs the adapters before each attempt, in the order of docs/contract.md#adapters:
/// common params (already in the request, CommonParams.swift), token or basic
/// credentials (unless the request carries its own Authorization header), the adapters
/// in the order they were added, then signing — over what the others produced.
final class AdapterChain: AttemptPreparer {
    let credentials: AdapterCredentials
    let signing: Configuration.Signing?
    /// The secret of `signing`, prepared once per client (nil without signing, or
    /// if libcrypto could not prepare it: then every attempt fails, saying so).
    let key: SigningKey?
    /// Unix seconds for the signature (a test may fix it).
    let clock: @Sendable () -> Int64
    /// Both signing header names are HTTP tokens (always so from JSON; a Swift
    /// `Configuration.Signing` is not checked when made): the signing-only path
    /// may add them without checking them again.
    private let signingNamesValid: Bool

    init(
        credentials: AdapterCredentials, signing: Configuration.Signing?, key: SigningKey?,
        clock: @escaping @Sendable () -> Int64 = RequestSigning.now
    ) {
        self.credentials = credentials
        self.signing = signing
        self.key = key
        self.clock = clock
        self.signingNamesValid =
            signing.map { HTTPValidation.isToken($0.header) && HTTPValidation.isToken($0.timestampHeader) } ?? false
    }

    func prepare(_ original: PreparedRequest, attempt: Int32) -> Result<PreparedRequest, NetError> {
        let (authorization, adapters) = credentials.snapshot()
        // Signing alone (no token, credentials or adapter), and the request carries
        // neither signing header: the two headers are added to the request's own
        // without an OutgoingRequest in between (the same bytes signed and sent as
        // below, for less: bench/RESULTS.md, "Figures that justified code choices").
        if authorization == nil, adapters.isEmpty, let signing, let key, signingNamesValid,
            !original.headers.contains(signing.header), !original.headers.contains(signing.timestampHeader)
        {
            return RequestSigning.signed(original, signing, key: key, timestamp: clock())
        }
        return adapt(original, attempt: attempt, authorization: authorization, adapters: adapters)
    }

    /// Every adapter in order over an OutgoingRequest (see the type's comment).
    private func adapt(
        _ original: PreparedRequest, attempt: Int32, authorization: String?, adapters: [any RequestAdapter]
    ) -> Result<PreparedRequest, NetError> {
        var out = OutgoingRequest(
            method: original.method, url: original.urlText,
            body: original.body, attempt: attempt, headers: original.headers, params: original.params)
        if let authorization, out.header("Authorization") == nil {
            do throws(NetError) { try out.setHeader("Authorization", authorization) } catch { return .failure(error) }
        }
        for adapter in adapters {
            do throws(NetError) {
                try adapter.adapt(&out)
            } catch {
                return .failure(error)
            }
        }
        if let signing {
            guard let key else {
                return .failure(.internalError("The request could not be signed (libcrypto failed)."))
            }
            // Over what the adapters produced: their URL and body when they changed them.
            if let e = RequestSigning.sign(
                &out, signing, key: key, url: out.urlChanged ? nil : original.location,
                upload: out.bodyChanged ? nil : original.upload, timestamp: clock())
            {
                return .failure(e)
            }
        }
        if out.urlChanged || out.bodyChanged {
            return original.rewritten(
                url: out.urlChanged ? out.url : nil, body: out.bodyChanged ? .some(out.body) : nil,
                headers: out.headers)
        }
        return .success(original.adapted(headers: out.headers, appendedFrom: out.onlyAppended ? out.baseCount : nil))
    }
}
