import CNetCore
import NetCoreBase

// Uploads (include/netcore.h "Uploads"; NetCore: Request+Upload.swift).

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
