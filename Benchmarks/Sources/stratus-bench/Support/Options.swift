/// What the command line asked for: `stratus-bench [--quick] [--json FILE] [scenario ...]`.
struct Options: Sendable {
    /// Whether to run the small sizes of `--quick`.
    var quick = false
    /// Where `--json` writes every figure, if anywhere.
    var jsonPath: String?
    /// The scenarios named on the command line, in the order of the issue; all when none is named.
    var scenarios: [String] = Scenarios.names

    /// The usage line and the scenario names.
    static let usage = """
        usage: stratus-bench [--quick] [--json FILE] [scenario ...]
          --quick      the same scenarios at small sizes (under a minute)
          --json FILE  also write every figure and ratio to FILE
          scenarios:   \(Scenarios.names.joined(separator: " "))
        """

    /// Parses `arguments` (without the executable's path).
    ///
    /// - Throws: ``UsageError`` for an unknown option or scenario.
    init(parsing arguments: [String]) throws(UsageError) {
        var named: Set<String> = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--json":
                guard let path = remaining.popFirst() else { throw UsageError(message: "--json needs a file") }
                jsonPath = path
            case "-h", "--help": throw UsageError(message: nil)
            default:
                let name = argument.lowercased().replacingOccurrences(of: "-", with: "_")
                guard Scenarios.names.contains(name) else { throw UsageError(message: "unknown scenario or option '\(argument)'") }
                named.insert(name)
            }
        }
        if !named.isEmpty { scenarios = Scenarios.names.filter(named.contains) }
    }
}

/// A command line `stratus-bench` cannot run; a nil message asks for the usage alone.
struct UsageError: Error {
    /// What was wrong.
    var message: String?
}
