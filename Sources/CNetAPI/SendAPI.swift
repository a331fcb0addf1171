import CNetCore
import NetCore

@c @implementation
public func nc_client_send(_ client: OpaquePointer?, _ request: OpaquePointer?, _ fn: nc_complete_fn?,
                           _ userdata: UnsafeMutableRawPointer?,
                           _ task_out: UnsafeMutablePointer<OpaquePointer?>?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let r = borrow(request, as: RequestBox.self),
          let fn else { return ncInvalidArgument }
    let target = UnsafeTransfer(value: (fn, userdata))
    let task = c.send(r.request) { response, error in
        let (fn, userdata) = target.value
        let responseHandle = response.map { unretained($0) }
        if let error {
            let box = ErrorBox(error)
            withExtendedLifetime(box) { fn(responseHandle, unretained(box), userdata) }
        } else {
            fn(responseHandle, nil, userdata)
        }
    }
    guard let task else { return ncInvalidState }
    task_out?.pointee = retained(task)
    return ncOK
}

@c @implementation
public func nc_client_send_sync(_ client: OpaquePointer?, _ request: OpaquePointer?,
                                _ response_out: UnsafeMutablePointer<OpaquePointer?>?,
                                _ error_out: UnsafeMutablePointer<OpaquePointer?>?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let r = borrow(request, as: RequestBox.self) else {
        return ncInvalidArgument
    }
    switch c.sendSync(r.request) {
    case .failure:
        return ncInvalidState
    case .success(let (response, error)):
        if let response { response_out?.pointee = retained(response) }
        guard let error else { return ncOK }
        error_out?.pointee = retained(ErrorBox(error))
        return ncFailed
    }
}

@c @implementation
public func nc_task_cancel(_ task: OpaquePointer?) {
    borrow(task, as: Transfer.self)?.cancel()
}

@c @implementation
public func nc_task_free(_ task: OpaquePointer?) {
    release(task, as: Transfer.self)
}
