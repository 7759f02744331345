// The enumerations CloudKit declares in Objective-C and Swift imports as non-frozen enums.
//
// CloudKit's `CKError.Code`, `CKAccountStatus`, `CKDatabase.Scope`, `CKRecord.ReferenceAction`,
// `CKRecordSavePolicy`, `CKOperationGroup.TransferSize` and the share participant enums come
// from Objective-C `NS_ENUM`s, which Swift imports as open (non-frozen) enums: a `switch` over one needs
// `@unknown default`, and `@unknown default` never draws a "default will never be executed"
// warning. A Swift enum of a module built without library evolution is always frozen, so
// Stratus declares these enums here, in C, with `enum_extensibility(open)`, and Swift imports
// them exactly as it imports CloudKit's. The Swift modules add their conveniences.

#ifndef CSTRATUS_H
#define CSTRATUS_H

#define CSTRATUS_OPEN_ENUM __attribute__((enum_extensibility(open)))

/// What went wrong: CloudKit's error codes with their names and raw values (`CKErrorCode` is
/// CloudKit's Objective-C name; Swift code spells it `CKError.Code`).
///
/// Both sides of the client/server boundary speak these codes: a `WireError` from a service
/// becomes a `CKError` with the same code. Like CloudKit's, the enum is not frozen: a `switch`
/// over it ends with `@unknown default`.
typedef enum CSTRATUS_OPEN_ENUM CKErrorCode : long {
    /// A bug or unexpected state in the server or the framework.
    CKErrorCodeInternalError = 1,
    /// Some items of a batch failed; the per-item errors are in `CKError.partialErrorsByItemID`.
    CKErrorCodePartialFailure = 2,
    /// The network is not available.
    CKErrorCodeNetworkUnavailable = 3,
    /// The network is up but the server could not be reached.
    CKErrorCodeNetworkFailure = 4,
    /// The container is unknown or not authorised.
    CKErrorCodeBadContainer = 5,
    /// The service is unavailable; retry after `CKError.retryAfterSeconds`.
    CKErrorCodeServiceUnavailable = 6,
    /// Requests are being throttled; wait `CKError.retryAfterSeconds` before sending more.
    CKErrorCodeRequestRateLimited = 7,
    /// The app lacks a required entitlement.
    CKErrorCodeMissingEntitlement = 8,
    /// There is no usable iCloud account on the device.
    CKErrorCodeNotAuthenticated = 9,
    /// The user does not have permission for this request.
    CKErrorCodePermissionFailure = 10,
    /// The record, zone or subscription does not exist.
    CKErrorCodeUnknownItem = 11,
    /// The request was malformed; the message names the bad part.
    CKErrorCodeInvalidArguments = 12,
    /// Deprecated by CloudKit (iOS 10): never returned.
    CKErrorCodeResultsTruncated = 13,
    /// The record changed on the server since it was fetched, or a new record's ID already exists: merge into `CKError.serverRecord` and save again.
    CKErrorCodeServerRecordChanged = 14,
    /// The server rejected the request.
    CKErrorCodeServerRejectedRequest = 15,
    /// An asset's local file does not exist.
    CKErrorCodeAssetFileNotFound = 16,
    /// An asset's file changed while it was being uploaded.
    CKErrorCodeAssetFileModified = 17,
    /// The app is older than the oldest version the container allows.
    CKErrorCodeIncompatibleVersion = 18,
    /// A unique constraint was violated.
    CKErrorCodeConstraintViolation = 19,
    /// The operation was cancelled.
    CKErrorCodeOperationCancelled = 20,
    /// The change token is too old: reset it to nil and fetch everything again.
    CKErrorCodeChangeTokenExpired = 21,
    /// Not applied because another item of the same atomic zone batch failed.
    CKErrorCodeBatchRequestFailed = 22,
    /// The zone is busy; retry after `CKError.retryAfterSeconds`.
    CKErrorCodeZoneBusy = 23,
    /// The request is not valid in this database.
    CKErrorCodeBadDatabase = 24,
    /// Saving would exceed a storage quota.
    CKErrorCodeQuotaExceeded = 25,
    /// The zone does not exist.
    CKErrorCodeZoneNotFound = 26,
    /// The request is too large: split it in half and retry both halves.
    CKErrorCodeLimitExceeded = 27,
    /// The user deleted the zone from the device's settings.
    CKErrorCodeUserDeletedZone = 28,
    /// A share has too many participants.
    CKErrorCodeTooManyParticipants = 29,
    /// The record or one of its relatives is already shared.
    CKErrorCodeAlreadyShared = 30,
    /// A reference's target does not exist.
    CKErrorCodeReferenceViolation = 31,
    /// A managed account does not allow this request.
    CKErrorCodeManagedAccountRestricted = 32,
    /// The user is not a participant of the share and may need to verify an address.
    CKErrorCodeParticipantMayNeedVerification = 33,
    /// The connection was lost before the response arrived.
    CKErrorCodeServerResponseLost = 34,
    /// An asset cannot be reached.
    CKErrorCodeAssetNotAvailable = 35,
    /// The account is signed in but not ready yet; wait for `.CKAccountChanged`.
    CKErrorCodeAccountTemporarilyUnavailable = 36,
    /// The invitee must accept an earlier invitation first.
    CKErrorCodeParticipantAlreadyInvited = 37,
} CKErrorCode;

