import CNetCore
import NetCoreBase

// netcore.h, "9. Hooks: request adapters (nc_outgoing)": nc_client_add_adapter and
// the nc_outgoing_* functions an adapter calls (NetClient+Adapters.swift).

/// A C adapter (nc_adapter_fn + userdata) as a NetCore RequestAdapter. The
/// userdata belongs to the caller, who keeps it valid while the client lives.
final class CAdapter: RequestAdapter, @unchecked Sendable {
    let fn: nc_adapter_fn
    let userdata: UnsafeMutableRawPointer?

    init(_ fn: nc_adapter_fn, _ userdata: UnsafeMutableRawPointer?) {
        self.fn = fn
        self.userdata = userdata
    }

    func adapt(_ request: inout OutgoingRequest) throws(NetError) {
        let box = OutgoingBox(request)
        let status = withExtendedLifetime(box) { fn(unretained(box), userdata) }
        request = box.request
        if box.failed || status != NC_OK {
            let named = String(cString: nc_status_str(status))
            throw NetError.adapterFailed(
                box.failMessage
                    ?? "A request adapter refused the request (it returned \(named)); nothing was sent.")
        }
    }
}

/// The object behind an `nc_outgoing *`, alive for one adapter call. Strings
/// handed out are kept until it goes.
final class OutgoingBox {
    var request: OutgoingRequest
    var failed = false
    var failMessage: String?
    private var kept: [CString] = []
    private var methodC: CString?
    private var urlC: CString?
    private var urlCText: String?
    private var paramsC: CString?

    init(_ request: OutgoingRequest) { self.request = request }

    func keep(_ s: String) -> UnsafePointer<CChar> {
        let c = CString(s)
        kept.append(c)
        return c.pointer
    }

    var method: UnsafePointer<CChar> {
        if let methodC { return methodC.pointer }
        let c = CString(request.method)
        methodC = c
        return c.pointer
    }

    var url: UnsafePointer<CChar> {
        // (A text handed out before nc_outgoing_set_query stays valid: kept.)
        if let urlC, urlCText == request.url { return urlC.pointer }
        if let urlC { kept.append(urlC) }
        let c = CString(request.url)
        urlC = c
        urlCText = request.url
        return c.pointer
    }

    var paramsJSON: UnsafePointer<CChar>? {
        if let paramsC { return paramsC.pointer }
        guard let params = request.params else { return nil }
        let c = CString(params.text)
        paramsC = c
        return c.pointer
    }
}

@c @implementation
public func nc_client_add_adapter(
    _ client: OpaquePointer?, _ fn: nc_adapter_fn?,
    _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let fn else { return NC_ERR_INVALID_ARGUMENT }
    c.addAdapter(CAdapter(fn, userdata))
    return NC_OK
}

@c @implementation
public func nc_outgoing_method(_ out: OpaquePointer?) -> UnsafePointer<CChar>? {
    borrow(out, as: OutgoingBox.self)?.method
}

@c @implementation
public func nc_outgoing_url(_ out: OpaquePointer?) -> UnsafePointer<CChar>? {
    borrow(out, as: OutgoingBox.self)?.url
}

@c @implementation
public func nc_outgoing_header(_ out: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let box = borrow(out, as: OutgoingBox.self), let name = text(name),
        let value = box.request.header(name)
    else { return nil }
    return box.keep(value)
}

@c @implementation
public func nc_outgoing_body(_ out: OpaquePointer?, _ len_out: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    len_out?.pointee = 0
    guard let box = borrow(out, as: OutgoingBox.self), let body = box.request.body else { return nil }
    len_out?.pointee = body.count
    return UnsafeRawPointer(body.pointer)
}

@c @implementation
public func nc_outgoing_set_header(
    _ out: OpaquePointer?, _ name: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> nc_status {
    guard let box = borrow(out, as: OutgoingBox.self), let name = text(name) else { return NC_ERR_INVALID_ARGUMENT }
    guard let v = optionalText(value) else { return NC_ERR_INVALID_ARGUMENT }
    do throws(NetError) {
        try box.request.setHeader(name, v)
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_outgoing_fail(_ out: OpaquePointer?, _ message: UnsafePointer<CChar>?) -> nc_status {
    guard let box = borrow(out, as: OutgoingBox.self) else { return NC_ERR_INVALID_ARGUMENT }
    guard let m = optionalText(message) else { return NC_ERR_INVALID_ARGUMENT }
    box.failed = true
    box.failMessage = m
    return NC_OK
}

@c @implementation
public func nc_outgoing_set_query(
    _ out: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) -> nc_status {
    guard let box = borrow(out, as: OutgoingBox.self), let name = text(name) else { return NC_ERR_INVALID_ARGUMENT }
    guard let v = optionalText(value) else { return NC_ERR_INVALID_ARGUMENT }
    do throws(NetError) {
        try box.request.setQuery(name, v)
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_outgoing_set_body(
    _ out: OpaquePointer?, _ data: UnsafeRawPointer?, _ len: Int, _ content_type: UnsafePointer<CChar>?
) -> nc_status {
    guard let box = borrow(out, as: OutgoingBox.self), len >= 0, data != nil || len == 0 else {
        return NC_ERR_INVALID_ARGUMENT
    }
    var type: String? = nil
    if let content_type {
        guard let s = text(content_type) else { return NC_ERR_INVALID_ARGUMENT }
        type = s
    }
    let bytes: NetBytes? = data.map { NetBytes(bytes: UnsafeRawBufferPointer(start: $0, count: len)) }
    do throws(NetError) {
        try box.request.setBody(bytes, contentType: type)
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_outgoing_params_json(_ out: OpaquePointer?) -> UnsafePointer<CChar>? {
    borrow(out, as: OutgoingBox.self)?.paramsJSON
}

/// A C string that may be NULL: `.some(nil)` for NULL, `.some(text)` for valid
/// UTF-8, nil (refused) for anything else.
private func optionalText(_ p: UnsafePointer<CChar>?) -> String?? {
    guard let p else { return .some(nil) }
    guard let s = text(p) else { return nil }
    return .some(s)
}
