import CNetCore
import NetCoreBase

// netcore.h, "7. Responses": the nc_response_* readers (status, headers, body, data,
// cache marks, URL, HTTP version, metrics) and the response's references.

@c @implementation
public func nc_response_status(_ response: OpaquePointer?) -> Int32 {
    guard let response else { return 0 }
    return withBorrowed(response, as: Response.self) { $0.status }
}

@c @implementation
public func nc_response_header(_ response: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let response, let name else { return nil }
    return withBorrowed(response, as: Response.self) { $0.headers.value(name) }
}

@c @implementation
public func nc_response_header_count(_ response: OpaquePointer?) -> Int {
    borrow(response, as: Response.self)?.headers.count ?? 0
}

@c @implementation
public func nc_response_header_at(
    _ response: OpaquePointer?, _ index: Int,
    _ name_out: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
    _ value_out: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> nc_status {
    guard let r = borrow(response, as: Response.self), let entry = r.headers.entry(index) else {
        return NC_ERR_INVALID_ARGUMENT
    }
    name_out?.pointee = entry.name
    value_out?.pointee = entry.value
    return NC_OK
}

@c @implementation
public func nc_response_body(_ response: OpaquePointer?, _ len_out: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    guard let response else { return nil }
    return withBorrowed(response, as: Response.self) { r in
        len_out?.pointee = r.body.count
        return UnsafeRawPointer(r.body.pointer)
    }
}

@c @implementation
public func nc_response_json(_ response: OpaquePointer?) -> UnsafeMutablePointer<json_t>? {
    guard let response else { return nil }
    return withBorrowed(response, as: Response.self) { jsonPointer($0.jsonHandle) }
}

@c @implementation
public func nc_response_data(_ response: OpaquePointer?) -> UnsafeMutablePointer<json_t>? {
    guard let response else { return nil }
    return withBorrowed(response, as: Response.self) { jsonPointer($0.dataPointer) }
}

@c @implementation
public func nc_response_data_json(_ response: OpaquePointer?, _ len_out: UnsafeMutablePointer<Int>?) -> UnsafePointer<
    CChar
>? {
    guard let r = borrow(response, as: Response.self), let (p, n) = r.dataJSON else { return nil }
    len_out?.pointee = n
    return p
}

@c @implementation
public func nc_response_from_cache(_ response: OpaquePointer?) -> Int32 {
    borrow(response, as: Response.self)?.fromCache == true ? 1 : 0
}

@c @implementation
public func nc_response_not_modified(_ response: OpaquePointer?) -> Int32 {
    borrow(response, as: Response.self)?.notModified == true ? 1 : 0
}

@c @implementation
public func nc_response_url(_ response: OpaquePointer?) -> UnsafePointer<CChar>? {
    borrow(response, as: Response.self)?.urlCString
}

@c @implementation
public func nc_response_http_version(_ response: OpaquePointer?) -> UnsafePointer<CChar>? {
    borrow(response, as: Response.self)?.httpVersion?.cString
}

@c @implementation
public func nc_response_metrics_json(_ response: OpaquePointer?) -> UnsafePointer<CChar>? {
    borrow(response, as: Response.self)?.metricsJSON
}

@c @implementation
public func nc_response_retain(_ response: OpaquePointer?) -> OpaquePointer? {
    guard let r = borrow(response, as: Response.self) else { return nil }
    return retained(r)
}

@c @implementation
public func nc_response_free(_ response: OpaquePointer?) {
    release(response, as: Response.self)
}

/// The error of a mismatch in nc_response_data_unpack, whose C half
/// (Sources/CNetVariadic/ncvariadic.c) calls this: PARSE `decodingFailed` with
/// `message` and the response's status, body and data (as `Response.decode`'s). Not
/// exported from libnetcore.so (the version script exports nc_* only).
@_cdecl("ncvariadic_unpack_failed")
public func ncvariadic_unpack_failed(_ response: UnsafeRawPointer?, _ message: UnsafePointer<CChar>?) -> OpaquePointer?
{
    guard let response, let r = borrow(OpaquePointer(response), as: Response.self) else { return nil }
    let text = message.map { String(cString: $0) }   // invalid UTF-8 (a key) is repaired
    return retained(ErrorBox(r.dataMismatch(text ?? "Could not unpack the data.")))
}
