import Foundation
import StratusCore
import StratusOperations

extension Operation {
    /// Hands a new operation to the queue this operation was added to, telling this
    /// operation's observers first.
    ///
    /// Stratus-only, after `produceOperation(_:)` in the WWDC 2015 session "Advanced
    /// NSOperations": an operation that discovers more work (a fetch that finds it must fetch
    /// again, a failure that needs an alert) produces it, and the new operation runs beside it,
    /// with conditions and observers of its own.
    ///
    /// ```swift
    /// query.queryResultBlock = { result in
    ///     if case .success(let cursor?) = result {
    ///         query.produceOperation(CKQueryOperation(cursor: cursor))
    ///     }
    /// }
    /// ```
    ///
    /// The new operation goes on the queue this operation was added to through
    /// ``Foundation/OperationQueue/addOperation(_:conditions:observers:)`` (inside a
    /// ``GroupOperation``, the group's, which then waits for it too), or on the queue that
    /// started it for a Stratus operation added otherwise (`CKDatabase.add(_:)`, a plain
    /// `addOperation(_:)`). For any other operation it goes on `OperationQueue.current`, and
    /// failing that on a queue of Stratus's own, with a warning.
    ///
    /// - Parameters:
    ///   - operation: The operation to run.
    ///   - conditions: What must hold before it runs.
    ///   - observers: Who hears about its life.
    public func produceOperation(
        _ operation: Operation,
        conditions: [any OperationCondition] = [],
        observers: [any OperationObserver] = []
    ) {
        let attachment = OperationAttachment.find(self)
        attachment?.reportProduced(operation, by: self)
        let queue: OperationQueue
        if let known = attachment?.queue ?? (self as? CKOperation)?.startingQueue {
            queue = known
        } else if let current = OperationQueue.current {
            queue = current
        } else {
            Toolkit.warn("\(Toolkit.describe(self)) produced \(Toolkit.describe(operation)) but was not added through addOperation(_:conditions:observers:); it runs on Stratus's own queue")
            queue = Toolkit.fallbackQueue
        }
        queue.addOperation(operation, conditions: conditions, observers: observers)
    }
}
