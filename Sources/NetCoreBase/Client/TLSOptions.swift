#if canImport(Glibc)
import Glibc
#endif

/// The client's TLS settings ("tls", docs/tls.md): which certificate authorities to
/// trust, the public keys to pin, the client certificate, the lowest TLS version.
/// They only ever **narrow** trust: verification of the server's certificate and host
/// name is always on (docs/contract.md#security-defaults), and there is no switch to
/// turn it off. A development server with a self-signed certificate is trusted by
/// naming that certificate (or the CA that signed it) in `caFile`.
public struct TLSOptions: Sendable, Equatable {
    /// PEM file of the CAs to trust (CURLOPT_CAINFO). When `caFile` or `caPath` is
    /// set, they are the only trust anchors: the system CA store is not consulted.
    /// Default nil: the system store.
    public var caFile: String? = nil
    /// Directory of CA certificates named by their hash, as `openssl rehash` (or
    /// `c_rehash`) makes it (CURLOPT_CAPATH). Default nil.
    public var caPath: String? = nil
    /// PEM file with the client certificate, and its key too when `clientKey` is
    /// nil (CURLOPT_SSLCERT). Default nil: no client certificate.
    public var clientCert: String? = nil
    /// PEM file with the client certificate's private key (CURLOPT_SSLKEY).
    /// Default nil (the key is in `clientCert`).
    public var clientKey: String? = nil
    /// Public keys the server's certificate must have, each "sha256//" + base64 of
    /// the SHA-256 of its DER SubjectPublicKeyInfo (CURLOPT_PINNEDPUBLICKEY);
    /// checked in addition to the CA verification. Default []: no pinning.
    public var pinnedPublicKeys: [String] = []
    /// The lowest TLS version accepted (CURLOPT_SSLVERSION). Default 1.2.
    public var minVersion: Version = .v1_2

    /// TLS protocol versions a client may require.
    public enum Version: String, Sendable, CaseIterable {
        case v1_2 = "1.2"
        case v1_3 = "1.3"
    }

    /// TLS options; nil members keep libcurl's defaults (the system CA store, TLS 1.2 at least). Trust is never widened.
    public init(
        caFile: String? = nil, caPath: String? = nil, clientCert: String? = nil, clientKey: String? = nil,
        pinnedPublicKeys: [String] = [], minVersion: Version = .v1_2
    ) {
        self.caFile = caFile
        self.caPath = caPath
        self.clientCert = clientCert
        self.clientKey = clientKey
        self.pinnedPublicKeys = pinnedPublicKeys
        self.minVersion = minVersion
    }

    /// Nothing configured: libcurl's defaults with the minimum version 1.2.
    var isDefault: Bool { self == TLSOptions() }
}

/// What an endpoint may change of the client's TLS settings ("endpoints.NAME.tls"):
/// the CAs to trust and the pins, for an API served by another host than the rest.
public struct EndpointTLS: Sendable, Equatable {
    /// Replaces the client's `caFile` and `caPath` for this endpoint's requests.
    public var caFile: String?
    /// Replaces the client's pins for this endpoint's requests ([] = no pinning).
    public var pinnedPublicKeys: [String]?

    /// The options an endpoint may set: its own CA file and public-key pins.
    public init(caFile: String? = nil, pinnedPublicKeys: [String]? = nil) {
        self.caFile = caFile
        self.pinnedPublicKeys = pinnedPublicKeys
    }

    /// The client's options with this endpoint's in place of theirs.
    func applied(to client: TLSOptions) -> TLSOptions {
        var out = client
        if let caFile {
            out.caFile = caFile
            out.caPath = nil
        }
        if let pinnedPublicKeys { out.pinnedPublicKeys = pinnedPublicKeys }
        return out
    }
}

/// Checks shared by the JSON parser, `Configuration.validate()` and endpoints: a
/// bad value is refused when the client (or endpoint) is made, not at the first
/// request. Each returns the reason, to be prefixed with the key's name.
enum TLSChecks {
    /// A regular file this process can read, else why not.
    static func readableFile(_ path: String) -> String? {
        guard !path.isEmpty, !path.utf8.contains(0) else { return "must be a file path, got \"\(path)\"." }
        var st = stat()
        guard stat(path, &st) == 0 else {
            return "names \"\(path)\", which does not exist (\(String(cString: strerror(errno))))."
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return "names \"\(path)\", which is not a regular file." }
        guard access(path, R_OK) == 0 else { return "names \"\(path)\", which this process cannot read." }
        return nil
    }

    /// A directory this process can list and read, else why not.
    static func readableDirectory(_ path: String) -> String? {
        guard !path.isEmpty, !path.utf8.contains(0) else { return "must be a directory path, got \"\(path)\"." }
        var st = stat()
        guard stat(path, &st) == 0 else {
            return "names \"\(path)\", which does not exist (\(String(cString: strerror(errno))))."
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { return "names \"\(path)\", which is not a directory." }
        guard access(path, R_OK | X_OK) == 0 else { return "names \"\(path)\", which this process cannot read." }
        return nil
    }

    /// "sha256//" + 44 characters of base64 (32 bytes), else why not.
    static func pin(_ pin: String) -> String? {
        let prefix = "sha256//"
        let digest = pin.utf8.dropFirst(prefix.utf8.count)
        let base64 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        guard pin.hasPrefix(prefix), digest.count == 44, digest.last == UInt8(ascii: "="),
            digest.dropLast().allSatisfy(base64.contains)
        else {
            return
                "must hold pins of the form \"sha256//\" + base64 of a SHA-256 digest (44 characters), got \"\(pin)\"; "
                + "make one with: openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der "
                + "| openssl dgst -sha256 -binary | base64"
        }
        return nil
    }

    /// Every check of `options`; the first failure as (the option's name, reason).
    /// `names` gives each option's name as the caller spells it.
    static func firstProblem(_ options: TLSOptions, names: (TLSField) -> String) -> (String, String)? {
        if let f = options.caFile, let why = readableFile(f) { return (names(.caFile), why) }
        if let d = options.caPath, let why = readableDirectory(d) { return (names(.caPath), why) }
        if let c = options.clientCert, let why = readableFile(c) { return (names(.clientCert), why) }
        if let k = options.clientKey {
            guard options.clientCert != nil else {
                return (names(.clientKey), "is set without \(names(.clientCert)): name the certificate too.")
            }
            if let why = readableFile(k) { return (names(.clientKey), why) }
        }
        for p in options.pinnedPublicKeys {
            if let why = pin(p) { return (names(.pinnedPublicKeys), why) }
        }
        return nil
    }

    enum TLSField {
        case caFile, caPath, clientCert, clientKey, pinnedPublicKeys
    }
}
