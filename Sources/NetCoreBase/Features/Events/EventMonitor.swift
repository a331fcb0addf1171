/// Receives the life of every request of a client (seam 3,
/// docs/contract.md#the-request-lifecycle): its start, the end of each attempt (with
/// libcurl's timings), and its completion. Install one with `NetClient.eventMonitor`;
/// with none installed the transfer loop reads no timings and builds no events.
///
/// Threads: called on the thread that drives the request — the client's transfer
/// thread, or the caller's own for `sendSync` — with no lock held. Keep it short:
/// it delays the client's other transfers while it runs. It may send, cancel and
/// change the client's settings. Every method has a default that does nothing.
public protocol EventMonitor: AnyObject, Sendable {
    /// The request is about to be sent for the first time.
    func requestDidStart(_ event: RequestEvent)
    /// An attempt ended (its redirects included); `event.timings` are its own.
    func attemptDidEnd(_ event: RequestEvent)
    /// Another attempt will start after `event.delayMs` for `event.reason`.
    func retryScheduled(_ event: RequestEvent)
    /// The request's single completion is about to run.
    func requestDidComplete(_ event: RequestEvent)
    /// An answer comes from the client's cache (Features/Cache): a stored answer
    /// served, a 304 answered with the stored body, a failure answered from the
    /// cache, or cache-then-network's early copy. Just before that answer is
    /// delivered (for the completion: just before `requestDidComplete`).
    func cacheDidHit(_ event: RequestEvent)
    /// Whether this monitor takes events of `kind` at all (asked before each one is
    /// built): for a kind it does not, no event is made and its method is not
    /// called. Every kind unless the monitor implements it.
    func wants(_ kind: RequestEvent.Kind) -> Bool
    /// Whether requests keep an attempt log while this monitor is installed: read
    /// libcurl's timings at the end of each hop, give `attemptDidEnd` events their
    /// `timings`, and fill the response's `metrics.attemptLog`. Asked once per
    /// request, when it is sent. True unless the monitor implements it; the client's
    /// own hooks say false when only a log at WARN or INFO is installed (its lines
    /// carry no timings).
    var keepsAttemptLog: Bool { get }
}

extension EventMonitor {
    /// Every kind unless the monitor implements it.
    public func wants(_ kind: RequestEvent.Kind) -> Bool { true }
    /// True unless the monitor implements it.
    public var keepsAttemptLog: Bool { true }
    /// Does nothing unless the monitor implements it.
    public func requestDidStart(_ event: RequestEvent) {}
    /// Does nothing unless the monitor implements it.
    public func attemptDidEnd(_ event: RequestEvent) {}
    /// Does nothing unless the monitor implements it.
    public func retryScheduled(_ event: RequestEvent) {}
    /// Does nothing unless the monitor implements it.
    public func requestDidComplete(_ event: RequestEvent) {}
    /// Does nothing unless the monitor implements it.
    public func cacheDidHit(_ event: RequestEvent) {}
}

/// One event of a request's life (EventMonitor).
public struct RequestEvent: Sendable {
    /// Which moment of the request this event marks; raw values are the JSON `"event"` names.
    public enum Kind: String, Sendable, CaseIterable {
        case requestStart = "request_start"
        case attemptEnd = "attempt_end"
        case retry = "retry"
        case requestEnd = "request_end"
        case cacheHit = "cache_hit"

        /// The kind's bit in an event mask (`NetClient.eventKinds`; the C API's
        /// NC_EVENT_* values, which are the same).
        public var bit: UInt32 {
            switch self {
            case .requestStart: 0x01
            case .attemptEnd: 0x02
            case .retry: 0x04
            case .cacheHit: 0x08
            case .requestEnd: 0x10
            }
        }

        /// Every kind's bit (NC_EVENT_ALL).
        public static let allBits: UInt32 = 0x1f
    }

