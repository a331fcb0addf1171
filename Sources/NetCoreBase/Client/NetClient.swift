/// A configured HTTP client: one libcurl multi handle and one transfer thread.
/// Every method may be called from any thread.
public final class NetClient: @unchecked Sendable {
    private let settingsLock = Lock()
    private var settings: ClientSettings
    package let loop: TransferLoop
    /// Error, auth-expired, event and log hooks (NetClient+Hooks.swift).
    let hooks: ClientHooks
    /// Token, basic credentials and request adapters (NetClient+Adapters.swift).
    let adapterRegistry = AdapterRegistry()
    /// The reachability mode and wait (NetClient+Reachability.swift).
    let reachabilityGate: ReachabilityGate
    /// Transfers shared by identical requests in flight (Features/Coalescing).
    let coalescing: CoalescingRegistry
    /// Single-flight token refresh (NetClient+Refresh.swift, Features/Auth/).
    let tokenRefresher: TokenRefresher
    /// The response cache (NetClient+Cache.swift, Features/Cache/); nil without "cache".
    let cache: ResponseCache?
    /// The seam-2 policy of transfers that only store (no stored answer involved,
    /// no other policy): one object per client, so a send allocates none.
    let cacheStoringPolicy: CacheTransferPolicy?
    /// The cookie jar ("cookies", NetClient+Cookies.swift); nil when off (the default).
    let cookieJar: CookieJar?
    /// The texts for people completions read ("messages", NetClient+Messages.swift).
    let messageBox: MessageBox
    /// The stubs ("stubs", Features/Stubs); nil without: hops go to libcurl directly.
    let stubTable: StubTable?

    /// Creates a client and starts its transfer thread. The configuration is checked
    /// as the JSON form is (`Configuration.validate()`): a bad value throws
    /// NC_CLIENT_INVALID_CONFIG naming it. The environment's proxy variables and CA
    /// bundle (`CURL_CA_BUNDLE`, else `SSL_CERT_FILE`, trusted when `tls` names no
    /// `caFile`/`caPath`) are read here, once (ProxyEnvironment.swift,
    /// CABundleEnvironment.swift).
    public convenience init(configuration: Configuration) throws(NetError) {
        try self.init(configuration: configuration, transport: nil)
    }

    /// A client whose loop carries its hops on `transport` (nil: libcurl): a
    /// `TableTransport` answers from a table, with no server (HopTransport.swift).
    /// Synchronous sends always use libcurl.
    init(configuration: Configuration, transport: (any HopTransport)?) throws(NetError) {
        try configuration.validate()
        let jar = configuration.cookies.enabled ? try CookieJar(file: configuration.cookies.file) : nil
        // Before the transfer thread starts: a cache directory that cannot be used
        // refuses the configuration. The cache reads the jar's cookies into its
        // partitions (CachePartition.swift).
        if let c = configuration.cache {
            cache = try ResponseCache(c, jar: jar)
        } else {
            cache = nil
        }
        cacheStoringPolicy = cache.map { CacheTransferPolicy(cache: $0, inner: nil, entry: nil, fallback: false) }
        // "stubs": the loop's hops go through the table first (Features/Stubs).
        let stubs = try NetClient.stubTransport(configuration, share: jar?.share ?? CurlShare.process, given: transport)
        stubTable = stubs?.table
        // TLS sessions and DNS answers: the process's share, or the jar's, which
        // keeps this client's cookies apart (CurlShare.swift).
        guard
            let loop = TransferLoop(
                mode: configuration.callbacks, limits: configuration.limits,
                proxies: ProxyEnvironment(configured: configuration.proxy), share: jar?.share ?? CurlShare.process,
                transport: stubs ?? transport)
        else {
            throw NetError.internalError(
                "libcurl or the transfer thread could not be started (out of memory or thread limit).")
        }
        self.loop = loop
        loop.lanes.stubs = stubTable
        self.cookieJar = jar
        self.messageBox = MessageBox(configuration.messages)
        self.hooks = ClientHooks(loop: loop)
        // Why an answer was not stored, at DEBUG (docs/caching.md, "Counters").
        let hooks = self.hooks
        cache?.skipLog = { t, p, reason, status in
            let (method, url, id) = (p.method, p.urlText, t.id)
            hooks.debugLine {
                "\(method) \(Redaction.url(url)) #\(id) => \(status) not stored in the cache: \(reason.text) (\(reason.rawValue))"
            }
        }
        self.reachabilityGate = ReachabilityGate(
            mode: configuration.reachability.mode, waitForNetworkMs: configuration.reachability.waitForNetworkMs,
            loop: loop)
        self.coalescing = CoalescingRegistry(loop: loop)
        let registry = adapterRegistry
        self.tokenRefresher = TokenRefresher(currentAuthorization: { registry.snapshot().authorization })
        // CURL_CA_BUNDLE / SSL_CERT_FILE, read here once (CABundleEnvironment.swift).
        self.settings = ClientSettings(config: configuration, environmentCA: CABundleEnvironment.read())
        // The refresher installs a token through the objects setToken changes, not
        // through the client it belongs to: a weak reference to the client would give
        // it a side table, and every retain of it (one a send) would take the Swift
        // runtime's slow path.
        tokenRefresher.bind { token throws(NetError) in try NetClient.setToken(token, registry, hooks) }
        if let token = configuration.auth.token {
            try setToken(token)
        }
        tokenRefresher.install(nil, maxPerMinute: Int(configuration.auth.maxRefreshesPerMinute))
        // "log": lines to standard error from now on (a log handler set later replaces it).
        if configuration.log.level != .off { logHandler = .standardError(level: configuration.log.level) }
    }

