import CNetCore
import NetCoreBase

// netcore.h, "17. Event-loop integration": nc_client_fd and nc_client_dispatch
// ("callbacks": "queue").

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
