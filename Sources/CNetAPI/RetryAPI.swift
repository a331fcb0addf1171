import CNetCore
import NetCoreBase

// Retry and time limits: the request's retry override, deadline, connect and idle
// timeouts, and the client's retry handler. Each converts and forwards to
// Request+Resilience.swift / NetClient+Retry.swift.

@c @implementation
public func nc_request_set_retry_json(_ request: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ len: Int)
    -> nc_status
{
    guard let json, len >= 0 else { return NC_ERR_INVALID_ARGUMENT }
    let bytes = UnsafeRawBufferPointer(start: json, count: len)
    return edit(request) { (r: inout Request) throws(NetError) in try r.setRetry(json: bytes) }
}

@c @implementation
public func nc_request_set_deadline_ms(_ request: OpaquePointer?, _ ms: Int64) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in try r.setDeadline(ms: ms) }
}

@c @implementation
public func nc_request_set_connect_timeout_ms(_ request: OpaquePointer?, _ ms: Int64) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in try r.setConnectTimeout(ms: ms) }
}

@c @implementation
public func nc_request_set_idle_timeout_ms(_ request: OpaquePointer?, _ ms: Int64) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in try r.setIdleTimeout(ms: ms) }
}

/// A C retry function and its userdata, carried by a Swift closure.
private struct CRetryHook: @unchecked Sendable {
    let fn: nc_retry_fn
    let userdata: UnsafeMutableRawPointer?
}

@c @implementation
public func nc_client_set_retry_handler(
    _ client: OpaquePointer?, _ fn: nc_retry_fn?,
    _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    guard let fn else {
        c.retryHandler = nil
        return NC_OK
    }
    let hook = CRetryHook(fn: fn, userdata: userdata)
    c.retryHandler = { response, error, attempt in
        let box = ErrorBox(error)
        let answer = withExtendedLifetime(box) {
            hook.fn(response.map { unretained($0) }, unretained(box), attempt, hook.userdata)
        }
        switch answer {
        case -2: return .useDefault
        case 0...: return .retry(afterMs: answer)
        default: return .stop
        }
    }
    return NC_OK
}
