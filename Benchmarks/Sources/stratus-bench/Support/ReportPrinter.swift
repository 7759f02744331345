/// Prints scenario reports on the console: each scenario as it finishes, and at the end one
/// Markdown table of every ratio with a target, the table the README's performance section holds.
enum ReportPrinter {
    /// Prints one scenario: its figures, its ratios with their targets, and its notes.
    static func print(_ report: ScenarioReport) {
        Swift.print("")
        Swift.print("\(report.number). \(report.name): \(report.title)")
        let width = (report.figures.map(\.label.count).max() ?? 0) + 2
        for figure in report.figures {
            var line = "   " + figure.label.padding(to: width) + Format.figure(figure.value, figure.unit)
            if let target = report.targets.first(where: { $0.key == figure.key }) {
                line = line.padding(to: width + 22) + "target \(target.text)".padding(to: 16) + (target.isMet(by: figure.value) ? "PASS" : "MISS")
            }
            Swift.print(line)
        }
        for note in report.notes {
            Swift.print("   note: \(note)")
        }
    }

    /// The Markdown table of every target: scenario, the ratio, the figures it divides, the
    /// target and PASS or MISS.
    static func summary(_ reports: [ScenarioReport]) -> String {
        var lines = [
            "| # | scenario | ratio | measured | target | result |",
            "|---|---|---|---|---|---|",
        ]
        for report in reports {
            for target in report.targets {
                guard let figure = report.figures.first(where: { $0.key == target.key }) else { continue }
                let result = target.isMet(by: figure.value) ? "PASS" : "MISS"
                lines.append("| \(report.number) | \(report.name) | \(figure.label) | \(Format.figure(figure.value, .ratio)) | \(target.text) | \(result) |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The Markdown table of every figure of every scenario.
    static func figures(_ reports: [ScenarioReport]) -> String {
        var lines = [
            "| # | scenario | figure | value |",
            "|---|---|---|---|",
        ]
        for report in reports {
            for figure in report.figures {
                var value = Format.figure(figure.value, figure.unit)
                if let target = report.targets.first(where: { $0.key == figure.key }) {
                    value += " (target \(target.text): \(target.isMet(by: figure.value) ? "PASS" : "MISS"))"
                }
                lines.append("| \(report.number) | \(report.name) | \(figure.label) | \(value) |")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The string followed by spaces up to `width` characters (unchanged when longer).
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