/// Whether the device has a usable iCloud account: `CKContainer.accountStatus`'s answer. Like
/// CloudKit's, the enum is not frozen: a `switch` over it ends with `@unknown default`.
typedef enum CSTRATUS_OPEN_ENUM CKAccountStatus : long {
    /// The state could not be determined; try again later.
    CKAccountStatusCouldNotDetermine = 0,
    /// An account is signed in and usable.
    CKAccountStatusAvailable = 1,
    /// Parental controls or device management deny access.
    CKAccountStatusRestricted = 2,
    /// No account is signed in.
    CKAccountStatusNoAccount = 3,
    /// An account is signed in but not ready yet; wait for `.CKAccountChanged`.
    CKAccountStatusTemporarilyUnavailable = 4,
} CKAccountStatus;

/// Which of a container's databases a `CKDatabase` is; Swift code spells it `CKDatabase.Scope`.
/// Like CloudKit's, the enum is not frozen: a `switch` over it ends with `@unknown default`.
typedef enum CSTRATUS_OPEN_ENUM CKDatabaseScope : long {
    /// The container's public database, shared by every user; readable without an account.
    CKDatabaseScopePublic = 1,
    /// The user's private database; needs an account.
    CKDatabaseScopePrivate = 2,
    /// The databases of other users' shares the user joined; empty in this release.
    CKDatabaseScopeShared = 3,
} CKDatabaseScope;

/// What happens to a record when the record its reference points at is deleted; Swift code
/// spells it `CKRecord.ReferenceAction`. Like CloudKit's, the enum is not frozen.
typedef enum CSTRATUS_OPEN_ENUM CKReferenceAction : unsigned long {
    /// Nothing: the reference dangles.
    CKReferenceActionNone = 0,
    /// The record holding the reference is deleted with its target, transitively.
    CKReferenceActionDeleteSelf = 1,
} CKReferenceAction;

/// How a save treats the server's copy of a record; Swift code usually spells it
/// `CKModifyRecordsOperation.RecordSavePolicy`. Like CloudKit's, the enum is not frozen.
typedef enum CSTRATUS_OPEN_ENUM CKRecordSavePolicy : long {
    /// Save only if the server's change tag is the one the record carries (the default).
    CKRecordSaveIfServerRecordUnchanged = 0,
    /// Overwrite the changed keys, whatever the server has.
    CKRecordSaveChangedKeys = 1,
    /// Overwrite every key the record has, whatever the server has.
    CKRecordSaveAllKeys = 2,
} CKRecordSavePolicy;

/// How much data an operation group expects to transfer; Swift code spells it
/// `CKOperationGroup.TransferSize`. Like CloudKit's, the enum is not frozen.
typedef enum CSTRATUS_OPEN_ENUM CKOperationGroupTransferSize : long {
    /// Unknown.
    CKOperationGroupTransferSizeUnknown = 0,
    /// Less than 1 MB.
    CKOperationGroupTransferSizeKilobytes = 1,
    /// 1 to 10 MB.
    CKOperationGroupTransferSizeMegabytes = 2,
    /// 10 to 100 MB.
    CKOperationGroupTransferSizeTensOfMegabytes = 3,
    /// 100 MB to 1 GB.
    CKOperationGroupTransferSizeHundredsOfMegabytes = 4,
    /// 1 to 10 GB.
    CKOperationGroupTransferSizeGigabytes = 5,
    /// 10 to 100 GB.
    CKOperationGroupTransferSizeTensOfGigabytes = 6,
    /// 100 GB to 1 TB.
    CKOperationGroupTransferSizeHundredsOfGigabytes = 7,
} CKOperationGroupTransferSize;

