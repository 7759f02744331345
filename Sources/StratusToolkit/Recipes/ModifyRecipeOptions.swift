import Foundation
import StratusCore
import StratusOperations

/// Merges a save that conflicted (`serverRecordChanged`) into the record to save instead.
///
/// - Parameters:
///   - serverRecord: The server's current copy, with its current change tag. Merge into it:
///     a record with an older tag conflicts again.
///   - clientRecord: The record the recipe tried to save, with its changed keys.
///   - ancestorRecord: The version the client's change was based on; nil when the client
///     inserted a record whose ID already existed.
/// - Returns: The record to save; it must have the conflicting record's ID.
/// - Throws: Any error, to give up on this record: the error becomes its result.
public typealias RecordConflictMerge = @Sendable (_ serverRecord: CKRecord, _ clientRecord: CKRecord, _ ancestorRecord: CKRecord?) throws -> CKRecord

/// What one run of the modify engine does: the request settings, and which recipes are on.
struct ModifyRecipeOptions: Sendable {
    var savePolicy: CKRecordSavePolicy = .ifServerRecordUnchanged
    var isAtomic = true
    /// The first attempt's `clientChangeTokenData`; fresh bytes when nil.
    var clientChangeTokenData: Data?
    /// Transient failures are retried under this policy; nil retries none.
    var retry: RetryPolicy?
    /// Conflicts are merged with this and saved again; nil leaves them failed.
    var merge: RecordConflictMerge?
    /// Attempts per request, first included, for transient retries and merges together.
    var maximumAttempts = 1
    /// Large modifications are split this way; nil sends everything in one request.
    var splitting: BatchSplitting?
    var makeOperation: ModifyOperationFactory = ModifyAttempt.plainOperation
    /// Whether attempts run like convenience calls: `.userInitiated`, or what
    /// `configuredWith` set.
    var appliesConvenienceSettings = false
}
