import CNetCore
import NetCoreBase

// netcore.h, "12. Cancellation groups": nc_client_cancel_group, nc_client_cancel_all
// (a request's group is nc_request_set_group, RequestAPI.swift).

@c @implementation
public func nc_client_cancel_group(
    _ client: OpaquePointer?, _ group: UnsafePointer<CChar>?,
    _ cancelledOut: UnsafeMutablePointer<Int>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let name = text(group), !name.isEmpty else {
        return NC_ERR_INVALID_ARGUMENT
    }
    let n = c.cancelGroup(name)
    cancelledOut?.pointee = n
    return NC_OK
}

@c @implementation
public func nc_client_cancel_all(_ client: OpaquePointer?, _ cancelledOut: UnsafeMutablePointer<Int>?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    let n = c.cancelAll()
    cancelledOut?.pointee = n
    return NC_OK
}
