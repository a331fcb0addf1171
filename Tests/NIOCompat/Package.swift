import Foundation
// swift-tools-version:6.0
// Compiles NetCore next to SwiftNIO: a Swift user who imports both (AsyncHTTPClient,
// Vapor and Hummingbird users do) must be able to write NIO's names unqualified.
// Built by the test command (scripts/run-tests.sh); not part of the library.
import PackageDescription

// A path dependency's identity is the name of the checkout folder, not the manifest's.
let repoIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "NIOCompat",
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2")
    ],
    targets: [
        .executableTarget(
            name: "NIOCompat",
            dependencies: [
                .product(name: "NetCore", package: repoIdentity),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio")
            ])
    ]
)
