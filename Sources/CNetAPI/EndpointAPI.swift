import CNetCore
import NetCoreBase

// netcore.h, "5. Endpoint catalog": argument checks, one call
// into NetCore (NetClient+Endpoints.swift, EndpointCatalog.swift), result conversion.

@c @implementation
public func nc_client_define_endpoint(
    _ client: OpaquePointer?, _ name: UnsafePointer<CChar>?,
    _ spec_json: UnsafePointer<CChar>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let name = text(name), let spec = text(spec_json) else {
        return NC_ERR_INVALID_ARGUMENT
    }
    do throws(NetError) {
        try c.defineEndpoint(name, json: spec)
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_request_new_endpoint(
    _ name: UnsafePointer<CChar>?,
    _ request_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let request_out, let name = text(name) else { return NC_ERR_INVALID_ARGUMENT }
    do throws(NetError) {
        request_out.pointee = retained(RequestBox(try Request(endpoint: name)))
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

/// The request of nc_client_call(_sync): the endpoint and its params; nil when refused.
private func endpointRequest(_ name: UnsafePointer<CChar>?, _ json: UnsafePointer<CChar>?, _ len: Int) -> Request? {
    guard let name = text(name), len >= 0 else { return nil }
    do throws(NetError) {
        var request = try Request(endpoint: name)
        if let json, len > 0 { try request.setParams(json: UnsafeRawBufferPointer(start: json, count: len)) }
        return request
    } catch {
        return nil
    }
}

@c @implementation
public func nc_client_call(
    _ client: OpaquePointer?, _ endpoint: UnsafePointer<CChar>?,
    _ params_json: UnsafePointer<CChar>?, _ len: Int, _ fn: nc_complete_fn?,
    _ userdata: UnsafeMutableRawPointer?,
    _ task_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let fn,
        let request = endpointRequest(endpoint, params_json, len)
    else { return NC_ERR_INVALID_ARGUMENT }
    return send(c, request, fn, userdata, task_out)
}

@c @implementation
public func nc_client_call_sync(
    _ client: OpaquePointer?, _ endpoint: UnsafePointer<CChar>?,
    _ params_json: UnsafePointer<CChar>?, _ len: Int,
    _ response_out: UnsafeMutablePointer<OpaquePointer?>?,
    _ error_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self),
        let request = endpointRequest(endpoint, params_json, len)
    else { return NC_ERR_INVALID_ARGUMENT }
    return sendSync(c, request, response_out, error_out)
}

/// nc_client_send's submission, for a request built here.
private func send(
    _ c: NetClient, _ request: Request, _ fn: nc_complete_fn, _ userdata: UnsafeMutableRawPointer?,
    _ task_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    let task = c.send(request, foreign: (unsafeBitCast(fn, to: UnsafeRawPointer.self), userdata), completion: callC)
    guard let task else { return NC_ERR_INVALID_STATE }
    task_out?.pointee = retained(task)
    return NC_OK
}
