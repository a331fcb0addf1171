import CNetCore
import NetCoreBase

#if canImport(Glibc)
import Glibc
#endif

// netcore.h, "16. Cookies": nc_client_cookies_json, nc_client_cookies_clear,
// nc_client_cookies_flush, nc_string_free.

@c @implementation
public func nc_client_cookies_json(
    _ client: OpaquePointer?, _ json_out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let json_out else { return NC_ERR_INVALID_ARGUMENT }
    let text = "[" + c.cookies.map(\.jsonText).joined(separator: ",") + "]"
    // malloc'd (strdup), so that nc_string_free is free().
    guard let copy = strdup(text) else { return NC_ERR_NO_MEMORY }
    json_out.pointee = copy
    return NC_OK
}

@c @implementation
public func nc_client_cookies_clear(_ client: OpaquePointer?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    c.clearCookies()
    return NC_OK
}

@c @implementation
public func nc_client_cookies_flush(
    _ client: OpaquePointer?, _ error_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    do throws(NetError) {
        try c.saveCookies()
        return NC_OK
    } catch {
        error_out?.pointee = retained(ErrorBox(error))
        return NC_ERR_FAILED
    }
}

@c @implementation
public func nc_string_free(_ s: UnsafeMutablePointer<CChar>?) {
    free(s)
}
