import StratusCore
import StratusOperations

/// What an ``OperationCondition`` decided.
///
/// Stratus-only, after the WWDC 2015 session "Advanced NSOperations".
public enum OperationConditionResult: Sendable {
    /// The operation may run.
    case satisfied
    /// The operation must not run; the error says why.
    ///
    /// A CloudKit operation gets the error in its final block and per-item blocks (a
    /// `CKError` as it is; any other error inside a `CKError` with code `operationCancelled`);
    /// another operation that adopts ``OperationErrorReporting`` gets it through
    /// ``OperationErrorReporting/conditionDidFail(with:)``; any other operation is cancelled.
    case failed(any Error)

    /// Whether the result is ``satisfied``.
    public var isSatisfied: Bool {
        if case .satisfied = self { return true }
        return false
    }
}
