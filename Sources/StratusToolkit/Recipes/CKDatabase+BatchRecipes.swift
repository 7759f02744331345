import StratusCore
import StratusOperations

extension CKDatabase {
    /// Saves and deletes any number of records, split into requests CloudKit accepts, with
    /// results per record as if one operation had run.
    ///
    /// Splits by zone first, keeps records that reference each other together where they fit,
    /// pre-splits at `splitting`'s limits (400 items, 2 MB) and halves a request again on
    /// `limitExceeded`; see ``BatchModifyOperation``. An atomic batch too large for one request
    /// is not split unless `splitting` allows it.
    ///
    /// ```swift
    /// let results = try await database.modifyRecordsInBatches(saving: photos, atomically: false)
    /// ```
    ///
    /// - Parameters:
    ///   - recordsToSave: Records to save, any number; they are not changed.
    ///   - recordIDsToDelete: Records to delete, any number, sent in this order: list children
    ///     before their parents, since a parent deleted in an earlier request than a child
    ///     that stays fails with `referenceViolation`.
    ///   - savePolicy: How saves treat the server's copies.
    ///   - atomically: Whether each atomic zone applies its part of a request all or nothing.
    ///   - splitting: The limits and the rule for atomic batches.
    ///   - retry: How each request's transient failures are retried; nil retries none.
    /// - Returns: Each item's final outcome; a partial failure never throws.
    /// - Throws: Only when every item failed with the same request error, or
    ///   `operationCancelled` when the calling task was cancelled first.
    public func modifyRecordsInBatches(
        saving recordsToSave: [CKRecord] = [],
        deleting recordIDsToDelete: [CKRecord.ID] = [],
        savePolicy: CKRecordSavePolicy = .ifServerRecordUnchanged,
        atomically: Bool = true,
        splitting: BatchSplitting = BatchSplitting(),
        retry: RetryPolicy? = nil
    ) async throws -> ModifyReport {
        var options = ModifyRecipeOptions()
        options.savePolicy = savePolicy
        options.isAtomic = atomically
        options.splitting = splitting
        options.retry = retry
        options.maximumAttempts = retry?.attemptLimit ?? 1
        return try await runModifyRecipe(saving: recordsToSave, deleting: recordIDsToDelete, options: options)
    }
}
