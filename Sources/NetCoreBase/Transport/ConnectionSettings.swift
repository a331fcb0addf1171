import CCurlShim

/// The easy-handle options that decide which connections a transfer may use: the
/// TLS trust anchors, pins, client certificate, lowest TLS version and the HTTP
/// version. One immutable value per client settings snapshot (and one per
/// endpoint that changes the TLS options); a pooled handle re-applies them only
/// when a transfer brings a different one (EasyHandle.appliedConnection), so a
/// client without TLS options pays one pointer compare per transfer.
///
/// Every option is set each time, the defaults included: a handle that last
/// carried an endpoint's CA file must not keep it for the next request. libcurl
/// keys connection reuse (and TLS session reuse) on the CA file and directory,
/// the client certificate, the pins and the TLS version, so a connection made
/// under one set of options is never reused under another (CAPITests/TLSTests).
final class ConnectionSettings: Sendable {
    let options: TLSOptions
    let httpVersion: Configuration.HTTPVersion
    let caFile: CString?
    let caPath: CString?
    private let clientCert: CString?
    private let clientKey: CString?
    /// "sha256//a;sha256//b" (libcurl's list form); nil: no pinning.
    private let pins: CString?

    /// The environment's CA bundle (CABundleEnvironment.swift) when it is the one
    /// trusted: `options` name no CA file or directory.
    let environmentCA: CABundleEnvironment?

    /// `environmentCA`: the bundle the environment named when the client was made;
    /// used only when `options` name no CA file or directory.
    init(
        _ options: TLSOptions, httpVersion: Configuration.HTTPVersion, environmentCA: CABundleEnvironment? = nil
    ) {
        self.options = options
        self.httpVersion = httpVersion
        if options.caFile == nil && options.caPath == nil, let environmentCA {
            // CURL_CA_BUNDLE / SSL_CERT_FILE: that bundle alone, as a configured
            // ca_file would be.
            self.environmentCA = environmentCA
            caFile = CString(environmentCA.path)
            caPath = nil
        } else if options.caFile == nil && options.caPath == nil {
            // The system store, as libcurl was built to find it.
            self.environmentCA = nil
            caFile = CurlGlobal.defaultCAFile
            caPath = CurlGlobal.defaultCAPath
        } else {
            self.environmentCA = nil
            // Only what the caller named: a private CA narrows trust to itself
            // rather than adding to the system store.
            caFile = options.caFile.map(CString.init)
            caPath = options.caPath.map(CString.init)
        }
        clientCert = options.clientCert.map(CString.init)
        clientKey = options.clientKey.map(CString.init)
        pins = options.pinnedPublicKeys.isEmpty ? nil : CString(options.pinnedPublicKeys.joined(separator: ";"))
    }

    /// True when `other` sets the same options.
    func sameOptions(as other: ConnectionSettings) -> Bool {
        options == other.options && httpVersion == other.httpVersion && environmentCA == other.environmentCA
    }

    /// Sets every option on `h` (libcurl copies the strings).
    func apply(to h: UnsafeMutableRawPointer) {
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_CAINFO, caFile?.pointer)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_CAPATH, caPath?.pointer)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_SSLCERT, clientCert?.pointer)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_SSLKEY, clientKey?.pointer)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_PINNEDPUBLICKEY, pins?.pointer)
        let tls: Int
        switch options.minVersion {
        case .v1_2: tls = CURL_SSLVERSION_TLSv1_2
        case .v1_3: tls = CURL_SSLVERSION_TLSv1_3
        }
        _ = ncshim_easy_setopt_long(h, CURLOPT_SSLVERSION, tls)
        let http: Int
        switch httpVersion {
        case .http1_1: http = CURL_HTTP_VERSION_1_1
        case .http2: http = CURL_HTTP_VERSION_2TLS
        case .http2PriorKnowledge: http = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
        }
        _ = ncshim_easy_setopt_long(h, CURLOPT_HTTP_VERSION, http)
        // HTTP/2: a request to a host whose connection is still being made (its
        // protocol not yet known) waits for it and multiplexes on it, rather than
        // opening a connection of its own: a burst of 30 opens 1, as curl
        // --parallel and httpx do (CURLOPT_PIPEWAIT; docs/tls.md).
        _ = ncshim_easy_setopt_long(h, CURLOPT_PIPEWAIT, httpVersion == .http1_1 ? 0 : 1)
    }
}

extension ConnectionSettings {
    /// The client's options and those of each endpoint with its own "tls", for a
    /// new settings snapshot; a value of `previous` is kept when its options are
    /// the same, so that pooled handles need not set them again.
    /// `environmentCA`: the client's (read when it was made), for options that
    /// name no CA file or directory.
    static func make(
        for config: Configuration, environmentCA: CABundleEnvironment?, reusing previous: ClientSettings?
    ) -> (ConnectionSettings, [String: ConnectionSettings]) {
        func reuse(_ options: TLSOptions, _ old: ConnectionSettings?) -> ConnectionSettings {
            let made = { ConnectionSettings(options, httpVersion: config.httpVersion, environmentCA: environmentCA) }
            guard let old, old.options == options, old.httpVersion == config.httpVersion else { return made() }
            let usesEnvironment = options.caFile == nil && options.caPath == nil ? environmentCA : nil
            return old.environmentCA == usesEnvironment ? old : made()
        }
        let client = reuse(config.tls, previous?.connection)
        var endpoints: [String: ConnectionSettings] = [:]
        for (name, endpoint) in config.endpoints.endpoints {
            guard let tls = endpoint.tls else { continue }
            endpoints[name] = reuse(tls.applied(to: config.tls), previous?.endpointConnections[name])
        }
        return (client, endpoints)
    }
}
