import CJansson
import Synchronization

/// A received HTTP response: status, headers, body and the business data.
/// Immutable once built; safe to read from any thread.
public final class Response: @unchecked Sendable {
    /// HTTP status of the final response (after redirects).
    public let status: Int32
    /// The final response's headers.
    public let headers: HeaderStore
    /// The body as received (decompressed; empty for a download to a file).
    public let body: NetBytes
    /// Served from the client's cache (Features/Cache).
    public let fromCache: Bool
    /// The server answered 304 Not Modified and the stored body is served: what
    /// a screen showed from the cache need not be redrawn.
    public let notModified: Bool
    /// The URL that answered (after redirects).
    public var url: String { String(cString: urlText.pointer) }
    /// `url` as a C string, borrowed from the response (nc_response_url).
    public var urlCString: UnsafePointer<CChar> { urlText.pointer }
    private let urlText: CString

    /// Where `data` comes from.
    enum DataSource {
        /// Envelope mode: this member of `json` (nil: JSON null).
        case envelope(UnsafeMutablePointer<json_t>?)
        /// Raw mode: the whole body.
        case body
    }

    private let source: DataSource
    /// Filled by the transfer just before its completion (Metrics.swift): plain
    /// fields, and the attempt log only when a monitor collected one.
    var completionInfo = CompletionInfo()
    /// `metricsJSON`, made on first use.
    let metricsText = Mutex<CString?>(nil)

    /// What is made on first use (the parsed body in raw mode, the data as text).
    /// Unchecked: the pointer is only reached under `lazy`'s lock, and the value it
    /// points to is never modified.
    private struct Lazy: @unchecked Sendable {
        /// The whole body parsed (+1 reference owned by the response).
        var parsed: UnsafeMutablePointer<json_t>?
        var parseDone = false
        var dataText: CString?
    }
    private let lazy: Mutex<Lazy>

    /// `json`: the parsed body, if the caller parsed it; the response takes over
    /// that reference.
    init(
        status: Int32, headers: HeaderStore, body: NetBytes, url: CString,
        json: UnsafeMutablePointer<json_t>?, source: DataSource, fromCache: Bool = false,
        notModified: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.urlText = url
        self.source = source
        self.fromCache = fromCache
        self.notModified = notModified
        lazy = Mutex(Lazy(parsed: json, parseDone: json != nil))
    }

    deinit {
        lazy.withLock { state in
            if let p = state.parsed { json_decref(p) }
        }
    }

    /// The whole body as JSON, parsed once on first use; nil if it is not JSON.
    public var json: JSONValue? { jsonPointer.map { JSONValue(borrowing: $0) } }

    /// The parsed body as a borrowed jansson pointer (valid while `self` lives), for
    /// the C boundary; nil if the body is not JSON.
    package var jsonHandle: OpaquePointer? { jsonPointer.map { OpaquePointer($0) } }

    /// The parsed body, borrowed (valid while `self` lives).
    var jsonPointer: UnsafeMutablePointer<json_t>? {
        lazy.withLock { state in
            if !state.parseDone {
                state.parseDone = true
                if case .success(let v) = JSONValue.parseOwned(body.bytes) { state.parsed = v }
            }
            return state.parsed
        }
    }

    /// The business data as a borrowed jansson pointer (valid while `self` lives):
    /// the envelope's data field (JSON null when absent), or the whole body in raw mode.
    /// For the C boundary; Swift callers read `data` or `decode(_:)`.
    package var dataPointer: OpaquePointer? {
        switch source {
        case .envelope(let member):
            // The member lives as long as the document, which `lazy.parsed` holds.
            return OpaquePointer(member ?? JSON.null)
        case .body:
            return jsonPointer.map { OpaquePointer($0) }
        }
    }

    /// The business data as compact JSON text ("null" for JSON null), made once and
    /// kept as a C string borrowed from `self`; nil when absent. For the C boundary;
    /// Swift callers read `data?.text`.
    package var dataJSON: (pointer: UnsafePointer<CChar>, count: Int)? {
        guard let p = dataPointer else { return nil }
        let s = lazy.withLock { state in
            if let made = state.dataText { return made }
            let made = CString(JSONValue.dump(UnsafeMutablePointer<json_t>(p)) ?? "null")
            state.dataText = made
            return made
        }
        return (s.pointer, s.count)
    }

    /// The business data as a Swift-owned value (a new reference).
    public var data: JSONValue? {
        dataPointer.map { JSONValue(borrowing: UnsafeMutablePointer<json_t>($0)) }
    }
}
