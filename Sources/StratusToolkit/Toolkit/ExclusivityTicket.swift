import Foundation
import StratusCore
import StratusOperations

/// An operation's place in the ``ExclusivityController``: its categories, the operations it
/// waits for (so an operation that must run first is never queued behind it), and the groups
/// it runs inside (so a wait that would close a cycle can be seen).
final class ExclusivityTicket: @unchecked Sendable {
    /// The categories, each once (scoped to a group where the group holds them).
    let categories: Set<String>
    /// The operation's identity.
    let operationKey: ObjectIdentifier
    /// The operation, for messages.
    let operationName: String
    /// Whether the operation is a ``GroupOperation``: while it runs, it waits for its children.
    let isGroup: Bool
    /// The identities of the groups the operation runs inside, innermost first.
    let enclosingGroups: [ObjectIdentifier]
    /// Every operation the operation waited for, directly or through other operations (its
    /// hidden evaluator, generated dependencies, their dependencies, a group's children), when
    /// it was added. They stay alive while the operation does, so their identities cannot be
    /// reused meanwhile.
    let waitsFor: Set<ObjectIdentifier>
    /// The operation, to ignore what a cancelled one waits for (cancelling may free its
    /// dependencies, whose identities could then be reused).
    private weak var operation: Operation?

    init(operation: Operation, categories: Set<String>, enclosingGroup: GroupOperation?) {
        self.categories = categories
        self.operation = operation
        operationKey = ObjectIdentifier(operation)
        operationName = Toolkit.describe(operation)
        isGroup = operation is GroupOperation
        var groups: [ObjectIdentifier] = []
        var group = enclosingGroup
        while let current = group {
            groups.append(ObjectIdentifier(current))
            group = current.enclosingGroup
        }
        enclosingGroups = groups
        waitsFor = Self.unfinishedDependencies(of: operation)
    }

    /// Whether the operation waits for the operation `key` (and is not cancelled).
    func waits(for key: ObjectIdentifier) -> Bool {
        guard waitsFor.contains(key), let operation, !operation.isCancelled else { return false }
        return true
    }

    /// The identities of every unfinished operation `operation` depends on, directly or not.
    /// A group waits for its children as well as its dependencies.
    private static func unfinishedDependencies(of operation: Operation) -> Set<ObjectIdentifier> {
        var found = Set<ObjectIdentifier>()
        var stack = waits(of: operation)
        while let next = stack.popLast() {
            guard !next.isFinished, found.insert(ObjectIdentifier(next)).inserted else { continue }
            stack.append(contentsOf: waits(of: next))
        }
        return found
    }

    private static func waits(of operation: Operation) -> [Operation] {
        guard let group = operation as? GroupOperation else { return operation.dependencies }
        return operation.dependencies + group.unfinishedChildren
    }
}
