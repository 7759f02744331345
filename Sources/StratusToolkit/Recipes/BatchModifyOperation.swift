import StratusCore
import StratusOperations

/// Saves and deletes any number of records, split into requests CloudKit accepts, as one
/// operation.
///
/// CloudKit has no such operation: its documentation asks apps to keep requests within 400
/// items and 2 MB and to split a batch in half on `limitExceeded`. This operation splits by zone
/// first, keeps records that reference each other (fields and `parent`) in one request where
/// they fit, sends records that others reference first, pre-splits at ``splitting``'s limits
/// using the server's own size measure, and halves a request again whenever the server answers
/// `limitExceeded`. A record that can never fit (over 1 MB of field data, or alone refused)
/// fails with its own `limitExceeded`. An atomic batch (an atomic request in a custom zone) is
/// never split unless ``BatchSplitting/allowsSplittingAtomicBatches`` is set: it fails with
/// `limitExceeded`, and the error says why. With a ``retry`` policy, each request is also
/// retried as ``RetryModifyRecordsOperation`` retries.
///
/// ```swift
/// let operation = BatchModifyOperation(database: database, recordsToSave: photos)
/// operation.isAtomic = false
/// operation.perRecordSaveBlock = { recordID, result in … }
/// queue.addOperation(operation)
/// ```
///
/// CloudKit document: *CKError.Code.limitExceeded*.
public final class BatchModifyOperation: ModifyRecipeOperation, @unchecked Sendable {
    /// Creates the operation.
    ///
    /// - Parameters:
    ///   - database: The database to modify.
    ///   - recordsToSave: The records to save, any number.
    ///   - recordIDsToDelete: The records to delete, any number, sent in this order: list
    ///     children before their parents, since a parent deleted in an earlier request than
    ///     a child that stays fails with `referenceViolation`.
    ///   - splitting: The limits and the rule for atomic batches.
    ///   - retry: How each request's transient failures are retried; nil retries none.
    public init(
        database: CKDatabase,
        recordsToSave: [CKRecord] = [],
        recordIDsToDelete: [CKRecord.ID] = [],
        splitting: BatchSplitting = BatchSplitting(),
        retry: RetryPolicy? = nil
    ) {
        _splitting = _Locked(wrappedValue: splitting)
        _retry = _Locked(wrappedValue: retry)
        super.init(database: database, recordsToSave: recordsToSave, recordIDsToDelete: recordIDsToDelete)
    }

    /// The limits requests are split at, and whether atomic batches may be split.
    @_Locked public var splitting: BatchSplitting

    /// How each request's transient failures are retried; nil (unless set) retries none.
    @_Locked public var retry: RetryPolicy?

    override func recipeOptions() -> ModifyRecipeOptions {
        var options = super.recipeOptions()
        options.splitting = splitting
        options.retry = retry
        options.maximumAttempts = retry?.attemptLimit ?? 1
        return options
    }
}
