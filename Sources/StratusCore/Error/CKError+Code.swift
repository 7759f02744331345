import StratusWire

extension CKError {
    /// What went wrong: CloudKit's `CKError.Code`. See ``CKErrorCode``.
    public typealias Code = CKErrorCode
}

extension CKErrorCode {
    /// The code's name as CloudKit's logs print it, such as `Server Record Changed`.
    public var title: String {
        switch self {
        case .internalError: "Internal Error"
        case .partialFailure: "Partial Failure"
        case .networkUnavailable: "Network Unavailable"
        case .networkFailure: "Network Failure"
        case .badContainer: "Bad Container"
        case .serviceUnavailable: "Service Unavailable"
        case .requestRateLimited: "Request Rate Limited"
        case .missingEntitlement: "Missing Entitlement"
        case .notAuthenticated: "Not Authenticated"
        case .permissionFailure: "Permission Failure"
        case .unknownItem: "Unknown Item"
        case .invalidArguments: "Invalid Arguments"
        case .resultsTruncated: "Results Truncated"
        case .serverRecordChanged: "Server Record Changed"
        case .serverRejectedRequest: "Server Rejected Request"
        case .assetFileNotFound: "Asset File Not Found"
        case .assetFileModified: "Asset File Modified"
        case .incompatibleVersion: "Incompatible Version"
        case .constraintViolation: "Constraint Violation"
        case .operationCancelled: "Operation Cancelled"
        case .changeTokenExpired: "Change Token Expired"
        case .batchRequestFailed: "Batch Request Failed"
        case .zoneBusy: "Zone Busy"
        case .badDatabase: "Bad Database"
        case .quotaExceeded: "Quota Exceeded"
        case .zoneNotFound: "Zone Not Found"
        case .limitExceeded: "Limit Exceeded"
        case .userDeletedZone: "User Deleted Zone"
        case .tooManyParticipants: "Too Many Participants"
        case .alreadyShared: "Already Shared"
        case .referenceViolation: "Reference Violation"
        case .managedAccountRestricted: "Managed Account Restricted"
        case .participantMayNeedVerification: "Participant May Need Verification"
        case .serverResponseLost: "Server Response Lost"
        case .assetNotAvailable: "Asset Not Available"
        case .accountTemporarilyUnavailable: "Account Temporarily Unavailable"
        case .participantAlreadyInvited: "Participant Already Invited"
        @unknown default: "Error \(rawValue)"
        }
    }

    /// The message used when an error carries none of its own.
    package var defaultMessage: String {
        switch self {
        case .internalError: "A bug or unexpected state in CloudKit's emulation; report it."
        case .partialFailure: "Some items failed; see partialErrorsByItemID for each item's error."
        case .networkUnavailable: "The network is not available; retry once it is."
        case .networkFailure: "The network is up but the server could not be reached; retry later."
        case .badContainer: "The container is unknown or not authorised for this app."
        case .serviceUnavailable: "The service is unavailable; retry after retryAfterSeconds."
        case .requestRateLimited: "Too many requests; wait retryAfterSeconds before sending more."
        case .missingEntitlement: "The app lacks the entitlement this needs."
        case .notAuthenticated: "No usable iCloud account; sign in and retry."
        case .permissionFailure: "The user does not have permission for this."
        case .unknownItem: "The item does not exist."
        case .invalidArguments: "The request was malformed."
        case .resultsTruncated: "Results were truncated (never returned since iOS 10)."
        case .serverRecordChanged: "The record changed on the server; merge into serverRecord and save again."
        case .serverRejectedRequest: "The server rejected the request."
        case .assetFileNotFound: "An asset's file does not exist."
        case .assetFileModified: "An asset's file changed while it was being saved; retry."
        case .incompatibleVersion: "This app version is older than the oldest the container allows."
        case .constraintViolation: "A unique constraint was violated."
        case .operationCancelled: "The operation was cancelled."
        case .changeTokenExpired: "The change token expired; discard cached data and fetch again with a nil token."
        case .batchRequestFailed: "Not applied because another item of the same atomic zone batch failed."
        case .zoneBusy: "The zone is busy; retry after retryAfterSeconds."
        case .badDatabase: "This request is not valid in this database."
        case .quotaExceeded: "Saving would exceed the storage quota."
        case .zoneNotFound: "The zone does not exist; create it first."
        case .limitExceeded: "The request is too large; split it in half and retry both halves."
        case .userDeletedZone: "The user deleted this zone; delete local data and do not upload it again."
        case .tooManyParticipants: "The share has too many participants."
        case .alreadyShared: "The record is already in a share."
        case .referenceViolation: "A reference's target does not exist."
        case .managedAccountRestricted: "The managed account does not allow this."
        case .participantMayNeedVerification: "The user is not a participant; open the share URL to verify."
        case .serverResponseLost: "The response was lost; retry if the request is idempotent."
        case .assetNotAvailable: "The asset cannot be reached."
        case .accountTemporarilyUnavailable: "The account is not ready yet; wait for CKAccountChanged and retry."
        case .participantAlreadyInvited: "The invitee must accept the earlier invitation first."
        @unknown default: "CloudKit error \(rawValue)."
        }
    }
}

// MARK: - Shortcuts

