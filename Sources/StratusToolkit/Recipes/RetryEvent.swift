import Foundation
import StratusCore
import StratusOperations

/// One retry a recipe is about to make: what failed, and what it waits for first.
///
/// A ``RetryPolicy``'s ``RetryPolicy/onRetry`` receives one per retry, once the wait has
/// begun.
public struct RetryEvent: Sendable {
    /// What a recipe waits for before it retries.
    public enum Wait: Sendable, Equatable {
        /// Seconds on the device's clock: a retry-after or a backoff.
        case seconds(TimeInterval)
        /// `.CKAccountChanged` for the container (`accountTemporarilyUnavailable`, or
        /// `notAuthenticated` when the policy retries it).
        case accountChange
        /// Nothing: a conflict was merged and the merged record is saved at once.
        case none
    }

    /// The attempt that failed, counting from 1.
    public var attempt: Int
    /// The error that caused the retry: the request's error, or the item error with the
    /// largest retry-after among the items retried.
    public var error: CKError
    /// What the recipe waits for before the next attempt.
    public var wait: Wait
    /// The records the next attempt saves or deletes again; empty for operations that are
    /// not record modifications.
    public var recordIDs: [CKRecord.ID]
}
