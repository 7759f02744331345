import StratusCore
import StratusOperations

/// The error a built-in condition fails with when no `CKError` fits: it names the condition
/// and says why the operation did not run.
///
/// Stratus-only. A CloudKit operation receives it inside a `CKError` with code
/// `operationCancelled` (under `NSUnderlyingErrorKey`), since its blocks report `CKError`s.
public struct OperationConditionError: Error, CustomStringConvertible {
    /// The name of the condition that failed.
    public let conditionName: String
    /// Why the operation did not run.
    public let reason: String
    /// The errors behind the failure, such as those a failed dependency reported.
    public let underlyingErrors: [any Error]

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - conditionName: The name of the condition that failed.
    ///   - reason: Why the operation did not run.
    ///   - underlyingErrors: The errors behind the failure.
    public init(conditionName: String, reason: String, underlyingErrors: [any Error] = []) {
        self.conditionName = conditionName
        self.reason = reason
        self.underlyingErrors = underlyingErrors
    }

    /// `condition <name> failed: <reason>`. The format is not stable.
    public var description: String {
        "condition \(conditionName) failed: \(reason)"
    }
}
