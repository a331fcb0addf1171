import CNetCore
import NetCoreBase

#if canImport(Glibc)
import Glibc
#endif

// netcore.h, "15. Response cache": a request's cached callback and the client's cache
// control, partition and counters (a request's policy is a builder function,
// RequestAPI.swift; a response's not-modified mark is in ResponseAPI.swift). Each
// converts and forwards to Request+Cache.swift / NetClient+Cache.swift.

/// A C complete function and its userdata, carried by a Swift closure.
private struct CCachedHook: @unchecked Sendable {
    let fn: nc_complete_fn
    let userdata: UnsafeMutableRawPointer?
}

@c @implementation
public func nc_request_set_cached_callback(
    _ request: OpaquePointer?, _ fn: nc_complete_fn?, _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    guard let fn else { return edit(request) { (r: inout Request) throws(NetError) in r.cachedCallback = nil } }
    let hook = CCachedHook(fn: fn, userdata: userdata)
    return edit(request) { (r: inout Request) throws(NetError) in
        r.cachedCallback = { response, error in
            let responseHandle = unretained(response)
            if let error {
                let box = ErrorBox(error)
                withExtendedLifetime(box) { hook.fn(responseHandle, unretained(box), hook.userdata) }
            } else {
                hook.fn(responseHandle, nil, hook.userdata)
            }
        }
    }
}

@c @implementation
public func nc_client_cache_clear(_ client: OpaquePointer?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    c.cacheClear()
    return NC_OK
}

@c @implementation
public func nc_client_cache_remove(_ client: OpaquePointer?, _ url_prefix: UnsafePointer<CChar>?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let url_prefix, url_prefix.pointee != 0 else {
        return NC_ERR_INVALID_ARGUMENT
    }
    c.cacheRemove(prefix: String(cString: url_prefix))
    return NC_OK
}

@c @implementation
public func nc_client_cache_stats_json(
    _ client: OpaquePointer?, _ buf: UnsafeMutablePointer<CChar>?, _ cap: Int, _ len_out: UnsafeMutablePointer<Int>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let buf else { return NC_ERR_INVALID_ARGUMENT }
    guard let stats = c.cacheStats else { return NC_ERR_INVALID_STATE }
    var text = Array(stats.json.utf8)
    // A buffer too small for the whole text (a program built against 0.3, whose
    // NC_CACHE_STATS_MAX buffer always held it) gets the members 0.3 wrote.
    if cap <= text.count { text = Array(stats.jsonWithoutSkipped.utf8) }
    guard cap > text.count else { return NC_ERR_INVALID_ARGUMENT }
    text.withUnsafeBytes { raw in
        if let base = raw.baseAddress { memcpy(buf, base, text.count) }
    }
    buf[text.count] = 0
    len_out?.pointee = text.count
    return NC_OK
}

@c @implementation
public func nc_client_set_cache_partition(_ client: OpaquePointer?, _ partition: UnsafePointer<CChar>?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    var name: String? = nil
    if let partition {
        guard let s = text(partition), !s.isEmpty else { return NC_ERR_INVALID_ARGUMENT }
        name = s
    }
    switch c.changeCachePartition(name) {
    case .changed: return NC_OK
    case .emptyName: return NC_ERR_INVALID_ARGUMENT
    case .noCache, .shared: return NC_ERR_INVALID_STATE
    case .failed: return NC_ERR_NO_MEMORY
    }
}
