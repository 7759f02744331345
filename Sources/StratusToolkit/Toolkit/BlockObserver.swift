import Foundation
import StratusCore
import StratusOperations

/// An ``OperationObserver`` made of closures.
///
/// Stratus-only, after the WWDC 2015 session "Advanced NSOperations".
///
/// ```swift
/// queue.addOperation(fetch, observers: [BlockObserver(finishHandler: { operation, errors in
///     print("\(operation) finished with \(errors.count) errors")
/// })])
/// ```
public struct BlockObserver: OperationObserver {
    private let startHandler: (@Sendable (Operation) -> Void)?
    private let produceHandler: (@Sendable (Operation, Operation) -> Void)?
    private let finishHandler: (@Sendable (Operation, [any Error]) -> Void)?

    /// Creates an observer; a nil handler ignores its event.
    ///
    /// - Parameters:
    ///   - startHandler: Called when the operation starts (see ``OperationObserver/operationDidStart(_:)``).
    ///   - produceHandler: Called with the producer and the operation it produced.
    ///   - finishHandler: Called once with the operation and the errors it reported.
    public init(
        startHandler: (@Sendable (Operation) -> Void)? = nil,
        produceHandler: (@Sendable (Operation, Operation) -> Void)? = nil,
        finishHandler: (@Sendable (Operation, [any Error]) -> Void)? = nil
    ) {
        self.startHandler = startHandler
        self.produceHandler = produceHandler
        self.finishHandler = finishHandler
    }

    /// Calls the start handler. - SeeAlso: ``OperationObserver/operationDidStart(_:)``
    public func operationDidStart(_ operation: Operation) {
        startHandler?(operation)
    }

    /// Calls the produce handler. - SeeAlso: ``OperationObserver/operation(_:didProduceOperation:)``
    public func operation(_ operation: Operation, didProduceOperation newOperation: Operation) {
        produceHandler?(operation, newOperation)
    }

    /// Calls the finish handler. - SeeAlso: ``OperationObserver/operationDidFinish(_:errors:)``
    public func operationDidFinish(_ operation: Operation, errors: [any Error]) {
        finishHandler?(operation, errors)
    }
}
