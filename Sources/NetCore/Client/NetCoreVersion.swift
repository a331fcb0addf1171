/// The library version; must equal NC_VERSION_* in include/netcore.h, which NetCore
/// cannot import: Tests/CAPITests/HeaderAgreementTests.swift checks that they agree.
public enum NetCoreVersion {
    public static let major: UInt32 = 0
    public static let minor: UInt32 = 2
    public static let patch: UInt32 = 0
    public static let string = "\(major).\(minor).\(patch)"
    /// 0xMMmmpp
    public static let number: UInt32 = (major << 16) | (minor << 8) | patch
}
