/// What makes two requests "identical" for coalescing (seam 1,
/// docs/contract.md#the-request-lifecycle):
/// everything that decides what is sent and how the answer is read, as resolved
/// at send — method, final URL (base URL, query and common params applied), the
/// header lines in order (client defaults merged with the request's, so an
/// Authorization header or a token set as a default header takes part), envelope
/// or raw mode, compression, the redirect and response-size limits, the total,
/// connect and idle timeouts, the retry policy and the deadline in force (a caller
/// whose own differ gets a transfer run by its own; a follower that joins later
/// shares the leader's deadline, which ends no later than its own), and the
/// TLS/HTTP-version options (an endpoint's own `tls`).
///
/// Not part of it, on purpose: headers that adapters add per attempt (token,
/// basic credentials, signature, timestamp, C adapters) — they run on the shared
/// transfer, so followers get the answer to the leader's attempt; the group
/// (each caller is cancelled in its own group); the flags other than
/// NC_REQUEST_NO_COALESCE, and the error-handler opt-out, which each caller keeps.
///
/// Made once per resolved request (`PreparedRequest`, itself cached per request
/// value), with its hash, so a send pays a dictionary lookup of a precomputed hash.
/// A class: the registry's dictionary copies a key by one retain (a struct of four
/// strings costs more per send: bench/RESULTS.md, "Figures that justified code
/// choices").
final class CoalescingKey: Hashable, Sendable {
    let method: String
    let url: String
    /// "name: value" lines, each ended by "\n", in the order they are sent.
    let headerLines: String
    let envelope: Bool
    let compression: Bool
    let maxRedirects: Int
    let maxResponseBytes: Int
    let timeoutMs: Int64
    let connectTimeoutMs: Int64
    let idleTimeoutMs: Int64
    let deadlineMs: Int64
    /// nil: one attempt (no policy, or NC_REQUEST_NO_RETRY).
    let retry: RetryPolicy?
    /// The connection options' identity: settings keep the same object while the
    /// options do not change (ConnectionSettings.make), and the shared transfer's
    /// request keeps it alive while the key is registered.
    let connection: ObjectIdentifier
    private let hash: Int

    /// Only GET and HEAD without a body or an output file share a transfer.
    static func eligible(method: String, hasBody: Bool, outputPath: String?) -> Bool {
        !hasBody && outputPath == nil && (method == "GET" || method == "HEAD")
    }

    init(
        method: String, url: String, headers: HeaderFields, envelope: Bool, compression: Bool,
        limits: Configuration.Limits, timeoutMs: Int64, connectTimeoutMs: Int64, resilience: Resilience,
        connection: ConnectionSettings
    ) {
        var lines = ""
        for (name, value) in headers {
            lines += name
            lines += ": "
            lines += value
            lines += "\n"
        }
        self.method = method
        self.url = url
        self.headerLines = lines
        self.envelope = envelope
        self.compression = compression
        self.maxRedirects = limits.maxRedirects
        self.maxResponseBytes = limits.maxResponseBytes
        self.timeoutMs = timeoutMs
        self.connectTimeoutMs = connectTimeoutMs
        self.idleTimeoutMs = resilience.idleTimeoutMs
        self.deadlineMs = resilience.deadlineMs
        self.retry = resilience.retry
        self.connection = ObjectIdentifier(connection)
        var h = Hasher()
        h.combine(method)
        h.combine(url)
        h.combine(lines)
        h.combine(envelope)
        h.combine(compression)
        h.combine(maxRedirects)
        h.combine(maxResponseBytes)
        h.combine(timeoutMs)
        h.combine(connectTimeoutMs)
        h.combine(idleTimeoutMs)
        h.combine(deadlineMs)
        h.combine(retry?.maxAttempts ?? 0)
        h.combine(self.connection)
        hash = h.finalize()
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    static func == (a: CoalescingKey, b: CoalescingKey) -> Bool {
        if a === b { return true }   // the same resolved request sent again
        return a.hash == b.hash && a.method == b.method && a.url == b.url && a.headerLines == b.headerLines
            && a.envelope == b.envelope && a.compression == b.compression && a.maxRedirects == b.maxRedirects
            && a.maxResponseBytes == b.maxResponseBytes && a.timeoutMs == b.timeoutMs
            && a.connectTimeoutMs == b.connectTimeoutMs && a.idleTimeoutMs == b.idleTimeoutMs
            && a.deadlineMs == b.deadlineMs && a.retry == b.retry && a.connection == b.connection
    }
}
