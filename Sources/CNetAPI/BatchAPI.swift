import CNetCore
import NetCoreBase

// netcore.h, "13. Batches": the nc_batch_* functions.

@c @implementation
public func nc_batch_new(
    _ client: OpaquePointer?, _ policy: Int32, _ batch_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let p = Batch.Policy(rawValue: policy), let batch_out else {
        return NC_ERR_INVALID_ARGUMENT
    }
    batch_out.pointee = retained(Batch(client: c, policy: p))
    return NC_OK
}

@c @implementation
public func nc_batch_add(_ batch: OpaquePointer?, _ request: OpaquePointer?) -> nc_status {
    guard let b = borrow(batch, as: Batch.self), let r = borrow(request, as: RequestBox.self) else {
        return NC_ERR_INVALID_ARGUMENT
    }
    return b.add(r.current.request) ? NC_OK : NC_ERR_INVALID_STATE
}

@c @implementation
public func nc_batch_send(
    _ batch: OpaquePointer?, _ fn: nc_batch_fn?, _ userdata: UnsafeMutableRawPointer?,
    _ task_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let b = borrow(batch, as: Batch.self), let fn else { return NC_ERR_INVALID_ARGUMENT }
    let sent = b.send { done in fn(unretained(done), userdata) }
    guard case .success = sent else { return NC_ERR_INVALID_STATE }
    // The batch is its own task handle (nc_task_cancel / nc_task_free accept both kinds).
    task_out?.pointee = retained(b)
    return NC_OK
}

@c @implementation
public func nc_batch_count(_ batch: OpaquePointer?) -> Int {
    borrow(batch, as: Batch.self)?.count ?? 0
}

@c @implementation
public func nc_batch_response(_ batch: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guard let b = borrow(batch, as: Batch.self), let response = b.result(at: index)?.response else { return nil }
    return unretained(response)
}

@c @implementation
public func nc_batch_error(_ batch: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guard let b = borrow(batch, as: Batch.self), let box = b.foreignError(at: index, { ErrorBox($0) }) else {
        return nil
    }
    return unretained(box)
}

@c @implementation
public func nc_batch_free(_ batch: OpaquePointer?) {
    release(batch, as: Batch.self)
}
