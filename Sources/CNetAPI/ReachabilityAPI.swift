import CNetCore
import NetCoreBase

// netcore.h, "14. Reachability": the client's reachability mode and state.

@c @implementation
public func nc_client_set_reachability(_ client: OpaquePointer?, _ mode: Int32) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let m = ReachabilityMode(rawValue: mode) else {
        return NC_ERR_INVALID_ARGUMENT
    }
    c.reachability = m
    return NC_OK
}

@c @implementation
public func nc_client_set_reachability_handler(
    _ client: OpaquePointer?, _ fn: nc_reachability_fn?, _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    guard let fn else {
        c.reachabilityHandler = nil
        return NC_OK
    }
    let hook = ReachabilityHook(fn: fn, userdata: userdata)
    c.reachabilityHandler = { online in hook.fn(online ? NC_REACH_ONLINE : NC_REACH_OFFLINE, hook.userdata) }
    return NC_OK
}

/// The C function and its userdata, carried by the Swift closure.
private struct ReachabilityHook: @unchecked Sendable {
    let fn: nc_reachability_fn
    let userdata: UnsafeMutableRawPointer?
}

@c @implementation
public func nc_client_reachability(_ client: OpaquePointer?) -> Int32 {
    guard let c = borrow(client, as: NetClient.self) else { return 0 }
    return c.isReachable ? NC_REACH_ONLINE : NC_REACH_OFFLINE
}
