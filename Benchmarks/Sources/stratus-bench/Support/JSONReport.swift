import Foundation

/// The `--json` file: every figure and ratio of every scenario under its stable name, and
/// whether each target was met.
///
/// ```json
/// {"mode": "full",
///  "scenarios": {"batched_saves": {"stratus_full_api_rps": 41000, "sqlite_rps": 160000,
///                                  "ratio_full_api_vs_sqlite": 0.26, ...}, ...},
///  "targets": {"batched_saves": {"ratio_full_api_vs_sqlite": {"target": "≥ 1×", "met": false}}}}
/// ```
enum JSONReport {
    /// Writes the reports of a run to `path`.
    static func write(_ reports: [ScenarioReport], mode: String, seconds: Double, to path: String) throws {
        var scenarios: [String: Any] = [:]
        var targets: [String: Any] = [:]
        for report in reports {
            var figures: [String: Any] = [:]
            for figure in report.figures {
                figures[figure.key] = figure.value.isFinite ? figure.value : NSNull()
            }
            scenarios[report.name] = figures
            var met: [String: Any] = [:]
            for target in report.targets {
                guard let value = report.value(target.key) else { continue }
                met[target.key] = ["target": target.text, "value": value.isFinite ? value : NSNull(), "met": target.isMet(by: value)] as [String: Any]
            }
            if !met.isEmpty { targets[report.name] = met }
        }
        let root: [String: Any] = ["mode": mode, "seconds": seconds, "scenarios": scenarios, "targets": targets]
        let data = try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }
}
