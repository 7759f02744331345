import StratusCore
import StratusOperations

/// Saves records, merging each `serverRecordChanged` conflict and saving the merge, as one
/// operation.
///
/// CloudKit has no such operation: its documentation asks apps to merge a conflicting change
/// into the error's `serverRecord` and save that. For each record that conflicts, this
/// operation calls ``merge`` with the server's record, the record it tried to save and the
/// ancestor, and saves what the merge returns, up to ``maximumAttempts`` requests in all, or
/// the ``retry`` policy's attempts when that is more (a device that keeps losing the race gets
/// the last conflict as its result). The default merge,
/// ``RecordMerge/default``, applies the client's changed keys to the server's record and merges
/// lists three ways. With a ``retry`` policy, transient failures are retried too.
///
/// ```swift
/// let operation = ConflictResolvingSaveOperation(database: database, recordsToSave: [party])
/// operation.perRecordSaveBlock = { recordID, result in … }
/// queue.addOperation(operation)
/// ```
///
/// CloudKit document: *CKError.Code.serverRecordChanged*.
public final class ConflictResolvingSaveOperation: ModifyRecipeOperation, @unchecked Sendable {
    /// Creates the operation.
    ///
    /// - Parameters:
    ///   - database: The database to save to.
    ///   - recordsToSave: The records to save.
    ///   - maximumAttempts: Requests in all, the first included.
    ///   - retry: How transient failures are retried; nil retries none.
    ///   - merge: Merges a conflict into the record to save instead.
    public init(
        database: CKDatabase,
        recordsToSave: [CKRecord],
        maximumAttempts: Int = 5,
        retry: RetryPolicy? = nil,
        merge: @escaping RecordConflictMerge = RecordMerge.default
    ) {
        _merge = _Locked(wrappedValue: merge)
        _maximumAttempts = _Locked(wrappedValue: maximumAttempts)
        _retry = _Locked(wrappedValue: retry)
        super.init(database: database, recordsToSave: recordsToSave, recordIDsToDelete: [])
    }

    /// The merge of a conflict: ``RecordMerge/default`` unless set. Released (reset to the
    /// default) once the operation finishes.
    @_Locked public var merge: RecordConflictMerge

    /// Requests in all, the first included: 5 unless set, or the retry policy's attempts when
    /// that is more. Values below 1 count as 1.
    @_Locked public var maximumAttempts: Int

    /// How transient failures are retried; nil (unless set) retries none.
    @_Locked public var retry: RetryPolicy?

    override func releaseClosures() {
        super.releaseClosures()
        merge = RecordMerge.default
    }

    override func recipeOptions() -> ModifyRecipeOptions {
        var options = super.recipeOptions()
        options.merge = merge
        options.retry = retry
        options.maximumAttempts = max(maximumAttempts, retry?.attemptLimit ?? 1)
        return options
    }
}
