/// What went wrong: CloudKit's error codes with their names and raw values (`CKErrorCode` is
/// CloudKit's Objective-C name; Swift code spells it `CKError.Code`).
///
/// Both sides of the client/server boundary speak these codes: a ``WireError`` from a service
/// becomes a `CKError` with the same code.
public enum CKErrorCode: Int, Hashable, Sendable, CaseIterable {
    /// A bug or unexpected state in the server or the framework.
    case internalError = 1
    /// Some items of a batch failed; the per-item errors are in ``CKError/partialErrorsByItemID``.
    case partialFailure = 2
    /// The network is not available.
    case networkUnavailable = 3
    /// The network is up but the server could not be reached.
    case networkFailure = 4
    /// The container is unknown or not authorised.
    case badContainer = 5
    /// The service is unavailable; retry after ``CKError/retryAfterSeconds``.
    case serviceUnavailable = 6
    /// Requests are being throttled; wait ``CKError/retryAfterSeconds`` before sending more.
    case requestRateLimited = 7
    /// The app lacks a required entitlement.
    case missingEntitlement = 8
    /// There is no usable iCloud account on the device.
    case notAuthenticated = 9
    /// The user does not have permission for this request.
    case permissionFailure = 10
    /// The record, zone or subscription does not exist.
    case unknownItem = 11
    /// The request was malformed; the message names the bad part.
    case invalidArguments = 12
    /// Deprecated by CloudKit (iOS 10): never returned.
    case resultsTruncated = 13
    /// The record changed on the server since it was fetched, or a new record's ID already exists: merge into ``CKError/serverRecord`` and save again.
    case serverRecordChanged = 14
    /// The server rejected the request.
    case serverRejectedRequest = 15
    /// An asset's local file does not exist.
    case assetFileNotFound = 16
    /// An asset's file changed while it was being uploaded.
    case assetFileModified = 17
    /// The app is older than the oldest version the container allows.
    case incompatibleVersion = 18
    /// A unique constraint was violated.
    case constraintViolation = 19
    /// The operation was cancelled.
    case operationCancelled = 20
    /// The change token is too old: reset it to nil and fetch everything again.
    case changeTokenExpired = 21
    /// Not applied because another item of the same atomic zone batch failed.
    case batchRequestFailed = 22
    /// The zone is busy; retry after ``CKError/retryAfterSeconds``.
    case zoneBusy = 23
    /// The request is not valid in this database.
    case badDatabase = 24
    /// Saving would exceed a storage quota.
    case quotaExceeded = 25
    /// The zone does not exist.
    case zoneNotFound = 26
    /// The request is too large: split it in half and retry both halves.
    case limitExceeded = 27
    /// The user deleted the zone from the device's settings.
    case userDeletedZone = 28
    /// A share has too many participants.
    case tooManyParticipants = 29
    /// The record or one of its relatives is already shared.
    case alreadyShared = 30
    /// A reference's target does not exist.
    case referenceViolation = 31
    /// A managed account does not allow this request.
    case managedAccountRestricted = 32
    /// The user is not a participant of the share and may need to verify an address.
    case participantMayNeedVerification = 33
    /// The connection was lost before the response arrived.
    case serverResponseLost = 34
    /// An asset cannot be reached.
    case assetNotAvailable = 35
    /// The account is signed in but not ready yet; wait for `.CKAccountChanged`.
    case accountTemporarilyUnavailable = 36
    /// The invitee must accept an earlier invitation first.
    case participantAlreadyInvited = 37
}
