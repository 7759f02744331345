/// The domain of every ``CKError``: `"CKErrorDomain"`.
public let CKErrorDomain = "CKErrorDomain"

/// The userInfo key of a ``CKError/Code/partialFailure``'s per-item errors:
/// a `[AnyHashable: any Error]` keyed by item ID. Read it with ``CKError/partialErrorsByItemID``.
public let CKPartialErrorsByItemIDKey = "CKPartialErrors"

/// The userInfo key of the seconds to wait before retrying, an `NSNumber`.
/// Read it with ``CKError/retryAfterSeconds``.
public let CKErrorRetryAfterKey = "CKRetryAfter"

/// The userInfo key of the server's copy of a record, with ``CKError/Code/serverRecordChanged``.
public let CKRecordChangedErrorServerRecordKey = "ServerRecord"

/// The userInfo key of the record the client tried to save, with ``CKError/Code/serverRecordChanged``.
public let CKRecordChangedErrorClientRecordKey = "ClientRecord"

/// The userInfo key of the version the client's change was based on, with
/// ``CKError/Code/serverRecordChanged``.
public let CKRecordChangedErrorAncestorRecordKey = "AncestorRecord"

/// The userInfo key of an `NSNumber` boolean on ``CKError/Code/zoneNotFound``: true when the
/// zone is gone because the user reset their encrypted data.
public let CKErrorUserDidResetEncryptedDataKey = "CKErrorUserDidResetEncryptedDataKey"
