import Foundation
import StratusCore
import StratusOperations

extension CKOperation: OperationErrorReporting, StartReporting {
    /// Stops the operation before it sends anything: when it starts, it reports `error` to
    /// every item and to its final block, as cancellation reports `operationCancelled`, and
    /// sends no request. A `CKError` is reported as it is; any other error inside a `CKError`
    /// with code `operationCancelled` that names the failure and carries the error under
    /// `NSUnderlyingErrorKey`.
    ///
    /// - SeeAlso: ``OperationErrorReporting/conditionDidFail(with:)``
    public func conditionDidFail(with error: any Error) {
        noteConditionFailure(error)
    }

    /// The error the final block reported, once the operation has finished: a whole-operation
    /// error, `partialFailure`, `operationCancelled`, or a condition's error; empty on success.
    ///
    /// - SeeAlso: ``OperationErrorReporting/reportedErrors``
    public var reportedErrors: [any Error] {
        errorsReportedOnFinish
    }
}
