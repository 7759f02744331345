// stratus-bench: the ten scenarios, each printing Stratus's figures next to the SQLite
// and dictionary baselines measured in the same run, the ratios, and the targets.
//
//     stratus-bench [--quick] [--json FILE] [scenario ...]

import Foundation

/// Prints `error` on standard error and exits with a failure.
func fail(_ error: any Error) -> Never {
    FileHandle.standardError.write(Data("stratus-bench: \(error)\n".utf8))
    exit(1)
}

if let request = ChildProcess.request {
    do { try await ChildRoles.run(request) } catch { fail(error) }
    exit(0)
}

let options: Options
do {
    options = try Options(parsing: Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message { FileHandle.standardError.write(Data("stratus-bench: \(message)\n".utf8)) }
    print(Options.usage)
    exit(error.message == nil ? 0 : 2)
}

let sizes = options.quick ? Sizes.quick : Sizes.full
let mode = options.quick ? "quick" : "full"
print("stratus-bench, \(mode) sizes; figures are the fastest of \(sizes.repetitions) runs; build with -c release")
var reports: [ScenarioReport] = []
let clock = ContinuousClock()
let start = clock.now
for name in options.scenarios {
    do {
        let report = try await Scenarios.run(name, sizes)
        ReportPrinter.print(report)
        reports.append(report)
    } catch {
        fail(error)
    }
}
let seconds = Measure.seconds(clock.now - start)
print("")
print(ReportPrinter.summary(reports))
print("")
print("\(mode) run: \(Format.decimals(seconds, 1)) s")
if let path = options.jsonPath {
    do { try JSONReport.write(reports, mode: mode, seconds: seconds, to: path) } catch { fail(error) }
    print("figures written to \(path)")
}
