import StratusCore
import StratusWire

extension CKDatabase {
    /// Runs `operation` on this database, on the database's own queue, which sends only a few
    /// requests at a time. Sets the operation's `database` to this database.
    ///
    /// An operation that is already running, finished, or added by Stratus before is not added
    /// again: a warning is printed and nothing else happens, so a finished operation never
    /// calls its blocks twice. (An operation you put in your own queue cannot be detected; do
    /// not add it here too.)
    public func add(_ operation: CKDatabaseOperation) {
        guard CKOperation.claimForQueue(operation) else { return }
        operation.database = self
        operationQueue.addOperation(operation)
    }
}

extension CKContainer {
    /// Runs `operation` on the container's own queue. A database operation with no `database`
    /// works on this container's private database.
    ///
    /// As with `CKDatabase.add(_:)`, an operation that is running, finished or already added by
    /// Stratus is refused with a warning.
    public func add(_ operation: CKOperation) {
        guard CKOperation.claimForQueue(operation) else { return }
        if !operation.configuration.values.value.explicit.contains(.container) {
            operation.configuration.container = self
        }
        operationQueue.addOperation(operation)
    }
}

extension CKOperation {
    /// Marks `operation` as taken by a Stratus queue; false, with a warning, when it cannot be
    /// added again.
    package static func claimForQueue(_ operation: CKOperation) -> Bool {
        if operation.isFinished || operation.isExecuting {
            runtimeWarning("operation \(operation.operationID) is \(operation.isFinished ? "finished" : "executing") and was not added again")
            return false
        }
        if operation.isEnqueuedByStratus.exchange(true) {
            runtimeWarning("operation \(operation.operationID) was already added to a queue and was not added again")
            return false
        }
        return true
    }
}
