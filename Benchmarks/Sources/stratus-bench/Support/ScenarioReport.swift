/// What one scenario measured: its figures and ratios under stable names, and the issue's
/// targets for some of the ratios.
///
/// The names are the keys of `--json`; keep them stable so runs can be compared.
struct ScenarioReport: Sendable {
    /// The scenario's number in the issue (1–10).
    var number: Int
    /// The scenario's stable name, as given on the command line.
    var name: String
    /// One line saying what was measured, at the size it was measured.
    var title: String
    /// The figures and ratios, in the order they print.
    var figures: [Figure] = []
    /// The targets, each on one of the ratios.
    var targets: [Target] = []
    /// Lines printed under the figures: what a reader needs to read them right.
    var notes: [String] = []

    /// A report with no figures yet.
    init(number: Int, name: String, title: String) {
        self.number = number
        self.name = name
        self.title = title
    }

    /// The value of the figure named `key`, if there is one.
    func value(_ key: String) -> Double? {
        figures.first { $0.key == key }?.value
    }

    /// Adds a figure.
    mutating func add(_ key: String, _ label: String, _ value: Double, _ unit: Figure.Unit) {
        figures.append(Figure(key: key, label: label, value: value, unit: unit))
    }

    /// Adds a ratio, and the target on it when there is one.
    mutating func ratio(_ key: String, _ label: String, _ value: Double, target: Target.Bound? = nil) {
        figures.append(Figure(key: key, label: label, value: value, unit: .ratio))
        if let target { targets.append(Target(key: key, bound: target)) }
    }

    /// Adds a note.
    mutating func note(_ line: String) {
        notes.append(line)
    }
}

/// One number a scenario reports.
struct Figure: Sendable {
    /// How a figure is measured, which decides how it prints.
    enum Unit: String, Sendable {
        /// Records (or items) per second: more is better.
        case perSecond = "records/s"
        /// Microseconds per item: less is better.
        case microseconds = "µs"
        /// A ratio between two figures of the same run.
        case ratio = "×"
        /// A plain count, such as requests sent.
        case count = ""
        /// Bytes.
        case bytes = "bytes"
    }

    /// The stable name, the figure's `--json` key.
    var key: String
    /// What the figure is, for a reader.
    var label: String
    /// The figure.
    var value: Double
    /// Its unit.
    var unit: Unit
}

/// A target of the issue on one ratio: at least or at most a bound.
struct Target: Sendable {
    /// Which side of the bound the ratio must fall on.
    enum Bound: Sendable {
        /// The ratio must be at least this.
        case atLeast(Double)
        /// The ratio must be at most this.
        case atMost(Double)
    }

    /// The key of the ratio the target is on.
    var key: String
    /// The bound.
    var bound: Bound

    /// Whether `value` meets the target.
    func isMet(by value: Double) -> Bool {
        switch bound {
        case .atLeast(let limit): value >= limit
        case .atMost(let limit): value <= limit
        }
    }

    /// The target as it prints: `≥ 2×`.
    var text: String {
        switch bound {
        case .atLeast(let limit): "≥ \(Format.plain(limit))×"
        case .atMost(let limit): "≤ \(Format.plain(limit))×"
        }
    }
}
