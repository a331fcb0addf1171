// swift-tools-version:6.0
// libnetcore: a Swift core exported as a stable C ABI (include/netcore.h).
// Distribution flags (static stdlib, version script, soname) are passed by the
// Makefile, never here, so that other packages can depend on `NetCore`.
import PackageDescription

let package = Package(
    name: "netcore",
    products: [
        // libnetcore.so: the C ABI. Build it with `make lib` for the distributable form.
        .library(name: "netcore", type: .dynamic, targets: ["CNetAPI"]),
        // The core with its Swift concurrency API, for Swift callers (`import NetCore`).
        .library(name: "NetCore", targets: ["NetCore"]),
        // The examples' stories in Swift (examples/swift; run by Tests/C/run.sh).
        .executable(name: "netcore-examples", targets: ["NetCoreExamples"]),
        // One request through the Swift API, as JSON in and out (the conformance suite's Swift caller).
        .executable(name: "netcore-call", targets: ["NetCoreCall"]),
    ],
    targets: [
        .systemLibrary(name: "CNetCore", path: "include"),
        .systemLibrary(name: "CJansson", path: "Sources/CJansson", pkgConfig: "jansson",
                       providers: [.apt(["libjansson-dev"])]),
        .target(name: "CCurlShim", linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("crypto"), .linkedLibrary("ssl")]),
        // The core, without Swift concurrency: all the C library is built on (ARCHITECTURE.md).
        .target(name: "NetCoreBase", dependencies: ["CCurlShim", "CJansson"]),
        // The Swift concurrency API (async send, the client's executor, streams), on
        // NetCoreBase, which it re-exports: Swift callers `import NetCore`.
        .target(name: "NetCore", dependencies: ["NetCoreBase"]),
        // The variadic functions of netcore.h (C alone can define them), linked only with CNetAPI.
        .target(name: "CNetVariadic", dependencies: ["CJansson"]),
        .target(name: "CNetAPI", dependencies: ["NetCoreBase", "CNetCore", "CNetVariadic"]),
        .executableTarget(name: "NetCoreExamples", dependencies: ["NetCore"], path: "examples/swift"),
        .executableTarget(name: "NetCoreCall", dependencies: ["NetCore"], path: "tools/swift-call"),
        // Starts Tests/Support/mock_server.py for the Swift test suites.
        .target(name: "MockServerSupport", path: "Tests/Support/Swift"),
        .testTarget(name: "NetCoreTests", dependencies: ["NetCore", "NetCoreBase", "MockServerSupport"]),
        // Imports NetCore too, only to check its numbers against the header's macros.
        .testTarget(name: "CAPITests", dependencies: ["CNetAPI", "CNetCore", "NetCore", "NetCoreBase", "MockServerSupport"]),
    ]
)
