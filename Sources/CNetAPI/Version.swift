import CNetCore
import NetCore

@c @implementation
public func nc_version() -> UnsafePointer<CChar>? {
    staticC(NetCoreVersionText.value)
}

@c @implementation
public func nc_version_number() -> UInt32 {
    NetCoreVersion.number
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

/// The version as a static C string; a test checks it equals NetCoreVersion.string.
enum NetCoreVersionText {
    static let value: StaticString = "0.2.0"
}
