import Foundation

/// An operation's place in the ``ExclusivityController``: its categories, and the operations
/// it waits for, so an operation that must run first is never queued behind it.
final class ExclusivityTicket: @unchecked Sendable {
    /// The categories, each once.
    let categories: Set<String>
    /// The operation's identity.
    let operationKey: ObjectIdentifier
    /// Every operation the operation waited for, directly or through other operations (its
    /// hidden evaluator, generated dependencies, their dependencies), when it was added. They
    /// stay alive while the operation does, so their identities cannot be reused meanwhile.
    let waitsFor: Set<ObjectIdentifier>
    /// The operation, to ignore what a cancelled one waits for (cancelling may free its
    /// dependencies, whose identities could then be reused).
    private weak var operation: Operation?

    init(operation: Operation, categories: Set<String>) {
        self.categories = categories
        self.operation = operation
        operationKey = ObjectIdentifier(operation)
        waitsFor = Self.unfinishedDependencies(of: operation)
    }

    /// Whether the operation waits for the operation `key` (and is not cancelled).
    func waits(for key: ObjectIdentifier) -> Bool {
        guard waitsFor.contains(key), let operation, !operation.isCancelled else { return false }
        return true
    }

    /// The identities of every unfinished operation `operation` depends on, directly or not.
    private static func unfinishedDependencies(of operation: Operation) -> Set<ObjectIdentifier> {
        var found = Set<ObjectIdentifier>()
        var stack = operation.dependencies
        while let next = stack.popLast() {
            guard !next.isFinished, found.insert(ObjectIdentifier(next)).inserted else { continue }
            stack.append(contentsOf: next.dependencies)
        }
        return found
    }
}
