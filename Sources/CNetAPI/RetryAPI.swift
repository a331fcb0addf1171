import CNetCore
import NetCoreBase

// netcore.h, "10. Hooks: retry policy and retry handler": the client's retry
// handler; it converts and forwards to NetClient+Retry.swift. A request's retry
// override and time limits are builder functions (RequestAPI.swift).

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
