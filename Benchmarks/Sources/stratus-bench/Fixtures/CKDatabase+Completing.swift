import Stratus

extension CKDatabase {
    /// Adds `operation` to this database and waits until its completion block has run.
    ///
    /// - Throws: The operation's error, such as a `partialFailure`.
    func completing(_ operation: CKModifyRecordsOperation) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            operation.modifyRecordsResultBlock = { continuation.resume(with: $0) }
            add(operation)
        }
    }

    /// Adds `operation` to this database and waits until its completion block has run.
    ///
    /// - Throws: The operation's error.
    func completing(_ operation: CKFetchRecordZoneChangesOperation) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            operation.fetchRecordZoneChangesResultBlock = { continuation.resume(with: $0) }
            add(operation)
        }
    }

    /// Adds `operation` to this database and waits until its completion block has run.
    ///
    /// - Returns: The cursor of the next page, if more records match.
    /// - Throws: The operation's error.
    func completing(_ operation: CKQueryOperation) async throws -> CKQueryOperation.Cursor? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CKQueryOperation.Cursor?, any Error>) in
            operation.queryResultBlock = { continuation.resume(with: $0) }
            add(operation)
        }
    }
}