extension CKError {
    /// ``Code/internalError``, for matching as in `catch CKError.internalError`.
    public static var internalError: Code { .internalError }
    /// ``Code/partialFailure``, for matching as in `catch CKError.partialFailure`.
    public static var partialFailure: Code { .partialFailure }
    /// ``Code/networkUnavailable``, for matching as in `catch CKError.networkUnavailable`.
    public static var networkUnavailable: Code { .networkUnavailable }
    /// ``Code/networkFailure``, for matching as in `catch CKError.networkFailure`.
    public static var networkFailure: Code { .networkFailure }
    /// ``Code/badContainer``, for matching as in `catch CKError.badContainer`.
    public static var badContainer: Code { .badContainer }
    /// ``Code/serviceUnavailable``, for matching as in `catch CKError.serviceUnavailable`.
    public static var serviceUnavailable: Code { .serviceUnavailable }
    /// ``Code/requestRateLimited``, for matching as in `catch CKError.requestRateLimited`.
    public static var requestRateLimited: Code { .requestRateLimited }
    /// ``Code/missingEntitlement``, for matching as in `catch CKError.missingEntitlement`.
    public static var missingEntitlement: Code { .missingEntitlement }
    /// ``Code/notAuthenticated``, for matching as in `catch CKError.notAuthenticated`.
    public static var notAuthenticated: Code { .notAuthenticated }
    /// ``Code/permissionFailure``, for matching as in `catch CKError.permissionFailure`.
    public static var permissionFailure: Code { .permissionFailure }
    /// ``Code/unknownItem``, for matching as in `catch CKError.unknownItem`.
    public static var unknownItem: Code { .unknownItem }
    /// ``Code/invalidArguments``, for matching as in `catch CKError.invalidArguments`.
    public static var invalidArguments: Code { .invalidArguments }
    /// ``Code/resultsTruncated``, for matching as in `catch CKError.resultsTruncated`.
    @available(*, deprecated, message: "Will not be returned")
    public static var resultsTruncated: Code { .resultsTruncated }
    /// ``Code/serverRecordChanged``, for matching as in `catch CKError.serverRecordChanged`.
    public static var serverRecordChanged: Code { .serverRecordChanged }
    /// ``Code/serverRejectedRequest``, for matching as in `catch CKError.serverRejectedRequest`.
    public static var serverRejectedRequest: Code { .serverRejectedRequest }
    /// ``Code/assetFileNotFound``, for matching as in `catch CKError.assetFileNotFound`.
    public static var assetFileNotFound: Code { .assetFileNotFound }
    /// ``Code/assetFileModified``, for matching as in `catch CKError.assetFileModified`.
    public static var assetFileModified: Code { .assetFileModified }
    /// ``Code/incompatibleVersion``, for matching as in `catch CKError.incompatibleVersion`.
    public static var incompatibleVersion: Code { .incompatibleVersion }
    /// ``Code/constraintViolation``, for matching as in `catch CKError.constraintViolation`.
    public static var constraintViolation: Code { .constraintViolation }
    /// ``Code/operationCancelled``, for matching as in `catch CKError.operationCancelled`.
    public static var operationCancelled: Code { .operationCancelled }
    /// ``Code/changeTokenExpired``, for matching as in `catch CKError.changeTokenExpired`.
    public static var changeTokenExpired: Code { .changeTokenExpired }
    /// ``Code/batchRequestFailed``, for matching as in `catch CKError.batchRequestFailed`.
    public static var batchRequestFailed: Code { .batchRequestFailed }
    /// ``Code/zoneBusy``, for matching as in `catch CKError.zoneBusy`.
    public static var zoneBusy: Code { .zoneBusy }
    /// ``Code/badDatabase``, for matching as in `catch CKError.badDatabase`.
    public static var badDatabase: Code { .badDatabase }
    /// ``Code/quotaExceeded``, for matching as in `catch CKError.quotaExceeded`.
    public static var quotaExceeded: Code { .quotaExceeded }
    /// ``Code/zoneNotFound``, for matching as in `catch CKError.zoneNotFound`.
    public static var zoneNotFound: Code { .zoneNotFound }
    /// ``Code/limitExceeded``, for matching as in `catch CKError.limitExceeded`.
    public static var limitExceeded: Code { .limitExceeded }
    /// ``Code/userDeletedZone``, for matching as in `catch CKError.userDeletedZone`.
    public static var userDeletedZone: Code { .userDeletedZone }
    /// ``Code/tooManyParticipants``, for matching as in `catch CKError.tooManyParticipants`.
    public static var tooManyParticipants: Code { .tooManyParticipants }
    /// ``Code/alreadyShared``, for matching as in `catch CKError.alreadyShared`.
    public static var alreadyShared: Code { .alreadyShared }
    /// ``Code/referenceViolation``, for matching as in `catch CKError.referenceViolation`.
    public static var referenceViolation: Code { .referenceViolation }
    /// ``Code/managedAccountRestricted``, for matching as in `catch CKError.managedAccountRestricted`.
    public static var managedAccountRestricted: Code { .managedAccountRestricted }
    /// ``Code/participantMayNeedVerification``, for matching as in `catch CKError.participantMayNeedVerification`.
    public static var participantMayNeedVerification: Code { .participantMayNeedVerification }
    /// ``Code/serverResponseLost``, for matching as in `catch CKError.serverResponseLost`.
    public static var serverResponseLost: Code { .serverResponseLost }
    /// ``Code/assetNotAvailable``, for matching as in `catch CKError.assetNotAvailable`.
    public static var assetNotAvailable: Code { .assetNotAvailable }
    /// ``Code/accountTemporarilyUnavailable``, for matching as in `catch CKError.accountTemporarilyUnavailable`.
    public static var accountTemporarilyUnavailable: Code { .accountTemporarilyUnavailable }
    /// ``Code/participantAlreadyInvited``, for matching as in `catch CKError.participantAlreadyInvited`.
    public static var participantAlreadyInvited: Code { .participantAlreadyInvited }
}
