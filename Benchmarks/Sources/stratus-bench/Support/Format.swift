import Foundation

/// How figures print: rates grouped by thousands, costs and ratios with two decimals.
enum Format {
    /// `value` in its unit, as the console shows it.
    static func figure(_ value: Double, _ unit: Figure.Unit) -> String {
        guard value.isFinite else { return "n/a" }
        switch unit {
        case .perSecond: return grouped(Int(value.rounded())) + " records/s"
        case .microseconds: return decimals(value, value < 10 ? 2 : 1) + " µs"
        case .ratio: return decimals(value, 2) + "×"
        case .count: return grouped(Int(value.rounded()))
        case .bytes: return grouped(Int(value.rounded())) + " bytes"
        }
    }

    /// `value` with `places` decimals.
    static func decimals(_ value: Double, _ places: Int) -> String {
        String(format: "%.\(places)f", value)
    }

    /// A bound as the issue writes it: `2`, `0.8`, `1.5`.
    static func plain(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// `value` with a comma between groups of three digits.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// `value` with thousands grouped, for titles: `100,000`.
    static func count(_ value: Int) -> String {
        grouped(value)
    }
}