/// What kind of change a `CKNotification` reports; Swift code spells it
/// `CKNotification.NotificationType`. Like CloudKit's, the enum is not frozen: a `switch` over it
/// ends with `@unknown default`.
typedef enum CSTRATUS_OPEN_ENUM CKNotificationType : long {
    /// From a `CKQuerySubscription`: a `CKQueryNotification`.
    CKNotificationTypeQuery = 1,
    /// From a `CKRecordZoneSubscription`: a `CKRecordZoneNotification`.
    CKNotificationTypeRecordZone = 2,
    /// A notification the app marked read earlier, as the notification collection returns it.
    CKNotificationTypeReadNotification = 3,
    /// From a `CKDatabaseSubscription`: a `CKDatabaseNotification`.
    CKNotificationTypeDatabase = 4,
} CKNotificationType;

/// Which change made a query subscription fire; Swift code spells it
/// `CKQueryNotification.Reason`. Like CloudKit's, the enum is not frozen.
typedef enum CSTRATUS_OPEN_ENUM CKQueryNotificationReason : long {
    /// A record that matches the predicate was created.
    CKQueryNotificationReasonRecordCreated = 1,
    /// A record that matches the predicate after the change was updated.
    CKQueryNotificationReasonRecordUpdated = 2,
    /// A record that matched the predicate was deleted.
    CKQueryNotificationReasonRecordDeleted = 3,
} CKQueryNotificationReason;

/// Why a zone went away, as database changes report it; Swift code spells it
/// `CKDatabase.DatabaseChange.Deletion.Reason`. Like CloudKit's (a resilient Swift enum), it is
/// not frozen: a `switch` over it ends with `@unknown default`.
typedef enum CSTRATUS_OPEN_ENUM CKDatabaseChangeDeletionReason : long {
    /// The app deleted the zone.
    CKDatabaseChangeDeletionReasonDeleted = 0,
    /// The user deleted the app's data in iCloud settings: do not upload it again.
    CKDatabaseChangeDeletionReasonPurged = 1,
    /// The user reset their encrypted data: create the zone again and upload.
    CKDatabaseChangeDeletionReasonEncryptedDataReset = 2,
} CKDatabaseChangeDeletionReason;

/// Whether a share participant has accepted; Swift code spells it
/// `CKShare.ParticipantAcceptanceStatus`. Like CloudKit's, the enum is not frozen: a `switch`
/// over it ends with `@unknown default`.
typedef enum CSTRATUS_OPEN_ENUM CKShareParticipantAcceptanceStatus : long {
    /// Not known.
    CKShareParticipantAcceptanceStatusUnknown = 0,
    /// Invited, not accepted yet.
    CKShareParticipantAcceptanceStatusPending = 1,
    /// Accepted: the shared records are in the participant's shared database.
    CKShareParticipantAcceptanceStatusAccepted = 2,
    /// No longer part of the share.
    CKShareParticipantAcceptanceStatusRemoved = 3,
} CKShareParticipantAcceptanceStatus;

/// What a share participant, or anyone with a share's URL, may do with the shared records;
/// Swift code spells it `CKShare.ParticipantPermission`. Like CloudKit's, the enum is not frozen.
typedef enum CSTRATUS_OPEN_ENUM CKShareParticipantPermission : long {
    /// Not known.
    CKShareParticipantPermissionUnknown = 0,
    /// No access: as a share's public permission, only invited users may join.
    CKShareParticipantPermissionNone = 1,
    /// May read the shared records.
    CKShareParticipantPermissionReadOnly = 2,
    /// May read, change, create and delete the shared records.
    CKShareParticipantPermissionReadWrite = 3,
} CKShareParticipantPermission;

/// A share participant's part in the share; Swift code spells it `CKShare.ParticipantRole`.
/// CloudKit defines no case with raw value 2. Like CloudKit's, the enum is not frozen.
typedef enum CSTRATUS_OPEN_ENUM CKShareParticipantRole : long {
    /// Not known.
    CKShareParticipantRoleUnknown = 0,
    /// The user who shared the records.
    CKShareParticipantRoleOwner = 1,
    /// A user the owner added to the share.
    CKShareParticipantRolePrivateUser = 3,
    /// A user who joined a share open to anyone with its URL.
    CKShareParticipantRolePublicUser = 4,
} CKShareParticipantRole;

/// The iOS 10 name of a share participant's part in the share, replaced by
/// `CKShareParticipantRole` (same raw values); Swift code spells it `CKShare.ParticipantType`.
/// Like CloudKit's, the enum is not frozen.
typedef enum CSTRATUS_OPEN_ENUM CKShareParticipantType : long {
    /// Not known.
    CKShareParticipantTypeUnknown = 0,
    /// The user who shared the records.
    CKShareParticipantTypeOwner = 1,
    /// A user the owner added to the share.
    CKShareParticipantTypePrivateUser = 3,
    /// A user who joined a share open to anyone with its URL.
    CKShareParticipantTypePublicUser = 4,
} CKShareParticipantType;

#endif
