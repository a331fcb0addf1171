import CNetCore
import NetCoreBase

// netcore.h, "11. Token refresh": single-flight token refresh,
// nc_client_set_token_refresher, nc_client_refresh_done.

private struct RefreshHook: @unchecked Sendable {
    let fn: nc_refresh_fn
    let client: OpaquePointer
    let userdata: UnsafeMutableRawPointer?
}

@c @implementation
public func nc_client_set_token_refresher(
    _ client: OpaquePointer?, _ fn: nc_refresh_fn?, _ userdata: UnsafeMutableRawPointer?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self), let client else { return NC_ERR_INVALID_ARGUMENT }
    guard let fn else {
        c.setTokenRefresher(nil)
        return NC_OK
    }
    let hook = RefreshHook(fn: fn, client: client, userdata: userdata)
    c.setTokenRefresher { error in
        let box = ErrorBox(error)
        withExtendedLifetime(box) { hook.fn(hook.client, unretained(box), hook.userdata) }
    }
    return NC_OK
}

@c @implementation
public func nc_client_refresh_done(
    _ client: OpaquePointer?, _ token: UnsafePointer<CChar>?, _ message: UnsafePointer<CChar>?
) -> nc_status {
    guard let c = borrow(client, as: NetClient.self) else { return NC_ERR_INVALID_ARGUMENT }
    var tokenText: String? = nil
    if let token {
        guard let t = text(token) else { return NC_ERR_INVALID_ARGUMENT }
        tokenText = t
    }
    var messageText: String? = nil
    if let message {
        guard let m = text(message) else { return NC_ERR_INVALID_ARGUMENT }
        messageText = m
    }
    do throws(NetClient.RefreshDoneRefusal) {
        try c.refreshDone(token: tokenText, message: messageText)
        return NC_OK
    } catch {
        switch error {
        case .noRefreshRunning: return NC_ERR_INVALID_STATE
        case .invalidToken: return NC_ERR_INVALID_ARGUMENT
        }
    }
}
