import CNetCore
import NetCoreBase

// Cancellation groups: nc_request_set_group, nc_client_cancel_group,
// nc_client_cancel_all (header section "Cancellation groups").

@c @implementation
public func nc_request_set_group(_ request: OpaquePointer?, _ group: UnsafePointer<CChar>?) -> nc_status {
    var name: String? = nil
    if let group {
        guard let t = text(group) else { return NC_ERR_INVALID_ARGUMENT }
        name = t
    }
    return edit(request) { (r: inout Request) throws(NetError) in try r.setGroup(name) }
}

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
