// swift-tools-version:6.0
// Swift peers of the libnetcore benchmark (`make bench`, bench/run.sh):
//   ahc-peer      AsyncHTTPClient doing the same requests and envelope check
//   netcore-peer  libnetcore's Swift async API (`try await client.send(request)`)
// A separate package so the repo's Package.swift stays free of benchmark-only
// dependencies. Build: swift build -c release --package-path bench/swift \
//                       --scratch-path bench/swift/.build
import PackageDescription
import Foundation

// A path dependency's identity is the last component of its path, which is the
// name of the checkout folder (not the manifest's `name:`), so compute it.
let repoPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL
let repoIdentity = repoPath.lastPathComponent.lowercased()

let package = Package(
    name: "netcore-bench",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "ahc-peer", targets: ["ahc-peer"]),
        .executable(name: "netcore-peer", targets: ["netcore-peer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(path: "../.."),
    ],
    targets: [
        .target(name: "BenchCommon", path: "Sources/BenchCommon"),
        .executableTarget(
            name: "ahc-peer",
            dependencies: ["BenchCommon", .product(name: "AsyncHTTPClient", package: "async-http-client")],
            path: "Sources/ahc-peer"),
        .executableTarget(
            name: "netcore-peer",
            dependencies: ["BenchCommon", .product(name: "NetCore", package: repoIdentity)],
            path: "Sources/netcore-peer"),
    ]
)