    /// Creates a client from the JSON configuration of nc_client_new().
    public convenience init(json: String) throws(NetError) {
        switch Configuration.parse(json: json) {
        case .success(let config): try self.init(configuration: config)
        case .failure(let e): throw e
        }
    }

    /// Shuts the client down. When the last reference goes inside one of the
    /// client's own callbacks or executor jobs (a task on `executor` ending, say),
    /// the transfer thread is not waited for: it completes what is in flight with
    /// `NetError.shutdown` and exits on its own.
    deinit {
        if !loop.shutdown() { loop.stopDetached() }
        forgetHeldTransfers()
        cookieJar?.saveAtClose()
    }

    /// The settings in force for requests sent now.
    var currentSettings: ClientSettings { settingsLock.withLock { settings } }

    /// Selects a named environment's base URL. False if the name is unknown.
    public func setEnvironment(_ name: String) -> Bool {
        settingsLock.withLock {
            guard settings.config.environments[name] != nil else { return false }
            var config = settings.config
            config.environment = name
            settings = settings.with(config: config)
            return true
        }
    }

    /// Sets (nil: removes) a default header for later requests.
    public func setHeader(_ name: String, _ value: String?) throws(NetError) {
        guard HTTPValidation.isToken(name) else { throw NetError.invalidArgument("header name must be an HTTP token") }
        if let value, !HTTPValidation.isHeaderValue(value) {
            throw NetError.invalidArgument("header value must not contain CR, LF or control characters")
        }
        settingsLock.withLock {
            var config = settings.config
            if let value { config.headers.set(name, value) } else { config.headers.remove(name) }
            settings = settings.with(config: config)
        }
        if name.lowercased() == "authorization" { noteCredentialsChanged() }
    }

    /// Starts sending; `completion` runs exactly once (on the transfer thread, or in
    /// `dispatch()` in queue mode). Nil if the client is shutting down (then
    /// `completion` never runs).
    public func send(_ request: Request, completion: @escaping @Sendable (Response?, NetError?) -> Void) -> Transfer? {
        let t = transfer(request) { t, response, error in completion(response, t.identify(error)) }
        return submit(t) ? t : nil
    }

    /// `send(_:completion:)` for language boundaries: `completion` should capture
    /// nothing and find what it needs in `transfer.foreign`, which holds the two
    /// words given here (the C API passes its function pointer and userdata). Same
    /// exactly-once contract. Not for Swift callers: use `send(_:completion:)`.
    package func send(
        _ request: Request, foreign: (UnsafeRawPointer?, UnsafeMutableRawPointer?),
        completion: @escaping Transfer.Deliver
    ) -> Transfer? {
        let t = transfer(request, foreign: foreign, completion)
        return submit(t) ? t : nil
    }

    /// Why a synchronous send could not start.
    public enum SyncRefusal: Error, Sendable {
        case shuttingDown
        /// Called from one of this client's callbacks: it would wait for itself.
        case insideCallback
    }

