import StratusCore
import StratusOperations

// The retry recipe as async calls. Each runs like a convenience method (`.userInitiated`, or
// what `configuredWith` set), one fresh CKModifyRecordsOperation per attempt.

extension CKDatabase {
    /// The results of a modify recipe: each item's outcome, keyed by the IDs you passed, as
    /// `modifyRecords(saving:deleting:savePolicy:atomically:)` returns them.
    public typealias ModifyReport = (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>])

    /// Saves and deletes records, retrying transient failures under `policy`.
    ///
    /// A request that fails as a whole with an error the policy retries is sent again after
    /// the wait it asks for. After a partial failure only the items that failed transiently
    /// (with their `batchRequestFailed` companions in atomic zones) are sent again, after the
    /// largest retry-after among them; saved records are never sent again. See ``RetryPolicy``.
    ///
    /// ```swift
    /// let (saved, deleted) = try await database.modifyRecordsRetrying(saving: favourites, deleting: [], policy: RetryPolicy(seed: 1))
    /// ```
    ///
    /// - Parameters:
    ///   - recordsToSave: Records to save; they are not changed.
    ///   - recordIDsToDelete: Records to delete.
    ///   - savePolicy: How saves treat the server's copies.
    ///   - atomically: Whether each atomic zone applies its part of a request all or nothing.
    ///   - policy: Which failures are retried, how often and after which waits.
    /// - Returns: Each item's final outcome. Unlike `modifyRecords(...)`, a partial failure
    ///   never throws, so the records that were saved are never lost in an error.
    /// - Throws: Only when every item failed with the same request error (after the retries
    ///   the policy allows), such as `limitExceeded` for more than 400 items (see
    ///   ``modifyRecordsInBatches(saving:deleting:savePolicy:atomically:splitting:retry:)``),
    ///   or `operationCancelled` when the calling task was cancelled first.
    public func modifyRecordsRetrying(
        saving recordsToSave: [CKRecord],
        deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKRecordSavePolicy = .ifServerRecordUnchanged,
        atomically: Bool = true,
        policy: RetryPolicy = RetryPolicy()
    ) async throws -> ModifyReport {
        var options = ModifyRecipeOptions()
        options.savePolicy = savePolicy
        options.isAtomic = atomically
        options.retry = policy
        options.maximumAttempts = policy.attemptLimit
        return try await runModifyRecipe(saving: recordsToSave, deleting: recordIDsToDelete, options: options)
    }

    /// Saves one record with `.ifServerRecordUnchanged`, retrying transient failures under
    /// `policy`.
    ///
    /// - Returns: The saved record, a new object with the server's change tag.
    /// - Throws: The record's last error: `serverRecordChanged` (use
    ///   ``saveResolvingConflicts(_:maximumAttempts:retry:merge:)``), a transient error that
    ///   outlasted the policy, or any other.
    @discardableResult
    public func saveRetrying(_ record: CKRecord, policy: RetryPolicy = RetryPolicy()) async throws -> CKRecord {
        let results = try await modifyRecordsRetrying(saving: [record], deleting: [], policy: policy)
        guard let result = results.saveResults[record.recordID] else {
            throw CKError(.internalError, message: "no result for record '\(record.recordID.recordName)'")
        }
        return try result.get()
    }

    /// Deletes one record, retrying transient failures under `policy`. Deleting is
    /// idempotent, so a delete is safe to send again.
    ///
    /// - Returns: The ID you passed.
    @discardableResult
    public func deleteRecordRetrying(withID recordID: CKRecord.ID, policy: RetryPolicy = RetryPolicy()) async throws -> CKRecord.ID {
        let results = try await modifyRecordsRetrying(saving: [], deleting: [recordID], policy: policy)
        guard let result = results.deleteResults[recordID] else {
            throw CKError(.internalError, message: "no result for record '\(recordID.recordName)'")
        }
        try result.get()
        return recordID
    }

    /// Runs the modify engine as a convenience call: throws when every item failed with one
    /// request error, returns every item's result otherwise.
    func runModifyRecipe(saving saves: [CKRecord], deleting deletes: [CKRecord.ID], options: ModifyRecipeOptions) async throws -> ModifyReport {
        var options = options
        options.appliesConvenienceSettings = true
        var run = ModifyRecipeRun(database: self, saving: saves, deleting: deletes, options: options)
        let outcome = await run.run()
        if let failure = outcome.failure, failure.code != .partialFailure { throw failure }
        return outcome.keyed
    }
}
