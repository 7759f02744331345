// stratus-bench: each scenario prints Stratus's time, a baseline's, and the ratio of the two.
// Arguments name the scenarios to run (record, sync, syncengine, push, query); none runs all.

import Foundation

let scenarios = ["record", "sync", "syncengine", "push", "query"]
let selected = Set(CommandLine.arguments.dropFirst().map { $0.lowercased() })

if let size = ProcessInfo.processInfo.environment[QueryBenchmarks.childVariable].flatMap(Int.init) {
    try await QueryBenchmarks.measure(size: size)
} else if let unknown = selected.subtracting(scenarios).sorted().first {
    print("stratus-bench: unknown scenario '\(unknown)'; the scenarios are \(scenarios.joined(separator: ", "))")
    exit(2)
} else {
    func wanted(_ scenario: String) -> Bool { selected.isEmpty || selected.contains(scenario) }
    print("stratus-bench (release build expected; times are the fastest of 5 runs)")
    if wanted("record") { RecordBenchmarks.run() }
    if wanted("sync") { try await SyncBenchmarks.run() }
    if wanted("syncengine") { try await SyncEngineBenchmarks.run() }
    if wanted("push") { try await PushBenchmarks.run() }
    if wanted("query") { try await QueryBenchmarks.run() }
}
