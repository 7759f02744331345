// swift-tools-version:6.0
//
// Stratus's benchmarks: a separate package, so the root package keeps no dependencies and
// benchmarks never run as tests. Not API.
//
//     swift run -c release --package-path Benchmarks stratus-bench

import PackageDescription

let package = Package(
    name: "StratusBenchmarks",
    dependencies: [.package(name: "Stratus", path: "..")],
    targets: [
        .executableTarget(
            name: "stratus-bench",
            dependencies: [.product(name: "Stratus", package: "Stratus")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
