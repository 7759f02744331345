import StratusCore
import StratusOperations

extension CKDatabase {
    /// Saves records, merging each `serverRecordChanged` conflict with `merge` and saving the
    /// merged record, up to `maximumAttempts` requests; see ``ConflictResolvingSaveOperation``.
    ///
    /// ```swift
    /// let results = try await database.saveResolvingConflicts([party])   // RecordMerge.default
    /// ```
    ///
    /// - Parameters:
    ///   - records: The records to save, with `.ifServerRecordUnchanged`.
    ///   - maximumAttempts: Requests in all, the first included (at least the retry policy's).
    ///   - retry: How transient failures are retried; nil retries none.
    ///   - merge: Merges a conflict into the record to save: ``RecordMerge/default`` unless given.
    /// - Returns: Each record's final outcome, keyed by ID: the saved record, or the last error
    ///   (a conflict still there after the last attempt, or the error the merge threw).
    /// - Throws: Only when every record failed with the same request error.
    public func saveResolvingConflicts(
        _ records: [CKRecord],
        maximumAttempts: Int = 5,
        retry: RetryPolicy? = nil,
        merge: @escaping RecordConflictMerge = RecordMerge.default
    ) async throws -> [CKRecord.ID: Result<CKRecord, any Error>] {
        var options = ModifyRecipeOptions()
        options.merge = merge
        options.retry = retry
        options.maximumAttempts = max(maximumAttempts, retry?.attemptLimit ?? 1)
        return try await runModifyRecipe(saving: records, deleting: [], options: options).saveResults
    }

    /// Saves one record, merging `serverRecordChanged` conflicts with `merge` and saving the
    /// merged record, up to `maximumAttempts` requests.
    ///
    /// - Returns: The saved record, a new object with the server's change tag.
    /// - Throws: The record's last error.
    @discardableResult
    public func saveResolvingConflicts(
        _ record: CKRecord,
        maximumAttempts: Int = 5,
        retry: RetryPolicy? = nil,
        merge: @escaping RecordConflictMerge = RecordMerge.default
    ) async throws -> CKRecord {
        let results = try await saveResolvingConflicts([record], maximumAttempts: maximumAttempts, retry: retry, merge: merge)
        guard let result = results[record.recordID] else {
            throw CKError(.internalError, message: "no result for record '\(record.recordID.recordName)'")
        }
        return try result.get()
    }
}
