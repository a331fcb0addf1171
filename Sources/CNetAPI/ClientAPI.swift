import CNetCore
import NetCoreBase

@c @implementation
public func nc_client_new(
    _ config_json: UnsafePointer<CChar>?,
    _ client_out: UnsafeMutablePointer<OpaquePointer?>?,
    _ error_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let client_out else { return NC_ERR_INVALID_ARGUMENT }
    guard let json = text(config_json) else {
        error_out?.pointee = retained(
            ErrorBox(.invalidConfig("The configuration is NULL or not valid UTF-8; pass JSON text such as \"{}\".")))
        return NC_ERR_INVALID_ARGUMENT
    }
    do throws(NetError) {
        let client = try NetClient(json: json)
        client_out.pointee = retained(client)
        return NC_OK
    } catch {
        error_out?.pointee = retained(ErrorBox(error))
        return error.domain == .client && error.code == NetError.ClientCode.invalidConfig.rawValue
            ? NC_ERR_INVALID_ARGUMENT : NC_ERR_FAILED
    }
}

@c @implementation
public func nc_client_free(_ client: OpaquePointer?) {
    guard let c = borrow(client, as: NetClient.self) else { return }
    // Refused from inside one of its callbacks: the client stays usable.
    guard c.shutdown() else { return }
    release(client, as: NetClient.self)
}

@c @implementation
public func nc_client_set_environment(_ client: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let name = text(name) else { return NC_ERR_INVALID_ARGUMENT }
    return c.setEnvironment(name) ? NC_OK : NC_ERR_INVALID_ARGUMENT
}

@c @implementation
public func nc_client_set_header(
    _ client: OpaquePointer?, _ name: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let name = text(name) else { return NC_ERR_INVALID_ARGUMENT }
    var v: String? = nil
    if let value {
        guard let s = text(value) else { return NC_ERR_INVALID_ARGUMENT }
        v = s
    }
    do throws(NetError) {
        try c.setHeader(name, v)
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_client_fd(_ client: OpaquePointer?) -> Int32 {
    borrow(client, as: NetClient.self)?.fd ?? -1
}

@c @implementation
public func nc_client_dispatch(_ client: OpaquePointer?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    switch c.dispatch() {
    case .ok: return NC_OK
    case .wrongMode, .nested: return NC_ERR_INVALID_STATE
    }
}
