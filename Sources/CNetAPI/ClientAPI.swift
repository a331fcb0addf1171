import CNetCore
import NetCoreBase

// netcore.h, "3. Client": making and freeing a client, its environment, default
// headers and credentials (token, basic auth).

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
public func nc_client_preconnect(
    _ client: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ error_out: UnsafeMutablePointer<OpaquePointer?>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let target = text(url) else {
        if client != nil {
            error_out?.pointee = retained(
                ErrorBox(.invalidRequest("The URL to preconnect to is NULL or not valid UTF-8.")))
        }
        return NC_ERR_INVALID_ARGUMENT
    }
    do throws(NetError) {
        try c.preconnect(target)
        return NC_OK
    } catch {
        error_out?.pointee = retained(ErrorBox(error))
        return error.domain == .client && error.code == NetError.ClientCode.shutdown.rawValue
            ? NC_ERR_INVALID_STATE : NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_client_set_token(_ client: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    var t: String? = nil
    if let token {
        guard let s = text(token) else { return NC_ERR_INVALID_ARGUMENT }
        t = s
    }
    do throws(NetError) {
        try c.setToken(t)
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_client_set_basic_auth(
    _ client: OpaquePointer?, _ user: UnsafePointer<CChar>?,
    _ password: UnsafePointer<CChar>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    var u: String? = nil
    var p: String? = nil
    if let user {
        guard let s = text(user) else { return NC_ERR_INVALID_ARGUMENT }
        u = s
    }
    if let password {
        guard let s = text(password) else { return NC_ERR_INVALID_ARGUMENT }
        p = s
    }
    do throws(NetError) {
        try c.setBasicAuth(user: u, password: p)
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_client_set_common_param(
    _ client: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value_json: UnsafePointer<CChar>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let name = text(name) else { return NC_ERR_INVALID_ARGUMENT }
    var value: String? = nil
    if let value_json {
        guard let s = text(value_json) else { return NC_ERR_INVALID_ARGUMENT }
        value = s
    }
    do throws(NetError) {
        try c.setCommonParam(name, json: value)
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}

@c @implementation
public func nc_client_set_messages_json(_ client: OpaquePointer?, _ json: UnsafePointer<CChar>?) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    guard let json else {
        c.setMessages(nil)
        return NC_OK
    }
    guard let s = text(json) else { return NC_ERR_INVALID_ARGUMENT }
    do throws(NetError) {
        try c.setMessages(json: s)
        return NC_OK
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
}
