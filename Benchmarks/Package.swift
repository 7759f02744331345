// swift-tools-version:6.0
//
// Stratus's benchmarks: a separate package, so the root package keeps no dependencies and
// benchmarks never run as tests. Not API.
//
//     swift run -c release --package-path Benchmarks stratus-bench
//
// The SQLite baseline links the system library: `apt-get install libsqlite3-dev` on Debian.

import PackageDescription

let package = Package(
    name: "StratusBenchmarks",
    dependencies: [.package(name: "Stratus", path: "..")],
    targets: [
        // The system SQLite, which the baseline of every storage scenario runs on.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .executableTarget(
            name: "stratus-bench",
            dependencies: [.product(name: "Stratus", package: "Stratus"), "CSQLite"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
