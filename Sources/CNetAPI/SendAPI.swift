import CNetCore
import NetCoreBase

// netcore.h, "6. Sending and tasks": nc_client_send(_sync) and the nc_task_* functions.

@c @implementation
public func nc_client_send(
    _ client: OpaquePointer?, _ request: OpaquePointer?, _ fn: nc_complete_fn?,
    _ userdata: UnsafeMutableRawPointer?,
    _ task_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let client, let request, let fn else { return NC_ERR_INVALID_ARGUMENT }
    // Both handles are borrowed for the call, with no retain or release: the header's
    // rules keep them alive and unchanged meanwhile (a client outlives the calls made
    // on it; a request is used by one thread at a time), and no user code runs before
    // this returns (the completion and every hook run on the transfer thread).
    let task = withBorrowed(client, as: NetClient.self) { c in
        withBorrowed(request, as: RequestBox.self) { r in
            c.send(
                r.current.request, foreign: (unsafeBitCast(fn, to: UnsafeRawPointer.self), userdata),
                completion: callC)
        }
    }
    guard let task else { return NC_ERR_INVALID_STATE }
    task_out?.pointee = retained(task)
    return NC_OK
}

@c @implementation
public func nc_client_send_sync(
    _ client: OpaquePointer?, _ request: OpaquePointer?,
    _ response_out: UnsafeMutablePointer<OpaquePointer?>?,
    _ error_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    // Retained for the call (unlike nc_client_send): the send runs hooks on this thread,
    // and a hook that frees the request it is sending must not pull it from under us.
    guard let c = borrow(client, as: NetClient.self), let r = borrow(request, as: RequestBox.self) else {
        return NC_ERR_INVALID_ARGUMENT
    }
    return sendSync(c, r.current.request, response_out, error_out)
}

/// nc_client_send_sync's run and result conversion (nc_client_call_sync uses it too).
func sendSync(
    _ c: NetClient, _ request: Request, _ response_out: UnsafeMutablePointer<OpaquePointer?>?,
    _ error_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    switch c.sendSync(request) {
    case .failure:
        return NC_ERR_INVALID_STATE
    case .success(let (response, error)):
        if let response { response_out?.pointee = retained(response) }
        guard let error else { return NC_OK }
        error_out?.pointee = retained(ErrorBox(error))
        return NC_ERR_FAILED
    }
}

@c @implementation
public func nc_task_cancel(_ task: OpaquePointer?) {
    switch taskObject(task) {
    case let t as Transfer: t.cancel()
    case let b as Batch: b.cancel()
    default: break
    }
}

@c @implementation
public func nc_task_free(_ task: OpaquePointer?) {
    release(task, as: AnyObject.self)
}

@c @implementation
public func nc_task_id(_ task: OpaquePointer?) -> UInt64 {
    (taskObject(task) as? Transfer)?.id ?? 0   // a batch's task: 0
}

@c @implementation
public func nc_task_resume_body(_ task: OpaquePointer?) -> nc_status {
    guard let t = taskObject(task) as? Transfer else { return NC_ERR_INVALID_ARGUMENT }
    switch t.context.resumeBody(t) {
    case .asked: return NC_OK
    case .finished: return NC_ERR_INVALID_STATE
    case .notStreaming: return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_task_current(_ task_out: UnsafeMutablePointer<OpaquePointer?>?) -> nc_status {
    guard let task_out else { return NC_ERR_INVALID_ARGUMENT }
    guard let current = Transfer.current else { return NC_ERR_INVALID_STATE }
    task_out.pointee = retained(current)
    return NC_OK
}

@c @implementation
public func nc_client_cork(_ client: OpaquePointer?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    return c.cork() ? NC_OK : NC_ERR_INVALID_STATE
}

@c @implementation
public func nc_client_uncork(_ client: OpaquePointer?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    return c.uncork() ? NC_OK : NC_ERR_INVALID_STATE
}

/// An nc_task is a Transfer (nc_client_send) or a Batch (nc_batch_send).
@inline(__always)
func taskObject(_ task: OpaquePointer?) -> AnyObject? {
    borrow(task, as: AnyObject.self)
}

/// The completion of nc_client_send (and nc_client_call): calls the C function kept in the transfer's
/// `foreign` words with borrowed handles. Captures nothing (no allocation per send).
func callC(_ transfer: Transfer, _ response: Response?, _ error: NetError?) {
    guard let fnWord = transfer.foreign.0 else { return }
    let fn = unsafeBitCast(
        fnWord, to: (@convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void).self)
    let userdata = transfer.foreign.1
    let responseHandle = response.map { unretained($0) }
    if let error {
        let box = ErrorBox(transfer.identify(error))
        withExtendedLifetime(box) { fn(responseHandle, unretained(box), userdata) }
    } else {
        fn(responseHandle, nil, userdata)
    }
}
