// stratus-bench: each scenario prints Stratus's time, a baseline's, and the ratio of the two.

import Foundation

if let size = ProcessInfo.processInfo.environment[QueryBenchmarks.childVariable].flatMap(Int.init) {
    try await QueryBenchmarks.measure(size: size)
} else {
    print("stratus-bench (release build expected; times are the fastest of 5 runs)")
    RecordBenchmarks.run()
    try await SyncBenchmarks.run()
    try await PushBenchmarks.run()
    try await QueryBenchmarks.run()
}
