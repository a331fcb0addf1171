// Transfers (docs/transfers.md): progress and body callbacks on a request.
// Downloads are nc_request_set_output_file (RequestAPI.swift).
import CNetCore
import NetCoreBase

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
