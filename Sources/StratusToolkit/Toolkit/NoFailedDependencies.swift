import Foundation
import StratusCore
import StratusOperations

/// A condition that fails when a dependency of the operation finished with errors.
///
/// Stratus-only, after the WWDC 2015 session "Advanced NSOperations". A dependency failed
/// when it adopts ``OperationErrorReporting`` and its ``OperationErrorReporting/reportedErrors``
/// is not empty: a CloudKit operation whose final block got an error (including
/// `partialFailure` and `operationCancelled`), a ``GroupOperation`` with a failed child, any
/// operation a condition stopped. A dependency that does not adopt the protocol never counts
/// as failed. The error is an ``OperationConditionError`` naming the failed dependencies and
/// carrying their errors in ``OperationConditionError/underlyingErrors``.
///
/// ```swift
/// save.addDependency(fetch)
/// queue.addOperation(save, conditions: [NoFailedDependencies()])
/// ```
public struct NoFailedDependencies: OperationCondition {
    /// Creates the condition.
    public init() {}

    /// Fails if any dependency reported errors. - SeeAlso: ``OperationCondition/evaluate(for:)``
    public func evaluate(for operation: Operation) async -> OperationConditionResult {
        var failed: [String] = []
        var errors: [any Error] = []
        for dependency in Toolkit.visibleDependencies(of: operation) {
            guard let reported = (dependency as? any OperationErrorReporting)?.reportedErrors, !reported.isEmpty else { continue }
            failed.append(Toolkit.describe(dependency))
            errors.append(contentsOf: reported)
        }
        guard failed.isEmpty else {
            let reason = "its dependencies failed: \(failed.joined(separator: ", ")) (\(errors.map { "\($0)" }.joined(separator: "; ")))"
            return .failed(OperationConditionError(conditionName: name, reason: reason, underlyingErrors: errors))
        }
        return .satisfied
    }
}
