import CNetCore
import NetCoreBase

// netcore.h, "2. Status codes and errors": nc_status_str and the nc_error_* readers.

/// The object behind an `nc_error *`: a NetError plus the C strings handed out
/// from it, made on first use and kept as long as the handle.
final class ErrorBox: @unchecked Sendable {
    let error: NetError
    let message: CStringCache
    let codeString: CStringCache
    let traceID: CStringCache
    let dataJSON: CStringCache
    let rendered: CStringCache
    let userMessage: CStringCache
    /// The request's method, URL, endpoint and label (nc_error_request_*), made on first use.
    let requestMethod: CStringCache
    let requestURL: CStringCache
    let endpoint: CStringCache
    let label: CStringCache

    init(_ error: NetError) {
        self.error = error
        message = CStringCache()
        codeString = CStringCache()
        traceID = CStringCache()
        dataJSON = CStringCache()
        rendered = CStringCache()
        userMessage = CStringCache()
        requestMethod = CStringCache()
        requestURL = CStringCache()
        endpoint = CStringCache()
        label = CStringCache()
    }
}

@c @implementation
public func nc_status_str(_ status: nc_status) -> UnsafePointer<CChar>? {
    switch status {
    case NC_OK: return staticC("NC_OK")
    case NC_ERR_INVALID_ARGUMENT: return staticC("NC_ERR_INVALID_ARGUMENT")
    case NC_ERR_INVALID_STATE: return staticC("NC_ERR_INVALID_STATE")
    case NC_ERR_NO_MEMORY: return staticC("NC_ERR_NO_MEMORY")
    case NC_ERR_FAILED: return staticC("NC_ERR_FAILED")
    default: return staticC("NC_UNKNOWN_STATUS")
    }
}

@c @implementation
public func nc_error_domain(_ error: OpaquePointer?) -> nc_domain {
    borrow(error, as: ErrorBox.self)?.error.domain.rawValue ?? 0
}

@c @implementation
public func nc_error_domain_name(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let domain = borrow(error, as: ErrorBox.self)?.error.domain else { return staticC("NCUnknownErrorDomain") }
    return staticC(domain.staticName)
}

@c @implementation
public func nc_error_code(_ error: OpaquePointer?) -> Int64 {
    borrow(error, as: ErrorBox.self)?.error.code ?? 0
}

@c @implementation
public func nc_error_code_str(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = borrow(error, as: ErrorBox.self) else { return staticC("") }
    return box.codeString.get { box.error.codeString }.pointer
}

@c @implementation
public func nc_error_message(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = borrow(error, as: ErrorBox.self) else {
        return staticC("No error handle was given (NULL nc_error).")
    }
    return box.message.get { box.error.message }.pointer
}

@c @implementation
public func nc_error_user_message(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = borrow(error, as: ErrorBox.self), let text = box.error.userMessage else { return nil }
    return box.userMessage.get { text }.pointer
}

@c @implementation
public func nc_error_http_status(_ error: OpaquePointer?) -> Int32 {
    borrow(error, as: ErrorBox.self)?.error.httpStatus ?? 0
}

@c @implementation
public func nc_error_trace_id(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = borrow(error, as: ErrorBox.self), let trace = box.error.traceID else { return nil }
    return box.traceID.get { trace }.pointer
}

@c @implementation
public func nc_error_data(_ error: OpaquePointer?) -> UnsafeMutablePointer<json_t>? {
    jsonPointer(borrow(error, as: ErrorBox.self)?.error.data?.opaque)
}

@c @implementation
public func nc_error_data_json(_ error: OpaquePointer?, _ len_out: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>?
{
    guard let box = borrow(error, as: ErrorBox.self), let data = box.error.data else { return nil }
    let s = box.dataJSON.get { data.text }
    len_out?.pointee = s.count
    return s.pointer
}

@c @implementation
public func nc_error_body(_ error: OpaquePointer?, _ len_out: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    guard let box = borrow(error, as: ErrorBox.self) else { return nil }
    guard let body = box.error.body else {
        len_out?.pointee = 0
        return nil
    }
    len_out?.pointee = body.count
    return UnsafeRawPointer(body.pointer)
}

@c @implementation
public func nc_error_attempts(_ error: OpaquePointer?) -> Int32 {
    borrow(error, as: ErrorBox.self)?.error.attempts ?? 0
}

@c @implementation
public func nc_error_is_retryable(_ error: OpaquePointer?) -> Int32 {
    borrow(error, as: ErrorBox.self)?.error.isRetryable == true ? 1 : 0
}

@c @implementation
public func nc_error_is_auth_expired(_ error: OpaquePointer?) -> Int32 {
    borrow(error, as: ErrorBox.self)?.error.isAuthExpired == true ? 1 : 0
}

@c @implementation
public func nc_error_request_method(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = borrow(error, as: ErrorBox.self), let method = box.error.request?.method else { return nil }
    return box.requestMethod.get { method }.pointer
}

@c @implementation
public func nc_error_request_url(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = borrow(error, as: ErrorBox.self), let request = box.error.request else { return nil }
    guard let url = request.url else { return nil }
    return box.requestURL.get { url }.pointer
}

@c @implementation
public func nc_error_endpoint(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = borrow(error, as: ErrorBox.self), let name = box.error.request?.endpoint else { return nil }
    return box.endpoint.get { name }.pointer
}

@c @implementation
public func nc_error_label(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = borrow(error, as: ErrorBox.self), let label = box.error.request?.label else { return nil }
    return box.label.get { label }.pointer
}

@c @implementation
public func nc_error_task_id(_ error: OpaquePointer?) -> UInt64 {
    borrow(error, as: ErrorBox.self)?.error.request?.taskID ?? 0
}

@c @implementation
public func nc_error_json(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = borrow(error, as: ErrorBox.self) else { return nil }
    return box.rendered.get { box.error.json }.pointer
}

@c @implementation
public func nc_error_copy(_ error: OpaquePointer?) -> OpaquePointer? {
    guard let box = borrow(error, as: ErrorBox.self) else { return nil }
    return retained(box)
}

@c @implementation
public func nc_error_free(_ error: OpaquePointer?) {
    release(error, as: ErrorBox.self)
}
