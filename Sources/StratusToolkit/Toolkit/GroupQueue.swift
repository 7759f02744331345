import Foundation
import StratusCore
import StratusOperations

/// The internal queue of a ``GroupOperation``: every operation added to it — the group's
/// children, the dependencies their conditions generate, the operations they produce — becomes
/// a child the group waits for.
final class GroupQueue: OperationQueue, @unchecked Sendable {
    /// The group; set once, right after the group is made.
    weak var group: GroupOperation?

    override func addOperation(_ operation: Operation) {
        group?.adopt(operation)
        super.addOperation(operation)
    }
}
