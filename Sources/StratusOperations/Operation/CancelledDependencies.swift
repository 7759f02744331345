import Foundation

/// What a cancelled operation does with its dependencies.
///
/// A cancelled Foundation operation finishes without waiting for its dependencies, and on
/// Linux a dependency that finishes after the cancelled operation has been freed touches
/// freed memory: it reaches the operations that depend on it through pointers it does not
/// retain. So every Stratus operation, when cancelled, drops the dependencies that have not
/// finished (after marking itself cancelled, so one the removal makes ready starts cancelled),
/// and stays alive until every dependency has finished: one that was removed may already have
/// been finishing, and one that reads as finished may still be telling its dependents so
/// (Foundation reports `isFinished` before it walks them).
package enum CancelledDependencies {
    /// Removes `operation`'s unfinished dependencies with `remove`, and keeps `operation`
    /// alive until each of its dependencies has finished.
    package static func release(_ operation: Operation, remove: (Operation) -> Void) {
        let dependencies = operation.dependencies
        dependencies.filter { !$0.isFinished }.forEach(remove)
        for dependency in dependencies {
            let keeper = BlockOperation { withExtendedLifetime(operation) {} }
            keeper.addDependency(dependency)
            HelperQueues.add(keeper)
        }
    }
}
