import Foundation

/// What a cancelled operation does with the dependencies that have not finished.
///
/// A cancelled Foundation operation finishes without waiting for its dependencies, and on
/// Linux a dependency that finishes after the cancelled operation has been freed touches
/// freed memory. So every Stratus operation, when cancelled, drops those dependencies (after
/// marking itself cancelled, so one the removal makes ready starts cancelled), and stays alive
/// until each of them has finished: a dependency that was already finishing when it was
/// removed may still reach the operation it no longer blocks.
package enum CancelledDependencies {
    /// Removes `operation`'s unfinished dependencies with `remove`, and keeps `operation`
    /// alive until each of them has finished.
    package static func release(_ operation: Operation, remove: (Operation) -> Void) {
        let unfinished = operation.dependencies.filter { !$0.isFinished }
        unfinished.forEach(remove)
        for dependency in unfinished {
            let keeper = BlockOperation { withExtendedLifetime(operation) {} }
            keeper.addDependency(dependency)
            HelperQueues.add(keeper)
        }
    }
}
