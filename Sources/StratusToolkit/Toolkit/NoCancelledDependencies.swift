import Foundation
import StratusCore
import StratusOperations

/// A condition that fails when a dependency of the operation was cancelled.
///
/// Stratus-only, after the WWDC 2015 session "Advanced NSOperations". The error is an
/// ``OperationConditionError`` naming the cancelled dependencies (inside a `CKError` with code
/// `operationCancelled` for a CloudKit operation).
///
/// ```swift
/// save.addDependency(fetch)
/// queue.addOperation(save, conditions: [NoCancelledDependencies()])
/// fetch.cancel()   // save does not run
/// ```
public struct NoCancelledDependencies: OperationCondition {
    /// Creates the condition.
    public init() {}

    /// Fails if any dependency is cancelled. - SeeAlso: ``OperationCondition/evaluate(for:)``
    public func evaluate(for operation: Operation) async -> OperationConditionResult {
        let cancelled = Toolkit.visibleDependencies(of: operation).filter(\.isCancelled)
        guard cancelled.isEmpty else {
            let names = cancelled.map(Toolkit.describe).joined(separator: ", ")
            return .failed(OperationConditionError(conditionName: name, reason: "its dependencies were cancelled: \(names)"))
        }
        return .satisfied
    }
}
