import Foundation
import StratusCore
import StratusOperations

extension OperationQueue {
    /// Adds any operation to the queue with conditions it must meet before it runs and
    /// observers that hear about its life.
    ///
    /// Stratus-only: CloudKit has no conditions or observers. The design is that of the WWDC
    /// 2015 session "Advanced NSOperations", with ProcedureKit's lessons applied: conditions
    /// are evaluated by a hidden operation that `operation` depends on (a real dependency;
    /// readiness is never overridden), and finishing and cancelling each happen exactly once.
    ///
    /// ```swift
    /// let save = CKModifyRecordsOperation(recordsToSave: [favourite])
    /// save.database = database
    /// save.modifyRecordsResultBlock = { result in … }   // notAuthenticated without an account
    /// queue.addOperation(save,
    ///                    conditions: [AccountAvailable(), MutuallyExclusive<Favourites>()],
    ///                    observers: [TimeoutObserver(timeout: 30)])
    /// ```
    ///
    /// What happens, in order:
    /// 1. Each condition's ``OperationCondition/dependency(for:)`` is added to this queue, with
    ///    its own conditions and observers, and becomes a dependency of `operation`.
    /// 2. Once every dependency `operation` has at this moment has finished, the conditions are
    ///    evaluated (all of them, concurrently).
    /// 3. If they all pass, `operation` waits for its mutual-exclusivity categories (held by at
    ///    most one operation at a time, across queues, in the order operations were added; see
    ///    ``MutuallyExclusive``) and then runs. If one fails, `operation` does not run: a CloudKit operation sends no
    ///    request and reports the condition's error to its final and per-item blocks; another
    ///    ``OperationErrorReporting`` operation is told through
    ///    ``OperationErrorReporting/conditionDidFail(with:)``; any other operation is cancelled.
    /// 4. Observers hear the start, the operations it produces, and exactly once the finish.
    ///
    /// An operation that would wait for itself (it depends, through other operations, on
    /// itself, or, inside a ``GroupOperation``, on the group or a group around it) never runs,
    /// and nothing waiting for it would ever run: when it is added with conditions or
    /// observers, or as a group's child, it is stopped as it is added, as a failed condition
    /// stops it, with an ``OperationConditionError`` that names the cycle, and the rest of the
    /// cycle runs once it has finished. (The search looks at up to 256 unfinished operations
    /// behind the one added; a longer cycle waits forever, as in Foundation.) An operation
    /// added without either to a plain queue is handed to `addOperation(_:)` as it is, and
    /// waits as Foundation lets it.
    ///
    /// Cancelling `operation` at any point is safe: it finishes (a CloudKit operation with
    /// `operationCancelled`), gives up its categories, and its observers hear the finish once.
    ///
    /// - Important: Add an operation's dependencies before adding it: dependencies added
    ///   afterwards are not waited for by its conditions, and mutual exclusivity cannot order
    ///   around them. Like `addOperation(_:)`, an operation can be added only once; adding it
    ///   again, or adding one that has started, is refused with a warning.
    ///
    /// - Parameters:
    ///   - operation: Any operation.
    ///   - conditions: What must hold before it runs; the first failure, in this order, is the
    ///     error reported.
    ///   - observers: Who hears about its start, the operations it produces and its finish.
    public func addOperation(
        _ operation: Operation,
        conditions: [any OperationCondition] = [],
        observers: [any OperationObserver] = []
    ) {
        if let cloudOperation = operation as? CKOperation {
            guard CKOperation.claimForQueue(cloudOperation) else { return }
        } else if operation.isFinished || operation.isExecuting {
            Toolkit.warn("\(Toolkit.describe(operation)) is \(operation.isFinished ? "finished" : "executing") and was not added again")
            return
        }
        // A group's children always get a watcher, so the group counts a child as done only
        // after the child's observers heard its finish.
        let watched = !conditions.isEmpty || !observers.isEmpty || self is GroupQueue
        let attachment = OperationAttachment(operation: operation, queue: self, observers: observers, watchesFinish: watched)
        guard OperationAttachment.register(attachment, for: operation) else {
            Toolkit.warn("\(Toolkit.describe(operation)) was already added to a queue and was not added again")
            return
        }
        guard watched else {
            addOperation(operation)
            return
        }

        // 0. An operation that waits for itself, or a child that waits for its own group, would
        //    wait forever, and so would everything waiting for it.
        if let cycle = Toolkit.cycle(of: operation, joining: (self as? GroupQueue)?.group) {
            Toolkit.refuse(operation, with: OperationConditionError(conditionName: "dependency cycle", reason: cycle))
        }

        // 1. Generated dependencies, each with its own conditions, on this queue.
        for condition in conditions {
            guard let dependency = condition.dependency(for: operation) else { continue }
            addOperation(dependency.operation, conditions: dependency.conditions, observers: dependency.observers)
            operation.addDependency(dependency.operation)
        }

        // 2. The evaluator runs after everything the operation waits for, and the operation
        //    after the evaluator.
        let evaluator = ConditionEvaluator(for: operation, conditions: conditions, attachment: attachment)
        for dependency in operation.dependencies { evaluator.addDependency(dependency) }
        operation.addDependency(evaluator)

        // 3. Exclusivity, once the graph the operation waits for is complete.
        var categories = Set(conditions.compactMap(\.mutualExclusivityCategory))
        let enclosingGroup = (self as? GroupQueue)?.group
        if let group = operation as? GroupOperation {
            // A group with categories runs as one operation: it takes its children's too.
            if !categories.isEmpty { categories.formUnion(group.categoriesOfBufferedChildren) }
            group.holdCategories(categories, inside: enclosingGroup)
        }
        if !categories.isEmpty {
            let scoped = enclosingGroup?.scope(categories) ?? categories
            let ticket = ExclusivityTicket(operation: operation, categories: scoped, enclosingGroup: enclosingGroup)
            attachment.ticket = ticket
            ExclusivityController.shared.enqueue(ticket)
        }

        // 4. Observers hear the finish from an operation that depends on it.
        Toolkit.whenFinished(operation) { attachment.operationFinished(operation) }
        // The operation goes on its queue first, so a group that cancels it as it arrives has
        // done so before the evaluator looks at it.
        addOperation(operation)
        Toolkit.schedule(evaluator)
    }
}
