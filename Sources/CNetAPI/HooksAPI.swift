import CNetCore
import NetCoreBase

// netcore.h, "8. Hooks: error handler, auth expired, events, logging": the error /
// auth-expired / event / log handlers and the event mask. Each function converts
// and forwards to NetClient+Hooks.swift.

/// A C function pointer and its userdata, carried by a Swift closure.
private struct CHook<F>: @unchecked Sendable {
    let fn: F
    let userdata: UnsafeMutableRawPointer?
}

/// A Swift failure handler calling `fn` with borrowed handles.
private func failureHandler(_ fn: nc_complete_fn?, _ userdata: UnsafeMutableRawPointer?)
    -> (@Sendable (Response?, NetError) -> Void)?
{
    guard let fn else { return nil }
    let hook = CHook(fn: fn, userdata: userdata)
    return { response, error in
        let box = ErrorBox(error)
        withExtendedLifetime(box) {
            hook.fn(response.map { unretained($0) }, unretained(box), hook.userdata)
        }
    }
}

@c @implementation
public func nc_client_set_error_handler(
    _ client: OpaquePointer?, _ fn: nc_complete_fn?,
    _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    c.errorHandler = failureHandler(fn, userdata)
    return NC_OK
}

@c @implementation
public func nc_client_set_auth_expired_handler(
    _ client: OpaquePointer?, _ fn: nc_complete_fn?,
    _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    c.authExpiredHandler = failureHandler(fn, userdata)
    return NC_OK
}

/// Hands `text` to an nc_event_fn as a NUL-terminated buffer and its length.
private func callEventFn(_ hook: CHook<nc_event_fn>, _ text: String) {
    let count = text.utf8.count
    text.withCString { hook.fn($0, count, hook.userdata) }
}

@c @implementation
public func nc_client_set_event_handler(
    _ client: OpaquePointer?, _ fn: nc_event_fn?,
    _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    guard let fn else {
        c.eventHandler = nil
        return NC_OK
    }
    let hook = CHook(fn: fn, userdata: userdata)
    c.eventHandler = { event in event.withJSON { hook.fn($0, $1, hook.userdata) } }
    return NC_OK
}

@c @implementation
public func nc_client_set_event_mask(_ client: OpaquePointer?, _ mask: UInt32) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), mask & ~RequestEvent.Kind.allBits == 0 else {
        return NC_ERR_INVALID_ARGUMENT
    }
    c.eventMask = mask
    return NC_OK
}

@c @implementation
public func nc_client_set_log_handler(
    _ client: OpaquePointer?, _ level: Int32, _ fn: nc_event_fn?,
    _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let level = LogLevel(rawValue: level) else {
        return NC_ERR_INVALID_ARGUMENT
    }
    guard level != .off else {
        c.logHandler = nil
        return NC_OK
    }
    guard let fn else {
        c.logHandler = .standardError(level: level)
        return NC_OK
    }
    let hook = CHook(fn: fn, userdata: userdata)
    c.logHandler = LogHandler(level: level) { _, line in callEventFn(hook, line) }
    return NC_OK
}
