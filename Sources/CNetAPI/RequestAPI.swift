import CNetCore
import NetCoreBase

// netcore.h, "4. Request builder": every nc_request_* function, in the header's
// order, but nc_request_new_endpoint (EndpointAPI.swift) and
// nc_request_set_cached_callback (CacheAPI.swift). Each change goes through edit()
// to Request (Request+Upload, +Resilience, +Flags, +Cache, +Transfers.swift).

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
public func nc_request_set_body_file(
    _ request: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ content_type: UnsafePointer<CChar>?
) -> nc_status {
    guard let file = text(path) else { return NC_ERR_INVALID_ARGUMENT }
    if content_type != nil && text(content_type) == nil { return NC_ERR_INVALID_ARGUMENT }
    let type = text(content_type)
    return edit(request) { (r: inout Request) throws(NetError) in try r.setBodyFile(path: file, contentType: type) }
}

@c @implementation
public func nc_request_add_part(
    _ request: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ bytes: UnsafeRawPointer?, _ len: Int,
    _ filename: UnsafePointer<CChar>?, _ content_type: UnsafePointer<CChar>?
) -> nc_status {
    guard len >= 0, bytes != nil || len == 0, let field = text(name) else { return NC_ERR_INVALID_ARGUMENT }
    if filename != nil && text(filename) == nil { return NC_ERR_INVALID_ARGUMENT }
    if content_type != nil && text(content_type) == nil { return NC_ERR_INVALID_ARGUMENT }
    let file = text(filename), type = text(content_type)
    let buffer = UnsafeRawBufferPointer(start: len > 0 ? bytes : nil, count: len)
    return edit(request) { (r: inout Request) throws(NetError) in
        try r.addPart(name: field, data: buffer, filename: file, contentType: type)
    }
}

@c @implementation
public func nc_request_add_file_part(
    _ request: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?,
    _ filename: UnsafePointer<CChar>?, _ content_type: UnsafePointer<CChar>?
) -> nc_status {
    guard let field = text(name), let file = text(path) else { return NC_ERR_INVALID_ARGUMENT }
    if filename != nil && text(filename) == nil { return NC_ERR_INVALID_ARGUMENT }
    if content_type != nil && text(content_type) == nil { return NC_ERR_INVALID_ARGUMENT }
    let sent = text(filename), type = text(content_type)
    return edit(request) { (r: inout Request) throws(NetError) in
        try r.addFilePart(name: field, path: file, filename: sent, contentType: type)
    }
}

@c @implementation
public func nc_request_set_envelope(_ request: OpaquePointer?, _ enabled: Int32) -> nc_status {
    guard enabled == 0 || enabled == 1 else { return NC_ERR_INVALID_ARGUMENT }
    return edit(request) { (r: inout Request) throws(NetError) in r.envelope = enabled == 1 }
}

@c @implementation
public func nc_request_set_timeout_ms(_ request: OpaquePointer?, _ ms: Int64) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in try r.setTimeout(ms: ms) }
}

@c @implementation
public func nc_request_set_connect_timeout_ms(_ request: OpaquePointer?, _ ms: Int64) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in try r.setConnectTimeout(ms: ms) }
}

@c @implementation
public func nc_request_set_idle_timeout_ms(_ request: OpaquePointer?, _ ms: Int64) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in try r.setIdleTimeout(ms: ms) }
}

@c @implementation
public func nc_request_set_deadline_ms(_ request: OpaquePointer?, _ ms: Int64) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in try r.setDeadline(ms: ms) }
}

@c @implementation
public func nc_request_set_retry_json(_ request: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ len: Int)
    -> nc_status
{
    guard let json, len >= 0 else { return NC_ERR_INVALID_ARGUMENT }
    let bytes = UnsafeRawBufferPointer(start: json, count: len)
    return edit(request) { (r: inout Request) throws(NetError) in try r.setRetry(json: bytes) }
}

@c @implementation
public func nc_request_set_max_redirects(_ request: OpaquePointer?, _ max: Int32) -> nc_status {
    guard max == -1 || Configuration.Limits.maxRedirectsRange.contains(Int64(max)) else {
        return NC_ERR_INVALID_ARGUMENT
    }
    return edit(request) { (r: inout Request) throws(NetError) in r.maxRedirects = max < 0 ? nil : Int(max) }
}

@c @implementation
public func nc_request_set_flags(_ request: OpaquePointer?, _ flags: UInt32) -> nc_status {
    let value = RequestFlags(rawValue: flags)
    guard RequestFlags.all.isSuperset(of: value) else { return NC_ERR_INVALID_ARGUMENT }
    return edit(request) { (r: inout Request) throws(NetError) in r.flags = value }
}

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
public func nc_request_set_label(_ request: OpaquePointer?, _ label: UnsafePointer<CChar>?) -> nc_status {
    var name: String? = nil
    if let label {
        guard let t = text(label) else { return NC_ERR_INVALID_ARGUMENT }
        name = t
    }
    return edit(request) { (r: inout Request) throws(NetError) in try r.setLabel(name) }
}

@c @implementation
public func nc_request_set_cache_policy(_ request: OpaquePointer?, _ policy: Int32) -> nc_status {
    guard let p = CachePolicy(rawValue: policy) else { return NC_ERR_INVALID_ARGUMENT }
    return edit(request) { (r: inout Request) throws(NetError) in r.cachePolicy = p }
}

@c @implementation
public func nc_request_set_output_file(_ request: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> nc_status {
    if path != nil && text(path) == nil { return NC_ERR_INVALID_ARGUMENT }
    let output = text(path)
    return edit(request) { (r: inout Request) throws(NetError) in try r.setOutputPath(output) }
}

@c @implementation
public func nc_request_set_progress(
    _ request: OpaquePointer?, _ fn: nc_progress_fn?, _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in r.setProgress(fn: fn, userdata: userdata) }
}

@c @implementation
public func nc_request_set_body_callback(
    _ request: OpaquePointer?, _ fn: nc_body_fn?, _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    edit(request) { (r: inout Request) throws(NetError) in r.setBodyCallback(fn: fn, userdata: userdata) }
}

@c @implementation
public func nc_request_set_head_callback(
    _ request: OpaquePointer?, _ fn: nc_head_fn?, _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    // nc_head_fn's `const nc_response *` is the response's unretained pointer, as
    // TransferCallbacks.HeadFn passes it: the same C function type.
    let head = fn.map { unsafeBitCast($0, to: TransferCallbacks.HeadFn.self) }
    return edit(request) { (r: inout Request) throws(NetError) in r.setHeadCallback(fn: head, userdata: userdata) }
}
