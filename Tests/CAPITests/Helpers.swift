// Shared helpers for the C API tests. Everything here goes through include/netcore.h
// (module CNetCore) and jansson only; NetCore is never imported.
import CNetCore
import Foundation
import MockServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Configurations

/// The three envelope shapes of docs/contract.md#envelope-shapes, as "envelope"
/// configuration objects.
enum Envelope {
    /// {"code":0,"msg":"ok","data":{…}}
    static let a =
        #"{"code":"code","ok_codes":[0],"message":"msg","data":"data","trace_id":"traceId","auth_expired_codes":[401001]}"#
    /// {"success":true,"code":2001,"msg":"…","traceId":"…","data":…}
    static let b = #"{"success":"success","code":"code","message":"msg","data":"data","trace_id":"traceId"}"#
    /// {"status":"OK","errorCode":"0","errorMsg":"","content":…}
    static let c =
        #"{"status":"status","ok_status":["OK"],"code":"errorCode","ok_codes":["0"],"message":"errorMsg","data":"content"}"#
}

/// A configuration JSON text. `envelope` is the JSON of the "envelope" value
/// ("null" for raw mode, nil to leave the key out). `extra` are additional
/// `"key":value` members.
func config(
    base: String? = MockServer.shared.baseURL, envelope: String? = Envelope.a,
    _ extra: String...
) -> String {
    var members: [String] = []
    if let base { members.append(#""base_url":"\#(base)""#) }
    if let envelope { members.append(#""envelope":\#(envelope)"#) }
    members.append(contentsOf: extra)
    return "{" + members.joined(separator: ",") + "}"
}

// MARK: - Small conversions

/// A handle that may cross threads (the C API says which calls are thread-safe).
struct Handle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

/// A C string with arbitrary bytes (e.g. invalid UTF-8), NUL-terminated.
func cBytes(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

/// Canonical compact text of a jansson value (keys sorted); nil for NULL.
func canonical(_ value: UnsafeMutablePointer<json_t>?) -> String? {
    guard let value else { return nil }
    guard let p = json_dumps(value, Int(JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)) else { return nil }
    defer { free(p) }
    return String(cString: p)
}

/// Canonical compact text of JSON text (keys sorted); nil if it is not JSON.
func canonical(_ text: String?) -> String? {
    guard let text else { return nil }
    var err = json_error_t()
    guard let v = json_loads(text, Int(JSON_DECODE_ANY), &err) else { return nil }
    defer { json_decref(v) }
    return canonical(v)
}

/// Parses JSON text into Foundation values (objects as [String: Any]).
func foundationJSON(_ text: String?) -> Any? {
    guard let text, let data = text.data(using: .utf8) else { return nil }
    return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
}

/// Waits (polling) until `condition` holds or `timeout` seconds pass.
@discardableResult
func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        usleep(2_000)
    }
    return true
}

// MARK: - Snapshots of results (taken while the handles are alive)

/// Every accessor of an nc_error, read once.
struct ErrorInfo: Sendable, CustomStringConvertible {
    let domain: Int32
    let domainName: String
    let code: Int64
    let codeStr: String
    let message: String
    let httpStatus: Int32
    let traceID: String?
    let dataJSON: String?
    let dataCanonical: String?
    let body: [UInt8]?
    let attempts: Int32
    let retryable: Int32
    let authExpired: Int32
    let json: String?

    init(_ e: OpaquePointer) {
        domain = nc_error_domain(e)
        domainName = string(nc_error_domain_name(e)) ?? "<NULL>"
        code = nc_error_code(e)
        codeStr = string(nc_error_code_str(e)) ?? "<NULL>"
        message = string(nc_error_message(e)) ?? "<NULL>"
        httpStatus = nc_error_http_status(e)
        traceID = string(nc_error_trace_id(e))
        var n = 0
        if let p = nc_error_data_json(e, &n) {
            dataJSON = String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
        } else {
            dataJSON = nil
        }
        dataCanonical = canonical(nc_error_data(e))
        var bn = 0
        if let p = nc_error_body(e, &bn) {
            body = Array(UnsafeRawBufferPointer(start: p, count: bn))
        } else {
            body = nil
        }
        attempts = nc_error_attempts(e)
        retryable = nc_error_is_retryable(e)
        authExpired = nc_error_is_auth_expired(e)
        json = string(nc_error_json(e))
    }

    var bodyText: String? { body.map { String(decoding: $0, as: UTF8.self) } }

    func isClient(_ code: Int32) -> Bool { domain == NC_DOMAIN_CLIENT && self.code == Int64(code) }

    var description: String { "\(domainName) \(codeStr): \(message)" }
}

/// Every accessor of an nc_response, read once.
struct ResponseInfo: Sendable {
    let status: Int32
    let body: [UInt8]
    let bodyNULTerminated: Bool
    let jsonCanonical: String?
    let dataIsNULL: Bool
    let dataCanonical: String?
    let dataJSON: String?
    let dataJSONLength: Int
    let headers: [Header]
    let fromCache: Int32
    /// nc_response_http_version: "HTTP/1.1", "HTTP/2"; nil from the cache.
    let httpVersion: String?

    struct Header: Sendable, Equatable {
        let name: String
        let value: String
    }

    init(_ r: OpaquePointer) {
        status = nc_response_status(r)
        var n = 0
        if let p = nc_response_body(r, &n) {
            body = Array(UnsafeRawBufferPointer(start: p, count: n))
            bodyNULTerminated = p.load(fromByteOffset: n, as: UInt8.self) == 0
        } else {
            body = []
            bodyNULTerminated = false
        }
        jsonCanonical = canonical(nc_response_json(r))
        let data = nc_response_data(r)
        dataIsNULL = data == nil
        dataCanonical = canonical(data)
        var dn = -1
        if let p = nc_response_data_json(r, &dn) {
            dataJSON = String(cString: p)
        } else {
            dataJSON = nil
        }
        dataJSONLength = dn
        var hs: [Header] = []
        for i in 0..<nc_response_header_count(r) {
            var name: UnsafePointer<CChar>?
            var value: UnsafePointer<CChar>?
            if nc_response_header_at(r, i, &name, &value) == NC_OK {
                hs.append(Header(name: string(name) ?? "<NULL>", value: string(value) ?? "<NULL>"))
            }
        }
        headers = hs
        fromCache = nc_response_from_cache(r)
        httpVersion = string(nc_response_http_version(r))
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The business data as Foundation values.
    var data: Any? { foundationJSON(dataJSON) }
    /// The business data as an object (e.g. /echo's request description).
    var object: [String: Any]? { data as? [String: Any] }
}

/// What one request ended with.
struct Outcome: Sendable, CustomStringConvertible {
    var rc: nc_status = NC_OK
    var response: ResponseInfo?
    var error: ErrorInfo?

    init(rc: nc_status = NC_OK, response: OpaquePointer?, error: OpaquePointer?) {
        self.rc = rc
        self.response = response.map(ResponseInfo.init)
        self.error = error.map(ErrorInfo.init)
    }

    var succeeded: Bool { rc == NC_OK && error == nil && response != nil }
    /// The canonical business data text of a success.
    var data: String? { response?.dataCanonical }
    var echo: [String: Any]? { response?.object }

    var description: String {
        "rc=\(rc) status=\(response?.status ?? -1) error=\(error.map { "\($0)" } ?? "nil") data=\(response?.dataJSON ?? "nil")"
    }
}

// MARK: - Handles with automatic release

enum SetupError: Error, CustomStringConvertible {
    case client(nc_status, String)
    case request(nc_status, String)
    var description: String {
        switch self {
        case .client(let rc, let m): return "nc_client_new failed (\(rc)): \(m)"
        case .request(let rc, let m): return "nc_request_new failed (\(rc)): \(m)"
        }
    }
}

/// An nc_client freed on deinit (or explicitly with `free()`).
final class TestClient: @unchecked Sendable {
    let handle: OpaquePointer
    private let lock = NSLock()
    private var freed = false

    init(_ json: String) throws {
        var c: OpaquePointer?
        var e: OpaquePointer?
        let rc = nc_client_new(json, &c, &e)
        guard rc == NC_OK, let c else {
            let message = string(nc_error_message(e)) ?? ""
            nc_error_free(e)
            throw SetupError.client(rc, message)
        }
        handle = c
    }

    /// nc_client_free, once.
    func free() {
        let first: Bool = lock.withLock {
            if freed { return false }
            freed = true
            return true
        }
        if first { nc_client_free(handle) }
    }

    deinit { free() }

    /// nc_client_send_sync, with both results snapshotted and released.
    func sync(_ request: Request) -> Outcome {
        var r: OpaquePointer?
        var e: OpaquePointer?
        let rc = nc_client_send_sync(handle, request.handle, &r, &e)
        defer {
            nc_response_free(r)
            nc_error_free(e)
        }
        return Outcome(rc: rc, response: r, error: e)
    }

    func sync(_ path: String, method: String = "GET", _ build: (Request) -> Void = { _ in }) throws -> Outcome {
        let request = try Request(method, path)
        build(request)
        return sync(request)
    }

    /// nc_client_send with a collector; returns the status and the task (caller frees).
    @discardableResult
    func send(_ request: Request, _ collector: Collector, task: Bool = true) -> (nc_status, OpaquePointer?) {
        var t: OpaquePointer?
        let rc =
            task
            ? nc_client_send(handle, request.handle, collectFn, collector.userdata, &t)
            : nc_client_send(handle, request.handle, collectFn, collector.userdata, nil)
        return (rc, t)
    }
}

extension TestClient {
    /// nc_client_send with a fresh collector, waiting for the completion. The
    /// collector tells how often the callback ran (check after a later request or
    /// free(): a second call would have come by then).
    func sendAndWait(_ request: Request, timeout: Double = 20) -> Collector {
        let c = Collector()
        let (rc, task) = send(request, c)
        nc_task_free(task)
        if rc == NC_OK { c.wait(timeout: timeout) }
        return c
    }
}

/// An nc_request builder freed on deinit.
final class Request: @unchecked Sendable {
    let handle: OpaquePointer

    init(_ method: String, _ target: String) throws {
        var r: OpaquePointer?
        let rc = nc_request_new(method, target, &r)
        guard rc == NC_OK, let r else { throw SetupError.request(rc, "\(method) \(target)") }
        handle = r
    }

    /// nc_request_new_endpoint.
    init(endpoint name: String) throws {
        var r: OpaquePointer?
        let rc = nc_request_new_endpoint(name, &r)
        guard rc == NC_OK, let r else { throw SetupError.request(rc, "endpoint \(name)") }
        handle = r
    }

    deinit { nc_request_free(handle) }

    @discardableResult func header(_ name: String, _ value: String?) -> nc_status {
        nc_request_set_header(handle, name, value)
    }
    @discardableResult func query(_ name: String, _ value: String?) -> nc_status {
        nc_request_set_query(handle, name, value)
    }
    @discardableResult func params(_ json: String) -> nc_status {
        var s = json
        return s.withUTF8 { buf in
            buf.withMemoryRebound(to: CChar.self) { nc_request_set_params_json(handle, $0.baseAddress, $0.count) }
        }
    }
    @discardableResult func encoding(_ e: Int32) -> nc_status { nc_request_set_encoding(handle, e) }
    @discardableResult func body(_ text: String, _ contentType: String?) -> nc_status {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { nc_request_set_body(handle, $0.baseAddress, $0.count, contentType) }
    }
    @discardableResult func timeout(_ ms: Int64) -> nc_status { nc_request_set_timeout_ms(handle, ms) }
    @discardableResult func envelope(_ on: Int32) -> nc_status { nc_request_set_envelope(handle, on) }
}

/// One client + one synchronous request, for the common case.
func fetch(
    _ config: String, _ path: String, method: String = "GET",
    _ build: (Request) -> Void = { _ in }
) throws -> Outcome {
    let client = try TestClient(config)
    defer { client.free() }
    return try client.sync(path, method: method, build)
}

// MARK: - Completion callbacks

/// Collects the completions of one request: how many times the callback ran, on
/// which thread, and a snapshot of what it received. `hook` runs first, inside the
/// callback, with the borrowed handles.
final class Collector: @unchecked Sendable {
    private let cond = NSCondition()
    private var _calls = 0
    private var _outcome: Outcome?
    private var _threads: [pthread_t] = []
    private var _sawResponse = false
    /// Runs inside the callback before the snapshot (borrowed response, error).
    var hook: ((OpaquePointer?, OpaquePointer?) -> Void)?

    init(hook: ((OpaquePointer?, OpaquePointer?) -> Void)? = nil) { self.hook = hook }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    fileprivate func complete(_ response: OpaquePointer?, _ error: OpaquePointer?) {
        hook?(response, error)
        let outcome = Outcome(response: response, error: error)
        cond.lock()
        _calls += 1
        if _outcome == nil { _outcome = outcome }
        _threads.append(pthread_self())
        _sawResponse = response != nil
        cond.broadcast()
        cond.unlock()
    }

    var calls: Int { cond.withLock { _calls } }
    var outcome: Outcome? { cond.withLock { _outcome } }
    var threads: [pthread_t] { cond.withLock { _threads } }

    /// Waits for the first completion; false on timeout.
    @discardableResult
    func wait(timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock()
        defer { cond.unlock() }
        while _calls == 0 {
            if !cond.wait(until: deadline) { return _calls > 0 }
        }
        return true
    }
}

let collectFn: nc_complete_fn = { response, error, userdata in
    guard let userdata else { return }
    Unmanaged<Collector>.fromOpaque(userdata).takeUnretainedValue().complete(response, error)
}

// MARK: - Mock server helpers

/// The mock server's request counters (GET /_stats), fetched with a separate raw client.
func serverStats(_ server: MockServer) -> (total: Int, paths: [String: Int], connections: Int) {
    guard let outcome = try? fetch("{}", server.url("/_stats")),
        let object = foundationJSON(outcome.response?.dataJSON) as? [String: Any]
    else {
        return (-1, [:], -1)
    }
    return (
        (object["total"] as? Int) ?? -1, (object["paths"] as? [String: Int]) ?? [:],
        (object["connections"] as? Int) ?? -1
    )
}

/// Waits until the server has seen `count` requests to `path`.
@discardableResult
func waitForServer(_ server: MockServer, path: String, count: Int = 1, timeout: Double = 10) -> Bool {
    waitUntil(timeout: timeout) { (serverStats(server).paths[path] ?? 0) >= count }
}

/// Runs `body` on `count` new threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        let thread = Thread {
            body(i)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}

/// A private mock server (for tests that count requests with /_stats).
func privateServer() throws -> MockServer {
    try MockServer()
}

/// A value set from one thread (e.g. inside a callback) and read from another.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: T
    init(_ value: T) { _value = value }
    var value: T {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
}
