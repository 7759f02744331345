// swift-tools-version:6.0
//
// Stratus: Apple's CloudKit client model with an embedded CloudKit-like server, for Linux and CI.
// The root package has no package dependencies: Foundation, Dispatch, Synchronization and XCTest only.

import PackageDescription

// The internal invariant checks of the embedded server's structures compile only with
// STRATUS_INTERNAL_CHECKS. They void the performance promises of the benchmarks; CI runs the
// tests once more with them (`.ci/run`). Uncomment to turn them on for every build:
// let internalChecks: [SwiftSetting] = [.define("STRATUS_INTERNAL_CHECKS")]
let internalChecks: [SwiftSetting] = []

let package = Package(
    name: "Stratus",
    products: [
        // The library users import: `import Stratus` in place of `import CloudKit`.
        .library(name: "Stratus", targets: ["Stratus"]),
        // The operations toolkit of WWDC 2015's "Advanced NSOperations" (conditions, observers,
        // groups, mutual exclusivity) and the recipes built on it: `import StratusToolkit`.
        .library(name: "StratusToolkit", targets: ["StratusToolkit"]),
        .executable(name: "stratus-demo", targets: ["stratus-demo"]),
    ],
    targets: [
        // What crosses the client/server boundary: plain values, requests, responses, the clock.
        // CloudKit's Objective-C enumerations (CKError.Code, CKAccountStatus, CKDatabase.Scope),
        // declared in C so that Swift imports them as non-frozen enums, as it imports CloudKit's.
        .target(name: "CStratus"),
        .target(name: "StratusWire", dependencies: ["CStratus"], swiftSettings: internalChecks),
        // The embedded server: CloudServer, an in-process CloudService. It never sees a CKRecord.
        .target(name: "StratusServer", dependencies: ["StratusWire"], swiftSettings: internalChecks),
        // The CloudKit classes: CKRecord and its IDs, zones, references, assets, CKError, containers.
        // The client knows services only through StratusWire's CloudService, never the server.
        .target(name: "StratusCore", dependencies: ["StratusWire"], swiftSettings: internalChecks),
        // The CloudKit API built on the classes: operations, convenience methods, CKSyncEngine.
        .target(name: "StratusOperations", dependencies: ["StratusCore"], swiftSettings: internalChecks),
        // Conditions, observers, GroupOperation, MutuallyExclusive, and the recipes; apart from
        // `import Stratus`, so an app's own copy of the talk's types compiles beside it.
        .target(name: "StratusToolkit", dependencies: ["StratusOperations"], swiftSettings: internalChecks),
        // The one place that sees both sides: CKContainer.default() on CloudServer.shared,
        // server.container(identifier:account:), signing test devices in and out.
        .target(name: "StratusEmbedded", dependencies: ["StratusCore", "StratusServer"], swiftSettings: internalChecks),
        // The umbrella module users import; it only re-exports the others.
        .target(name: "Stratus", dependencies: ["StratusWire", "StratusServer", "StratusCore", "StratusOperations", "StratusEmbedded"]),
        // The Clown Central story the demo tells, as a library a test can check.
        .target(name: "ClownCentral", dependencies: ["Stratus", "StratusToolkit"]),
        .executableTarget(name: "stratus-demo", dependencies: ["Stratus", "ClownCentral"]),

        // Helpers shared by the test targets; not shipped, not API.
        .target(name: "_StratusTestSupport", path: "Tests/_StratusTestSupport"),
        .testTarget(name: "StratusWireTests", dependencies: ["StratusWire", "_StratusTestSupport"]),
        .testTarget(name: "StratusServerTests", dependencies: ["Stratus", "_StratusTestSupport"]),
        .testTarget(name: "StratusOperationsTests", dependencies: ["Stratus", "StratusToolkit", "_StratusTestSupport"]),
        .testTarget(name: "ClownCentralTests", dependencies: ["ClownCentral"]),
        .testTarget(
            name: "StratusCoreTests",
            dependencies: ["StratusCore", "_StratusTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        // An app's own copy of the "Advanced NSOperations" types, in a module of its own.
        .target(name: "_TalkOperations", path: "Tests/_TalkOperations"),
        // CloudKit code as Apple's documentation writes it, compiled against `import Stratus`
        // alone (and beside an app's own copy of the talk's operation types).
        .testTarget(name: "CompatibilityTests", dependencies: ["Stratus", "_TalkOperations"]),
        // The same, in the Swift 5 language mode most apps still build in: CloudKit code must
        // build there without warnings it does not get against CloudKit (CI treats warnings as errors).
        .testTarget(name: "Swift5CompatibilityTests", dependencies: ["Stratus"], swiftSettings: [.swiftLanguageMode(.v5)]),
    ],
    swiftLanguageModes: [.v6]
)
