/// What a child process measures: the roles ``ChildProcess`` starts this executable in.
enum ChildRoles {
    /// Runs the role of `request` (its first word) with the rest, numbers, as arguments.
    ///
    /// - Throws: ``UsageError`` for an unknown role or a missing argument.
    static func run(_ request: [String]) async throws {
        let numbers = request.dropFirst().compactMap { Int($0) }
        func argument(_ index: Int) throws -> Int {
            guard index < numbers.count else { throw UsageError(message: "child role \(request) lacks argument \(index + 1)") }
            return numbers[index]
        }
        switch request.first {
        case "query":
            try await QueryBenchmarks.measureChild(count: argument(0), queries: argument(1), rounds: argument(2))
        case "locations":
            try await LocationBenchmarks.measureChild(count: argument(0), queries: argument(1), rounds: argument(2))
        case "memory-stratus":
            try await MemoryBenchmarks.measureChild("stratus", count: argument(0))
        case "memory-sqlite":
            try await MemoryBenchmarks.measureChild("sqlite", count: argument(0))
        case "memory-dictionary":
            try await MemoryBenchmarks.measureChild("dictionary", count: argument(0))
        default:
            throw UsageError(message: "unknown child role \(request)")
        }
    }
}
