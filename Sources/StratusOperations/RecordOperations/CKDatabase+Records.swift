import StratusCore

// The record convenience methods of CKDatabase. Each runs one operation, with CloudKit's
// defaults and `.userInitiated` quality of service, so each costs one request. Single-record methods throw the item's own error; batch methods throw
// only when the whole request fails, and put each item's outcome in their results.

extension CKDatabase {
    // MARK: - Fetching

    /// Fetches one record.
    ///
    /// - Throws: `unknownItem` when the record does not exist, `zoneNotFound` when its zone
    ///   does not, or the request's error.
    @discardableResult
    public func record(for recordID: CKRecord.ID) async throws -> CKRecord {
        let results = try await records(for: [recordID])
        return try results.result(for: recordID, of: "record '\(recordID.recordName)'")
    }

    /// Fetches one record and passes it, or the error, to `completionHandler`.
    @preconcurrency
    public func fetch(withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.record(for: recordID) }
    }

    /// Fetches records by ID, as one `CKFetchRecordsOperation`.
    ///
    /// - Parameters:
    ///   - recordIDs: The records to fetch.
    ///   - desiredKeys: The fields to fetch; nil fetches every field, an empty array only the
    ///     system fields. A record fetched with some keys and saved keeps the others.
    /// - Returns: Each record, or why it could not be fetched, keyed by the IDs you passed.
    /// - Throws: Only when the whole request fails: `limitExceeded` for more than 400 IDs, as
    ///   CloudKit's does, since it runs one operation (fetch them in parts of at most 400).
    public func records(for recordIDs: [CKRecord.ID], desiredKeys: [CKRecord.FieldKey]? = nil) async throws -> [CKRecord.ID: Result<CKRecord, any Error>] {
        let operation = CKFetchRecordsOperation(recordIDs: recordIDs)
        operation.desiredKeys = desiredKeys
        return try await performItems(operation) { operation, item, final in
            operation.perRecordResultBlock = item
            operation.fetchRecordsResultBlock = final
        }
    }

    /// Fetches records by ID and passes the results to `completionHandler`.
    @preconcurrency
    public func fetch(
        withRecordIDs recordIDs: [CKRecord.ID],
        desiredKeys: [CKRecord.FieldKey]? = nil,
        completionHandler: @escaping @Sendable (Result<[CKRecord.ID: Result<CKRecord, any Error>], any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.records(for: recordIDs, desiredKeys: desiredKeys) }
    }

    // MARK: - Saving and deleting

    /// Saves one record with `.ifServerRecordUnchanged`: it must be new, or carry the server's
    /// current change tag.
    ///
    /// The record you pass is not changed; the returned record is a new object with the
    /// server's change tag and dates and no changed keys.
    ///
    /// - Throws: `serverRecordChanged` (with the server, client and ancestor records) when the
    ///   server has another version, `unknownItem` when the record was deleted on the server,
    ///   or the request's error.
    @discardableResult
    public func save(_ record: CKRecord) async throws -> CKRecord {
        let (saveResults, _) = try await modify(saving: [record], deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: true)
        return try saveResults.result(for: record.recordID, of: "record '\(record.recordID.recordName)'")
    }

    /// Saves one record and passes the saved record, or the error, to `completionHandler`.
    @preconcurrency
    public func save(_ record: CKRecord, completionHandler: @escaping @Sendable (CKRecord?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.save(record) }
    }

    /// Deletes one record, and the records whose `deleteSelf` references tie them to it.
    /// Deleting a record that does not exist succeeds.
    ///
    /// - Returns: The ID you passed.
    @discardableResult
    public func deleteRecord(withID recordID: CKRecord.ID) async throws -> CKRecord.ID {
        let (_, deleteResults) = try await modify(saving: [], deleting: [recordID], savePolicy: .ifServerRecordUnchanged, atomically: true)
        try deleteResults.result(for: recordID, of: "record '\(recordID.recordName)'")
        return recordID
    }

    /// Deletes one record and passes its ID, or the error, to `completionHandler`.
    @preconcurrency
    public func delete(withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.deleteRecord(withID: recordID) }
    }

    /// Saves and deletes records in one request, as one `CKModifyRecordsOperation`.
    ///
    /// - Parameters:
    ///   - recordsToSave: Records to save; they are not changed.
    ///   - recordIDsToDelete: Records to delete.
    ///   - savePolicy: How saves treat the server's copies.
    ///   - atomically: Whether each zone that supports it applies its part all or nothing.
    /// - Returns: Each item's outcome, keyed by the IDs you passed.
    /// - Throws: When the whole request fails (for example `limitExceeded` above 400 items or
    ///   2 MB), and, with `atomically`, a `partialFailure` when any item failed.
    public func modifyRecords(
        saving recordsToSave: [CKRecord],
        deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKRecordSavePolicy = .ifServerRecordUnchanged,
        atomically: Bool = true
    ) async throws -> (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]) {
        let (results, failure) = try await modifyOutcome(saving: recordsToSave, deleting: recordIDsToDelete, savePolicy: savePolicy, atomically: atomically)
        if atomically, let failure { throw failure }
        return results
    }

    /// Saves and deletes records in one request and passes the results to `completionHandler`.
    @preconcurrency
    public func modifyRecords(
        saving recordsToSave: [CKRecord],
        deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKRecordSavePolicy = .ifServerRecordUnchanged,
        atomically: Bool = true,
        completionHandler: @escaping @Sendable (Result<(saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]), any Error>) -> Void
    ) {
        complete(completionHandler) {
            try await self.modifyRecords(saving: recordsToSave, deleting: recordIDsToDelete, savePolicy: savePolicy, atomically: atomically)
        }
    }

    /// Runs one modify operation and returns every item's outcome, without the atomic throw.
    private func modify(
        saving saves: [CKRecord],
        deleting deletes: [CKRecord.ID],
        savePolicy: CKRecordSavePolicy,
        atomically: Bool
    ) async throws -> (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]) {
        try await modifyOutcome(saving: saves, deleting: deletes, savePolicy: savePolicy, atomically: atomically).results
    }

    private func modifyOutcome(
        saving saves: [CKRecord],
        deleting deletes: [CKRecord.ID],
        savePolicy: CKRecordSavePolicy,
        atomically: Bool
    ) async throws -> (results: (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]), partialFailure: CKError?) {
        let operation = CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
        operation.savePolicy = savePolicy
        operation.isAtomic = atomically
        let outcome = try await performModify(operation) { operation, save, delete, final in
            operation.perRecordSaveBlock = save
            operation.perRecordDeleteBlock = delete
            operation.modifyRecordsResultBlock = final
        }
        return ((outcome.saveResults, outcome.deleteResults), outcome.partialFailure)
    }
}
