import Foundation

/// Runs a measurement in a fresh process of this executable, so that one measurement's heap
/// neither slows nor inflates the next: the query sizes of scenario 3 and the memory of
/// scenario 8.
///
/// The child is this executable with ``variable`` set to a role and its arguments; it prints
/// one `figure <key> <value>` line per figure, which the parent reads back.
enum ChildProcess {
    /// The environment variable that makes this executable a child: `"<role> <argument> ..."`.
    static let variable = "STRATUS_BENCH_CHILD"

    /// The role and arguments this process was started with, when it is a child.
    static var request: [String]? {
        ProcessInfo.processInfo.environment[variable].map { $0.split(separator: " ").map(String.init) }
    }

    /// Runs `role` with `arguments` in a child and returns the figures it printed.
    ///
    /// - Throws: ``ChildFailure`` when the child exits with a failure.
    static func run(_ role: String, _ arguments: [String]) throws -> [String: Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = ([role] + arguments).joined(separator: " ")
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ChildFailure(role: role, arguments: arguments, status: process.terminationStatus)
        }
        var figures: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 3, parts[0] == "figure", let value = Double(parts[2]) {
                figures[String(parts[1])] = value
            }
        }
        return figures
    }

    /// Prints one figure for the parent to read.
    static func emit(_ key: String, _ value: Double) {
        print("figure \(key) \(value)")
    }

    /// This executable, found through `/proc` so that a relative `argv[0]` still works.
    private static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// A child measurement that failed; its own error went to standard error.
struct ChildFailure: Error, CustomStringConvertible {
    /// The child's role.
    var role: String
    /// Its arguments.
    var arguments: [String]
    /// Its exit status.
    var status: Int32

    var description: String { "the child '\(([role] + arguments).joined(separator: " "))' exited with status \(status)" }
}
