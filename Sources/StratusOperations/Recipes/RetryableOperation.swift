import StratusCore

/// A CloudKit operation whose final result a ``RetryOperation`` can read, so that it can decide
/// whether to run a fresh one.
///
/// Stratus's record, query, zone, subscription and change operations conform. CloudKit has no
/// such protocol.
public protocol RetryableOperation: CKDatabaseOperation {
    /// Adds `observer` after the operation's modern final block (the one set now, if any, still
    /// runs first), so the observer learns the final result.
    ///
    /// A legacy completion block set on the operation is not called once a modern final block
    /// is set, as CloudKit does; set the modern one.
    func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void)
}

extension CKModifyRecordsOperation: RetryableOperation {
    /// - SeeAlso: ``RetryableOperation/observeFinalResult(_:)``
    public func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let existing = modifyRecordsResultBlock
        modifyRecordsResultBlock = { result in
            existing?(result)
            observer(result)
        }
    }
}

extension CKFetchRecordsOperation: RetryableOperation {
    /// - SeeAlso: ``RetryableOperation/observeFinalResult(_:)``
    public func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let existing = fetchRecordsResultBlock
        fetchRecordsResultBlock = { result in
            existing?(result)
            observer(result)
        }
    }
}

extension CKQueryOperation: RetryableOperation {
    /// - SeeAlso: ``RetryableOperation/observeFinalResult(_:)``
    public func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let existing = queryResultBlock
        queryResultBlock = { result in
            existing?(result)
            observer(result.map { _ in () })
        }
    }
}

extension CKFetchRecordZonesOperation: RetryableOperation {
    /// - SeeAlso: ``RetryableOperation/observeFinalResult(_:)``
    public func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let existing = fetchRecordZonesResultBlock
        fetchRecordZonesResultBlock = { result in
            existing?(result)
            observer(result)
        }
    }
}

extension CKModifyRecordZonesOperation: RetryableOperation {
    /// - SeeAlso: ``RetryableOperation/observeFinalResult(_:)``
    public func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let existing = modifyRecordZonesResultBlock
        modifyRecordZonesResultBlock = { result in
            existing?(result)
            observer(result)
        }
    }
}

extension CKFetchSubscriptionsOperation: RetryableOperation {
    /// - SeeAlso: ``RetryableOperation/observeFinalResult(_:)``
    public func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let existing = fetchSubscriptionsResultBlock
        fetchSubscriptionsResultBlock = { result in
            existing?(result)
            observer(result)
        }
    }
}

extension CKModifySubscriptionsOperation: RetryableOperation {
    /// - SeeAlso: ``RetryableOperation/observeFinalResult(_:)``
    public func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let existing = modifySubscriptionsResultBlock
        modifySubscriptionsResultBlock = { result in
            existing?(result)
            observer(result)
        }
    }
}

extension CKFetchRecordZoneChangesOperation: RetryableOperation {
    /// - SeeAlso: ``RetryableOperation/observeFinalResult(_:)``
    public func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let existing = fetchRecordZoneChangesResultBlock
        fetchRecordZoneChangesResultBlock = { result in
            existing?(result)
            observer(result)
        }
    }
}

extension CKFetchDatabaseChangesOperation: RetryableOperation {
    /// - SeeAlso: ``RetryableOperation/observeFinalResult(_:)``
    public func observeFinalResult(_ observer: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let existing = fetchDatabaseChangesResultBlock
        fetchDatabaseChangesResultBlock = { result in
            existing?(result)
            observer(result.map { _ in () })
        }
    }
}
