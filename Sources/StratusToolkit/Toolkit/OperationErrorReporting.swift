import Foundation
import StratusCore
import StratusOperations

/// An operation that takes part in the toolkit's error reporting: it learns that a condition
/// stopped it, and it tells conditions, observers and groups the errors it finished with.
///
/// Stratus-only, after the WWDC 2015 session "Advanced NSOperations" (whose operations finish
/// "with errors"). Every Stratus operation adopts it: `CKOperation` and its subclasses,
/// ``GroupOperation`` and ``DelayOperation``. An operation that does not adopt it is cancelled
/// when one of its conditions fails, and reports no errors.
///
/// To adopt it in your own asynchronous operation, store the error you are given and, when
/// `start()` is called, finish at once without doing any work if you have one:
///
/// ```swift
/// final class DownloadOperation: Operation, OperationErrorReporting, @unchecked Sendable {
///     private let failure = Mutex<(any Error)?>(nil)
///     func conditionDidFail(with error: any Error) { failure.withLock { $0 = error } }
///     var reportedErrors: [any Error] { failure.withLock { $0.map { [$0] } ?? [] } }
///     // start(): if a failure is stored, finish without downloading.
/// }
/// ```
public protocol OperationErrorReporting: Operation {
    /// Tells the operation that one of its conditions failed with `error`: it must not do
    /// its work, and when it starts it finishes at once, reporting `error`.
    ///
    /// Stratus calls it at most once, before the operation can start. When several conditions
    /// fail, `error` is that of the first of them, in the order the conditions were given.
    ///
    /// - Parameter error: Why the operation must not run.
    func conditionDidFail(with error: any Error)

    /// The errors the operation finished with: empty while it has not finished, and when it
    /// succeeded.
    var reportedErrors: [any Error] { get }
}
