@_exported import CStratus

// `CKErrorCode` itself is declared in C (CStratus), so that Swift imports it as it imports
// CloudKit's: a non-frozen enum, whose `switch`es end with `@unknown default`. Here it gets
// what Swift code expects of it besides.

extension CKErrorCode: @retroactive CaseIterable {
    /// Every code CloudKit defines, in raw-value order.
    public static let allCases: [CKErrorCode] = [
        .internalError,
        .partialFailure,
        .networkUnavailable,
        .networkFailure,
        .badContainer,
        .serviceUnavailable,
        .requestRateLimited,
        .missingEntitlement,
        .notAuthenticated,
        .permissionFailure,
        .unknownItem,
        .invalidArguments,
        .resultsTruncated,
        .serverRecordChanged,
        .serverRejectedRequest,
        .assetFileNotFound,
        .assetFileModified,
        .incompatibleVersion,
        .constraintViolation,
        .operationCancelled,
        .changeTokenExpired,
        .batchRequestFailed,
        .zoneBusy,
        .badDatabase,
        .quotaExceeded,
        .zoneNotFound,
        .limitExceeded,
        .userDeletedZone,
        .tooManyParticipants,
        .alreadyShared,
        .referenceViolation,
        .managedAccountRestricted,
        .participantMayNeedVerification,
        .serverResponseLost,
        .assetNotAvailable,
        .accountTemporarilyUnavailable,
        .participantAlreadyInvited,
    ]
}

extension CKErrorCode: @retroactive CustomStringConvertible {
    /// The code's Swift name, such as `serverRecordChanged`; `CKErrorCode(rawValue: 99)` for a
    /// raw value CloudKit does not define.
    public var description: String {
        switch self {
        case .internalError: "internalError"
        case .partialFailure: "partialFailure"
        case .networkUnavailable: "networkUnavailable"
        case .networkFailure: "networkFailure"
        case .badContainer: "badContainer"
        case .serviceUnavailable: "serviceUnavailable"
        case .requestRateLimited: "requestRateLimited"
        case .missingEntitlement: "missingEntitlement"
        case .notAuthenticated: "notAuthenticated"
        case .permissionFailure: "permissionFailure"
        case .unknownItem: "unknownItem"
        case .invalidArguments: "invalidArguments"
        case .resultsTruncated: "resultsTruncated"
        case .serverRecordChanged: "serverRecordChanged"
        case .serverRejectedRequest: "serverRejectedRequest"
        case .assetFileNotFound: "assetFileNotFound"
        case .assetFileModified: "assetFileModified"
        case .incompatibleVersion: "incompatibleVersion"
        case .constraintViolation: "constraintViolation"
        case .operationCancelled: "operationCancelled"
        case .changeTokenExpired: "changeTokenExpired"
        case .batchRequestFailed: "batchRequestFailed"
        case .zoneBusy: "zoneBusy"
        case .badDatabase: "badDatabase"
        case .quotaExceeded: "quotaExceeded"
        case .zoneNotFound: "zoneNotFound"
        case .limitExceeded: "limitExceeded"
        case .userDeletedZone: "userDeletedZone"
        case .tooManyParticipants: "tooManyParticipants"
        case .alreadyShared: "alreadyShared"
        case .referenceViolation: "referenceViolation"
        case .managedAccountRestricted: "managedAccountRestricted"
        case .participantMayNeedVerification: "participantMayNeedVerification"
        case .serverResponseLost: "serverResponseLost"
        case .assetNotAvailable: "assetNotAvailable"
        case .accountTemporarilyUnavailable: "accountTemporarilyUnavailable"
        case .participantAlreadyInvited: "participantAlreadyInvited"
        @unknown default: "CKErrorCode(rawValue: \(rawValue))"
        }
    }
}
