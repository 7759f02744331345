import StratusCore
import StratusOperations

/// Saves and deletes records, retrying the items that fail transiently, as one operation.
///
/// CloudKit has no such operation: it is the retry loop its documentation asks every app to
/// write around `CKModifyRecordsOperation`. Each attempt is a fresh `CKModifyRecordsOperation`
/// built by ``ModifyRecipeOperation/makeOperation``. A request that fails as a whole with an
/// error the ``policy`` retries is sent again after the wait it asks for; after a partial
/// failure only the items that failed transiently are sent again — with their
/// `batchRequestFailed` companions of an atomic zone, so that batch stays all or nothing — after
/// the largest retry-after among them. Records that were saved are never sent again.
///
/// ```swift
/// let operation = RetryModifyRecordsOperation(database: database, recordsToSave: favourites, policy: RetryPolicy(seed: 7))
/// operation.perRecordSaveBlock = { recordID, result in … }
/// operation.modifyRecordsResultBlock = { result in … }
/// queue.addOperation(operation)
/// ```
///
/// CloudKit document: *CKError.retryAfterSeconds*.
public final class RetryModifyRecordsOperation: ModifyRecipeOperation, @unchecked Sendable {
    /// Creates the operation.
    ///
    /// - Parameters:
    ///   - database: The database to modify.
    ///   - recordsToSave: The records to save.
    ///   - recordIDsToDelete: The records to delete.
    ///   - policy: Which failures are retried, how often and after which waits.
    public init(database: CKDatabase, recordsToSave: [CKRecord] = [], recordIDsToDelete: [CKRecord.ID] = [], policy: RetryPolicy = RetryPolicy()) {
        _policy = _Locked(wrappedValue: policy)
        super.init(database: database, recordsToSave: recordsToSave, recordIDsToDelete: recordIDsToDelete)
    }

    /// Which failures are retried, how often, and after which waits.
    @_Locked public var policy: RetryPolicy

    override func recipeOptions() -> ModifyRecipeOptions {
        var options = super.recipeOptions()
        options.retry = policy
        options.maximumAttempts = policy.attemptLimit
        return options
    }
}
