import CNetCore
import NetCoreBase

// The version is the header's NC_VERSION_* macros; NetCore's NetCoreVersion (which
// cannot import the header) is checked against them by
// Tests/CAPITests/HeaderAgreementTests.swift.

/// NC_VERSION_STRING as a C string made once and kept for the process.
private let versionText = CString(NC_VERSION_STRING)

@c @implementation
public func nc_version() -> UnsafePointer<CChar>? {
    versionText.pointer
}

@c @implementation
public func nc_version_number() -> UInt32 {
    UInt32(truncatingIfNeeded: (NC_VERSION_MAJOR << 16) | (NC_VERSION_MINOR << 8) | NC_VERSION_PATCH)
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
