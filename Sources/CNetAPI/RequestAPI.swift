import CNetCore
import NetCoreBase

/// The object behind an `nc_request *`: the current Request value, held in an
/// immutable snapshot so a send can borrow it (one retain) instead of copying every
/// field of the struct; each builder change installs a new snapshot.
final class RequestBox {
    final class Snapshot {
        let request: Request
        init(_ request: Request) { self.request = request }
    }
    var current: Snapshot
    init(_ request: Request) { current = Snapshot(request) }
}

@c @implementation
public func nc_request_new(
    _ method: UnsafePointer<CChar>?, _ path_or_url: UnsafePointer<CChar>?,
    _ request_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let request_out, let method = text(method), let target = text(path_or_url) else {
        return NC_ERR_INVALID_ARGUMENT
    }
    do throws(NetError) {
        request_out.pointee = retained(RequestBox(try Request(method: method, target: target)))
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_request_free(_ request: OpaquePointer?) {
    release(request, as: RequestBox.self)
}

@c @implementation
public func nc_request_set_header(
    _ request: OpaquePointer?, _ name: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> nc_status {
    guard let name = text(name) else { return NC_ERR_INVALID_ARGUMENT }
    if value != nil && text(value) == nil { return NC_ERR_INVALID_ARGUMENT }
    let v = text(value)
    return edit(request) { (r: inout Request) throws(NetError) in try r.setHeader(name, v) }
}

@c @implementation
public func nc_request_set_query(
    _ request: OpaquePointer?, _ name: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> nc_status {
    guard let name = text(name) else { return NC_ERR_INVALID_ARGUMENT }
    if value != nil && text(value) == nil { return NC_ERR_INVALID_ARGUMENT }
    let v = text(value)
    return edit(request) { (r: inout Request) throws(NetError) in try r.setQuery(name, v) }
}

@c @implementation
public func nc_request_set_params_json(_ request: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ len: Int)
    -> nc_status
{
    guard let json, len >= 0 else { return NC_ERR_INVALID_ARGUMENT }
    let bytes = UnsafeRawBufferPointer(start: json, count: len)
    return edit(request) { (r: inout Request) throws(NetError) in try r.setParams(json: bytes) }
}

@c @implementation
public func nc_request_set_params(_ request: OpaquePointer?, _ params: UnsafeMutablePointer<json_t>?) -> nc_status {
    guard let params else { return NC_ERR_INVALID_ARGUMENT }
    let value = JSONValue(borrowingOpaque: OpaquePointer(params))
    return edit(request) { (r: inout Request) throws(NetError) in try r.setParams(value) }
}

@c @implementation
public func nc_request_set_encoding(_ request: OpaquePointer?, _ encoding: Int32) -> nc_status {
    guard let e = ParameterEncoding(rawValue: encoding) else { return NC_ERR_INVALID_ARGUMENT }
    return edit(request) { (r: inout Request) throws(NetError) in r.encoding = e }
}

@c @implementation
public func nc_request_set_body(
    _ request: OpaquePointer?, _ bytes: UnsafeRawPointer?, _ len: Int,
    _ content_type: UnsafePointer<CChar>?
) -> nc_status {
    guard len >= 0, bytes != nil || len == 0 else { return NC_ERR_INVALID_ARGUMENT }
    if content_type != nil && text(content_type) == nil { return NC_ERR_INVALID_ARGUMENT }
    let type = text(content_type)
    let buffer = UnsafeRawBufferPointer(start: len > 0 ? bytes : nil, count: len)
    return edit(request) { (r: inout Request) throws(NetError) in try r.setBody(buffer, contentType: type) }
}

@c @implementation
public func nc_request_set_timeout_ms(_ request: OpaquePointer?, _ ms: Int64) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in try r.setTimeout(ms: ms) }
}

@c @implementation
public func nc_request_set_envelope(_ request: OpaquePointer?, _ enabled: Int32) -> nc_status {
    guard enabled == 0 || enabled == 1 else { return NC_ERR_INVALID_ARGUMENT }
    return edit(request) { (r: inout Request) throws(NetError) in r.envelope = enabled == 1 }
}

@c @implementation
public func nc_request_set_output_file(_ request: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> nc_status {
    if path != nil && text(path) == nil { return NC_ERR_INVALID_ARGUMENT }
    let output = text(path)
    return edit(request) { (r: inout Request) throws(NetError) in try r.setOutputPath(output) }
}
