import CNetCore
import NetCoreBase

// netcore.h, "12. Cancellation groups": nc_client_cancel_group, nc_client_cancel_all
// (a request's group is nc_request_set_group, RequestAPI.swift).

@c @implementation
public func nc_client_cancel_group(
    _ client: OpaquePointer?, _ group: UnsafePointer<CChar>?,
    _ cancelledOut: UnsafeMutablePointer<Int>?
) -> nc_status {
    // A name nc_request_set_group refuses (empty, control characters) is refused here
    // too, nothing cancelled (Request.checkGroupName).
    guard let c = borrow(client, as: NetClient.self), let name = text(group), let n = try? c.cancelGroup(name) else {
        return NC_ERR_INVALID_ARGUMENT
    }
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
