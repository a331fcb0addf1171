import CNetCore
import NetCoreBase

// 18. Stubs: canned answers, recording and replay (Features/Stubs).

@c @implementation
public func nc_client_add_stub(
    _ client: OpaquePointer?, _ route_json: UnsafePointer<CChar>?,
    _ error_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    guard c.hasStubs else {
        error_out?.pointee = retained(ErrorBox(NetError.stubsOff))
        return NC_ERR_INVALID_STATE
    }
    guard let json = text(route_json) else {
        error_out?.pointee = retained(
            ErrorBox(.invalidArgument("stub: the route is NULL or not valid UTF-8; pass a JSON object.")))
        return NC_ERR_INVALID_ARGUMENT
    }
    do throws(NetError) {
        try c.addStub(json: json)
        return NC_OK
    } catch {
        error_out?.pointee = retained(ErrorBox(error))
        return NC_ERR_INVALID_ARGUMENT
    }
}