    /// Which moment this event marks.
    public var kind: Kind
    /// The request's number among its client's (`Transfer.id`), from 1.
    public var id: UInt64
    /// The request's method.
    public var method: String
    /// The URL of the request as resolved at send, redacted (Redaction.swift: no
    /// userinfo, fragment, or value of a secret-looking query parameter).
    public var url: String {
        didSet { urlIsRedacted = false }
    }
    /// `url` was redacted when the event was made (a transfer's events): rendering
    /// skips doing it again.
    var urlIsRedacted = false
    /// The attempt, from 1 (0 in `requestStart`).
    public var attempt: Int32
    /// The HTTP status of the attempt's last response, 0 if none.
    public var status: Int32 = 0
    /// The failure, for `attemptEnd` and `requestEnd`; nil on success.
    public var error: NetError? = nil
    /// `retry`: the wait before the next attempt, and why.
    public var delayMs: Int64? = nil
    /// Why a retry was scheduled (`retry` events), e.g. "status 503".
    public var reason: String? = nil
    /// `attemptEnd`: libcurl's timings of the attempt.
    public var timings: AttemptTimings? = nil
    /// The answer came from the client's cache (`requestEnd`, `cacheHit`).
    public var fromCache: Bool = false
    /// `cacheHit`: the server answered 304 and the stored body is served.
    public var notModified: Bool = false
    /// `attemptEnd`, `requestEnd`: a stub gave the response, not the network
    /// ("stubs", Features/Stubs). Since 0.4.
    public var stubbed: Bool = false
    /// `cacheHit`: the client cache's counters just before this answer (ResponseCache.stats).
    public var cache: CacheStats? = nil
    /// `requestEnd`: microseconds from the start of the first attempt to the completion.
    public var elapsedUs: Int64? = nil
    /// The catalog endpoint the request named, if any.
    public var endpoint: String? = nil
    /// The caller's label of the request (`Request.setLabel`), if any.
    public var label: String? = nil
}

/// libcurl's timings of one attempt, in microseconds from the start of its last hop
/// (CURLINFO_*_TIME_T); `totalUs` and `bytes` add up every hop of the attempt.
public struct AttemptTimings: Sendable, Equatable {
    /// Name resolution time, µs.
    public var dnsUs: Int64 = 0
    /// Time until the TCP connection was up, µs.
    public var connectUs: Int64 = 0
    /// Time until the TLS handshake ended, µs (0 over http).
    public var tlsUs: Int64 = 0
    /// Time until the first response byte, µs.
    public var firstByteUs: Int64 = 0
    /// The attempt's whole time, µs.
    public var totalUs: Int64 = 0
    /// Body bytes received.
    public var bytes: Int64 = 0
    /// Hops (1 + redirects followed).
    public var hops: Int32 = 0
    /// The HTTP version of the attempt's last hop (nil: no answer).
    public var httpVersion: HTTPVersionSeen? = nil
    /// The TLS version of the attempt's last hop's connection ("TLSv1.3"), as
    /// OpenSSL names it; nil over http.
    public var tlsVersion: String? = nil

    /// All timings zero.
    public init() {}

    /// An event with the given fields (tests and custom monitors).
    public init(
        dnsUs: Int64, connectUs: Int64, tlsUs: Int64, firstByteUs: Int64, totalUs: Int64,
        bytes: Int64, hops: Int32
    ) {
        self.dnsUs = dnsUs
        self.connectUs = connectUs
        self.tlsUs = tlsUs
        self.firstByteUs = firstByteUs
        self.totalUs = totalUs
        self.bytes = bytes
        self.hops = hops
    }

    /// This attempt's timings after one more hop ended with `hop`'s.
    mutating func add(_ hop: AttemptTimings) {
        let total = totalUs &+ hop.totalUs, bytes = self.bytes &+ hop.bytes, hops = self.hops &+ 1
        self = hop
        totalUs = total
        self.bytes = bytes
        self.hops = hops
    }
}