    /// Sends and waits. The result's response is set whenever one was received.
    /// It runs on the calling thread (see TransferLoop+Sync.swift). It neither
    /// joins nor leads a coalesced transfer (NetClient+Coalescing.swift).
    public func sendSync(_ request: Request) -> Result<(Response?, NetError?), SyncRefusal> {
        if loop.isCallbackThread { return .failure(.insideCallback) }
        let t = transfer(request) { _, _, _ in }
        guard loop.runSync(t) else { return .failure(.shuttingDown) }
        t.deliver(t, t.result.0, t.result.1)   // the failure hooks, if any, on this thread
        guard let e = t.result.1 else { return .success(t.result) }
        let identified = t.identify(e)
        if messageBox.installed.load(ordering: .relaxed) {
            return .success((t.result.0, messageBox.apply(identified)))
        }
        return .success((t.result.0, identified))
    }

    package func transfer(
        _ request: Request, foreign: (UnsafeRawPointer?, UnsafeMutableRawPointer?) = (nil, nil),
        _ completion: @escaping Transfer.Deliver
    ) -> Transfer {
        let prepared: PreparedRequest?
        let preset: NetError?
        let settings = currentSettings
        switch request.prepared.prepared(request, settings) {
        case .success(let p):
            // The cache's seam 1 (NetClient+Cache.swift): one branch without a cache.
            if let key = p.cacheKey, let cache {
                return cachedTransfer(request, p, key, cache, settings, foreign, completion)
            }
            prepared = p; preset = nil
        case .failure(let e):
            // Who the unresolved request is, for its error (NetError+Request.swift).
            var named = e
            named.request = request.identity
            prepared = nil; preset = named
        }
        // Its features, composed in one place (NetClient+Composition.swift).
        return compose(
            request, prepared, preset: preset, features(for: prepared, settings), foreign: foreign, deliver: completion)
    }

    /// Receives the start, each attempt's end (with libcurl's timings) and the
    /// completion of every request sent from now on (EventMonitor.swift); nil, the
    /// default, reads no timings and builds no events.
    public var eventMonitor: (any EventMonitor)? {
        get { currentSettings.userMonitor }
        set { settingsLock.withLock { settings = settings.with(monitor: newValue) } }
    }

    /// What decides after each attempt of a request sent from now on (retry, token
    /// refresh…: TransferPolicy.swift); nil: an attempt's result is the completion.
    var transferPolicy: (any TransferPolicy)? {
        get { currentSettings.explicitPolicy }
        set { settingsLock.withLock { settings = settings.with(policy: newValue) } }
    }

    /// Queue mode: readable while completions wait; -1 in loop mode.
    public var fd: Int32 { loop.eventFD }

    /// Queue mode: runs waiting completions on the calling thread.
    public func dispatch() -> DispatchResult { loop.dispatch() }

    /// Completes everything in flight with `NetError.shutdown` and stops the
    /// transfer thread. False (nothing done) when called from a callback.
    @discardableResult
    public func shutdown() -> Bool {
        guard loop.shutdown() else { return false }
        forgetHeldTransfers()
        // After the last transfer: the file holds what the last responses set.
        cookieJar?.saveAtClose()
        return true
    }

    /// Installs a new settings snapshot made by `change` (for NetClient+Feature.swift files).
    func changeSettings(_ change: (ClientSettings) -> ClientSettings) {
        settingsLock.withLock { settings = change(settings) }
    }

    /// Installs a new settings snapshot made from a changed copy of the
    /// configuration (for NetClient+Feature.swift files); no user code runs under the lock.
    func changeConfiguration(_ change: (inout Configuration) -> Void) {
        settingsLock.withLock {
            var config = settings.config
            change(&config)
            settings = settings.with(config: config)
        }
    }
}

/// An immutable snapshot of what requests are built from; replaced as a whole
/// when the environment or a default header changes.
final class ClientSettings: Sendable {
    let config: Configuration
    /// Worked out once per snapshot rather than per request.
    let baseURL: String?
    let credentialHeaderNames: Set<String>
    let envelope: CompiledEnvelope?
    /// `config.signing != nil`, read by every send without copying the config.
    let signs: Bool
    /// Installed on every transfer made from this snapshot (nil: none): the
    /// user's monitor and the client's hooks' (event and log handlers), both
    /// receiving when both are installed (`MonitorPair`).
    let monitor: (any EventMonitor)?
    /// The monitor set through `NetClient.eventMonitor`.
    let userMonitor: (any EventMonitor)?
    /// The event and log handlers' monitor (NetClient+Hooks.swift).
    let hookMonitor: (any EventMonitor)?
    /// A policy installed by hand (tests); nil: the one the configuration implies.
    let explicitPolicy: (any TransferPolicy)?
    /// nc_client_set_retry_handler's handler (NetClient+Retry.swift).
    let retryHandler: RetryHandler?
    /// What decides after each attempt: `explicitPolicy`, else retry when "retry"
    /// is configured or a retry handler is set, else nil (one branch per attempt).
    let policy: (any TransferPolicy)?
    /// TLS and HTTP-version options of requests (ConnectionSettings.swift), and of
    /// the endpoints that change the TLS options, by name.
    let connection: ConnectionSettings
    let endpointConnections: [String: ConnectionSettings]
    /// The envelope rules of the endpoints that have their own ("envelope": {…}), by name.
    let endpointEnvelopes: [String: CompiledEnvelope]
    /// The CA bundle the environment named when the client was made
    /// (CABundleEnvironment.swift), kept by every later snapshot.
    let environmentCA: CABundleEnvironment?

