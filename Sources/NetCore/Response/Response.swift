import CJansson
import Synchronization

/// A received HTTP response: status, headers, body and the business data.
/// Immutable once built; safe to read from any thread.
public final class Response: @unchecked Sendable {
    /// HTTP status of the final response (after redirects).
    public let status: Int32
    public let headers: HeaderStore
    public let body: ByteBuffer
    /// Served from the client's cache.
    public let fromCache: Bool
    /// The URL that answered (after redirects).
    public var url: String { String(cString: urlText.pointer) }
    private let urlText: CString

    /// Where `data` comes from.
    enum DataSource {
        /// Envelope mode: this member of `json` (nil: JSON null).
        case envelope(UnsafeMutablePointer<json_t>?)
        /// Raw mode: the whole body.
        case body
    }

    private let source: DataSource

    /// What is made on first use (the parsed body in raw mode, the data as text).
    private struct Lazy {
        var parsed: JSONValue?
        var parseDone = false
        var dataText: CString?
    }
    private let lazy: Mutex<Lazy>

    init(status: Int32, headers: HeaderStore, body: ByteBuffer, url: CString,
         json: JSONValue?, source: DataSource, fromCache: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.urlText = url
        self.source = source
        self.fromCache = fromCache
        lazy = Mutex(Lazy(parsed: json, parseDone: json != nil))
    }

    /// The whole body as JSON, parsed once on first use; nil if it is not JSON.
    public var json: JSONValue? {
        lazy.withLock { state in
            if !state.parseDone {
                state.parseDone = true
                if case .success(let v) = JSONValue.parse(body.bytes) { state.parsed = v }
            }
            return state.parsed
        }
    }

    /// The business data as a borrowed jansson pointer (valid while `self` lives):
    /// the envelope's data field (JSON null when absent), or the whole body in raw mode.
    public var dataPointer: OpaquePointer? {
        switch source {
        case .envelope(let member):
            _ = json // keeps the document alive via `parsed` (already set)
            return OpaquePointer(member ?? JSON.null)
        case .body:
            return json.map { $0.opaque }
        }
    }

    /// The business data as compact JSON text ("null" for JSON null); nil when absent.
    public var dataJSON: (pointer: UnsafePointer<CChar>, count: Int)? {
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
