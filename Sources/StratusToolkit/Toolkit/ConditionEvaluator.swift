import Foundation
import StratusCore
import StratusOperations

/// The hidden operation that evaluates an operation's conditions: the operation depends on it,
/// and it depends on everything the operation depended on when it was added, so it runs once
/// those have finished, and the operation becomes ready only once it has finished. Readiness is
/// never overridden.
///
/// When the conditions pass, it claims the operation's exclusivity categories and finishes
/// once they are granted. When one fails, it tells the operation (an
/// ``OperationErrorReporting`` operation hears the error; any other operation is cancelled)
/// before it finishes, so the operation sees the failure when it starts.
///
/// It holds the operation until it has finished, because on Linux a dependency that finishes
/// after its dependent has been freed touches freed memory (a cancelled operation finishes
/// without waiting for this one). It cannot be cancelled: it is bookkeeping, not work.
final class ConditionEvaluator: Operation, @unchecked Sendable {
    private let target: Locked<Operation?>
    private let conditions: [any OperationCondition]
    private let attachment: OperationAttachment
    private let lifecycle = OperationLifecycle()

    init(for operation: Operation, conditions: [any OperationCondition], attachment: OperationAttachment) {
        target = Locked(operation)
        self.conditions = conditions
        self.attachment = attachment
        super.init()
        name = "stratus.toolkit.conditions(\(Toolkit.describe(operation)))"
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lifecycle.isExecuting }
    override var isFinished: Bool { lifecycle.isFinished }

    /// Does nothing: the evaluator is the toolkit's bookkeeping and always runs to the end.
    /// Cancel the operation instead.
    override func cancel() {}

    override func start() {
        guard lifecycle.transition(self, to: .executing) else { return }
        guard let operation = target.value, !isStopped(operation) else {
            stopWithoutRunning()
            return
        }
        guard !conditions.isEmpty else {
            release(operation)
            return
        }
        let conditions = self.conditions
        Task {
            let results = await withTaskGroup(of: (Int, OperationConditionResult).self) { group in
                for (index, condition) in conditions.enumerated() {
                    group.addTask { (index, await condition.evaluate(for: operation)) }
                }
                var results = [OperationConditionResult](repeating: .satisfied, count: conditions.count)
                for await (index, result) in group { results[index] = result }
                return results
            }
            self.decide(results, for: operation)
        }
    }

    private func decide(_ results: [OperationConditionResult], for operation: Operation) {
        if isStopped(operation) {
            stopWithoutRunning()
            return
        }
        for result in results {
            if case .failed(let error) = result {
                fail(operation, with: error)
                return
            }
        }
        release(operation)
    }

    /// Lets the operation run, once its exclusivity categories are granted.
    private func release(_ operation: Operation) {
        guard let ticket = attachment.ticket else {
            letRun(operation)
            return
        }
        ExclusivityController.shared.claim(ticket) { outcome in
            switch outcome {
            case .granted:
                self.letRun(operation)
            case .withdrawn:
                self.finishEvaluation()
            case .refused(let reason):
                let categories = ticket.categories.sorted().joined(separator: ", ")
                self.fail(operation, with: OperationConditionError(conditionName: "MutuallyExclusive(\(categories))", reason: reason))
            }
        }
    }

    /// Finishes the evaluation, which makes the operation ready, unless it must not run after
    /// all. For an operation that does not report its own start, this is the last moment
    /// Stratus sees before it runs.
    private func letRun(_ operation: Operation) {
        if isStopped(operation) {
            stopWithoutRunning()
            return
        }
        if !(operation is any StartReporting) { attachment.reportStart(of: operation) }
        finishEvaluation()
    }

    /// Whether the operation must not run: it was cancelled or has finished, or the group it
    /// runs in (or a group around that) was cancelled. A cancelled group cancels its children
    /// one by one, and a child whose dependency it cancelled first would otherwise be let run
    /// before the cancel reached it.
    private func isStopped(_ operation: Operation) -> Bool {
        if operation.isCancelled || operation.isFinished { return true }
        return (attachment.queue as? GroupQueue)?.group?.isCancelledFromHereUp == true
    }

    private func fail(_ operation: Operation, with error: any Error) {
        if let ticket = attachment.ticket { ExclusivityController.shared.release(ticket) }
        if let reporting = operation as? any OperationErrorReporting {
            reporting.conditionDidFail(with: error)
        } else {
            Toolkit.cancel(operation)
        }
        finishEvaluation()
    }

    /// The operation was cancelled (or finished), or its group was, meanwhile: make sure it is
    /// cancelled, give up its categories and finish.
    private func stopWithoutRunning() {
        if let operation = target.value, !operation.isCancelled, !operation.isFinished { Toolkit.cancel(operation) }
        if let ticket = attachment.ticket { ExclusivityController.shared.release(ticket) }
        finishEvaluation()
    }

    private func finishEvaluation() {
        lifecycle.finish(self)
        // Foundation on Linux does not recount an operation's unfinished dependencies after
        // one that has not finished is removed (a refused operation drops its dependencies),
        // so it may never see the operation become ready; Stratus's operations answer from
        // their dependencies, once asked.
        target.value?.didChangeValue(forKey: "isReady")
        // Only now, once Foundation is done with this operation's dependents, let go of it.
        target.value = nil
    }
}
