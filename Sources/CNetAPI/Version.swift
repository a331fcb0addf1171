import CNetCore
import NetCoreBase

// netcore.h, "1. Versions". The version is the header's NC_VERSION_* macros; NetCore's
// NetCoreVersion (which cannot import the header) is checked against them by
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
