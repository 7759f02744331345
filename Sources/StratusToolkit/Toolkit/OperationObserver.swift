import Foundation
import StratusCore
import StratusOperations

/// Hears about an operation's life: its start, the operations it produces, its finish.
/// Attach observers with ``Foundation/OperationQueue/addOperation(_:conditions:observers:)``.
///
/// Stratus-only, after the WWDC 2015 session "Advanced NSOperations". Each callback comes at
/// most once per operation (``operation(_:didProduceOperation:)`` once per produced operation),
/// ``operationDidStart(_:)`` always before ``operationDidFinish(_:errors:)``, and
/// ``operationDidFinish(_:errors:)`` exactly once, after the operation is finished (for a
/// CloudKit operation, after its final block has returned). Callbacks run on Stratus's own
/// threads, never on the main thread; do not block in them.
///
/// Every requirement has an empty default, so an observer implements only what it needs.
public protocol OperationObserver: Sendable {
    /// The operation started its work.
    ///
    /// Stratus's own operations (CloudKit operations, ``GroupOperation``, ``DelayOperation``)
    /// report this from their `start()`; an operation whose condition failed, or that was
    /// cancelled before it started, never starts. For any other operation Stratus cannot see
    /// `start()`, so it reports the start when the operation's conditions have passed and it
    /// is handed to its queue to run.
    ///
    /// - Parameter operation: The operation.
    func operationDidStart(_ operation: Operation)

    /// The operation produced another with ``Foundation/Operation/produceOperation(_:conditions:observers:)``,
    /// which is about to go on the producer's queue.
    ///
    /// - Parameters:
    ///   - operation: The producer.
    ///   - newOperation: The operation it produced.
    func operation(_ operation: Operation, didProduceOperation newOperation: Operation)

    /// The operation finished, whether it ran, failed, was cancelled, or a condition stopped it.
    ///
    /// - Parameters:
    ///   - operation: The operation.
    ///   - errors: What the operation reported through ``OperationErrorReporting``; empty for
    ///     an operation that does not adopt it.
    func operationDidFinish(_ operation: Operation, errors: [any Error])
}

extension OperationObserver {
    /// Does nothing.
    public func operationDidStart(_ operation: Operation) {}
    /// Does nothing.
    public func operation(_ operation: Operation, didProduceOperation newOperation: Operation) {}
    /// Does nothing.
    public func operationDidFinish(_ operation: Operation, errors: [any Error]) {}
}
