import Foundation

/// An error as CloudKit Web Services writes it: `{serverErrorCode, reason, retryAfter}`, the
/// code one of CKWS's (`ACCESS_DENIED`, `BAD_REQUEST`, `CONFLICT`, …), plus the Stratus
/// extensions `ckErrorCode` (the exact `CKError.Code` raw value, which a Stratus peer reads
/// first), `serverRecord` (with `serverRecordChanged`, so a conflict needs no second round trip)
/// and `userDidResetEncryptedData`.
///
/// CKWS codes map to `CKError` codes as the reference's table says; a code CKWS does not have
/// goes out as the nearest one (`BAD_REQUEST` for argument-like codes, `TRY_AGAIN_LATER` for
/// transient ones, `ACCESS_DENIED` for permission-like ones) beside its exact `ckErrorCode`.
extension WireError: Codable {
    private enum CodingKeys: String, CodingKey {
        case serverErrorCode, reason, retryAfter, ckErrorCode, serverRecord, userDidResetEncryptedData
    }

    /// The CKWS `serverErrorCode` `code` goes out as.
    public static func serverErrorCode(for code: CKErrorCode) -> String {
        switch code {
        case .permissionFailure, .managedAccountRestricted, .missingEntitlement, .badContainer, .participantMayNeedVerification: "ACCESS_DENIED"
        case .batchRequestFailed: "ATOMIC_ERROR"
        case .notAuthenticated: "AUTHENTICATION_REQUIRED"
        case .serverRecordChanged: "CONFLICT"
        case .internalError: "INTERNAL_ERROR"
        case .unknownItem: "NOT_FOUND"
        case .quotaExceeded: "QUOTA_EXCEEDED"
        case .requestRateLimited: "THROTTLED"
        case .serviceUnavailable, .zoneBusy, .accountTemporarilyUnavailable, .networkFailure, .networkUnavailable, .serverResponseLost: "TRY_AGAIN_LATER"
        case .referenceViolation: "VALIDATING_REFERENCE_ERROR"
        case .zoneNotFound, .userDeletedZone: "ZONE_NOT_FOUND"
        case .constraintViolation: "UNIQUE_FIELD_ERROR"
        default: "BAD_REQUEST"
        }
    }

    /// The `CKError` code a CKWS `serverErrorCode` means, when the error carries no
    /// `ckErrorCode`; nil for a code CKWS does not have.
    public static func code(forServerErrorCode name: String, retryAfter: Double?) -> CKErrorCode? {
        switch name {
        case "ACCESS_DENIED": .permissionFailure
        case "ATOMIC_ERROR": .batchRequestFailed
        case "AUTHENTICATION_FAILED", "AUTHENTICATION_REQUIRED": .notAuthenticated
        case "BAD_REQUEST": .invalidArguments
        case "CONFLICT", "EXISTS": .serverRecordChanged
        case "INTERNAL_ERROR": retryAfter == nil ? .internalError : .serviceUnavailable
        case "NOT_FOUND": .unknownItem
        case "QUOTA_EXCEEDED": .quotaExceeded
        case "THROTTLED": .requestRateLimited
        case "TRY_AGAIN_LATER": .serviceUnavailable
        case "VALIDATING_REFERENCE_ERROR": .referenceViolation
        case "ZONE_NOT_FOUND": .zoneNotFound
        case "UNIQUE_FIELD_ERROR": .constraintViolation
        default: nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.serverErrorCode(for: code), forKey: .serverErrorCode)
        try container.encode(message, forKey: .reason)
        try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
        try container.encode(code.rawValue, forKey: .ckErrorCode)
        try container.encodeIfPresent(serverRecord, forKey: .serverRecord)
        if userDidResetEncryptedData { try container.encode(true, forKey: .userDidResetEncryptedData) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .serverErrorCode)
        let retryAfter = try container.decodeIfPresent(Double.self, forKey: .retryAfter)
        if let retryAfter, !(retryAfter.isFinite && retryAfter >= 0) {
            throw DecodingError.invalid(CodingKeys.retryAfter, in: container, "\(retryAfter) is not a number of seconds")
        }
        let exact = try container.decodeIfPresent(Int.self, forKey: .ckErrorCode).flatMap { raw in
            CKErrorCode.allCases.first { $0.rawValue == raw }
        }
        guard let code = exact ?? Self.code(forServerErrorCode: name, retryAfter: retryAfter) else {
            throw DecodingError.invalid(CodingKeys.serverErrorCode, in: container, "'\(name)' is not a CloudKit Web Services error code")
        }
        self.init(
            code,
            try container.decodeIfPresent(String.self, forKey: .reason) ?? name,
            retryAfter: retryAfter,
            serverRecord: try container.decodeIfPresent(WireRecord.self, forKey: .serverRecord),
            userDidResetEncryptedData: try container.decodeIfPresent(Bool.self, forKey: .userDidResetEncryptedData) ?? false
        )
    }
}