    /// `previous`: the snapshot this one replaces, whose connection options are
    /// kept when they did not change (pooled handles then set nothing again), and
    /// whose `environmentCA` is kept (`environmentCA` is the first snapshot's).
    init(
        config: Configuration, monitor: (any EventMonitor)? = nil, hookMonitor: (any EventMonitor)? = nil,
        policy: (any TransferPolicy)? = nil, retryHandler: RetryHandler? = nil, previous: ClientSettings? = nil,
        environmentCA: CABundleEnvironment? = nil
    ) {
        self.config = config
        let environmentCA = previous.map(\.environmentCA) ?? environmentCA
        self.environmentCA = environmentCA
        (connection, endpointConnections) = ConnectionSettings.make(
            for: config, environmentCA: environmentCA, reusing: previous)
        envelope = config.envelope.map(CompiledEnvelope.init)
        var endpointEnvelopes: [String: CompiledEnvelope] = [:]
        for (name, e) in config.endpoints.endpoints {
            if let s = e.envelopeSchema { endpointEnvelopes[name] = CompiledEnvelope(s) }
        }
        self.endpointEnvelopes = endpointEnvelopes
        baseURL = config.activeBaseURL
        credentialHeaderNames = config.credentialHeaderNames
        signs = config.signing != nil
        self.userMonitor = monitor
        self.hookMonitor = hookMonitor
        self.monitor = MonitorPair.combine(monitor, hookMonitor)
        self.explicitPolicy = policy
        self.retryHandler = retryHandler
        self.policy =
            policy
            ?? (config.retry != nil || retryHandler != nil ? RetryTransferPolicy(handler: retryHandler) : nil)
    }

    func with(config: Configuration) -> ClientSettings {
        ClientSettings(
            config: config, monitor: userMonitor, hookMonitor: hookMonitor, policy: explicitPolicy,
            retryHandler: retryHandler, previous: self)
    }
    func with(monitor: (any EventMonitor)?) -> ClientSettings {
        ClientSettings(
            config: config, monitor: monitor, hookMonitor: hookMonitor, policy: explicitPolicy,
            retryHandler: retryHandler, previous: self)
    }
    func with(hookMonitor: (any EventMonitor)?) -> ClientSettings {
        ClientSettings(
            config: config, monitor: userMonitor, hookMonitor: hookMonitor, policy: explicitPolicy,
            retryHandler: retryHandler, previous: self)
    }
    func with(policy: (any TransferPolicy)?) -> ClientSettings {
        ClientSettings(
            config: config, monitor: userMonitor, hookMonitor: hookMonitor, policy: policy, retryHandler: retryHandler,
            previous: self)
    }
    func with(retryHandler: RetryHandler?) -> ClientSettings {
        ClientSettings(
            config: config, monitor: userMonitor, hookMonitor: hookMonitor, policy: explicitPolicy,
            retryHandler: retryHandler, previous: self)
    }

    /// The policy of a transfer resolved as `prepared`: the snapshot's, or retry
    /// alone for a request that turned it on itself (nc_request_set_retry_json on
    /// a client without "retry").
    @inline(__always)
    func policy(for prepared: PreparedRequest?) -> (any TransferPolicy)? {
        if let policy { return policy }
        return prepared?.resilience.hasRetry == true ? RetryTransferPolicy.standard : nil
    }
}

extension NetClient {
    /// One completion's arguments as a result; the response rides on the error.
    package static func outcome(_ response: Response?, _ error: NetError?) -> Result<Response, NetError> {
        if var error {
            if error.response == nil { error.response = response }
            return .failure(error)
        }
        if let response { return .success(response) }
        return .failure(.internalError("The request completed with neither a response nor an error."))
    }
}
