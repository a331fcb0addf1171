/// The library version; must equal NC_VERSION_* in include/netcore.h, which NetCore
/// cannot import: Tests/CAPITests/HeaderAgreementTests.swift checks that they agree.
public enum NetCoreVersion {
    /// The major version (NC_VERSION_MAJOR).
    public static let major: UInt32 = 0
    /// The minor version (NC_VERSION_MINOR).
    public static let minor: UInt32 = 3
    /// The patch version (NC_VERSION_PATCH).
    public static let patch: UInt32 = 0
    /// "MAJOR.MINOR.PATCH" (NC_VERSION_STRING).
    public static let string = "\(major).\(minor).\(patch)"
    /// 0xMMmmpp
    public static let number: UInt32 = (major << 16) | (minor << 8) | patch
}
