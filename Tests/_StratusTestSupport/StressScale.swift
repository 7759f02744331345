import Foundation

/// How many times longer stress and fuzz loops run than their small CI size:
/// the `STRATUS_STRESS_SCALE` environment variable, 1 when unset or not a positive number.
public var stressScale: Int {
    max(1, Int(ProcessInfo.processInfo.environment["STRATUS_STRESS_SCALE"] ?? "") ?? 1)
}
