/// A failure reported across the client/server boundary, for a whole request or for one item.
///
/// The client turns it into a `CKError` with the same code. Its codes are CloudKit's
/// (`CKError.Code`, same names and raw values), so nothing is lost between the two.
public struct WireError: Error, Hashable, Sendable {
    /// What went wrong, with `CKError.Code`'s names and raw values.
    public enum Code: Int, Hashable, Sendable, CaseIterable {
        /// A bug or unexpected state in the server.
        case internalError = 1
        /// Some items of a batch failed; only ever a whole-request summary.
        case partialFailure = 2
        /// The network is not available.
        case networkUnavailable = 3
        /// The network is up but the server could not be reached.
        case networkFailure = 4
        /// The container is unknown or not authorised.
        case badContainer = 5
        /// The service is down; retry after the given delay.
        case serviceUnavailable = 6
        /// The client sends too many requests; retry after the given delay.
        case requestRateLimited = 7
        /// The application lacks an entitlement.
        case missingEntitlement = 8
        /// There is no usable iCloud account.
        case notAuthenticated = 9
        /// The user may not do this.
        case permissionFailure = 10
        /// The item does not exist.
        case unknownItem = 11
        /// The request was malformed.
        case invalidArguments = 12
        /// Deprecated by CloudKit; never returned.
        case resultsTruncated = 13
        /// The record changed on the server, or a new record's ID already exists.
        case serverRecordChanged = 14
        /// The server refused the request.
        case serverRejectedRequest = 15
        /// An asset's local file does not exist.
        case assetFileNotFound = 16
        /// An asset's file changed while it was being uploaded.
        case assetFileModified = 17
        /// The client is older than the oldest version the container allows.
        case incompatibleVersion = 18
        /// A unique constraint was violated.
        case constraintViolation = 19
        /// The operation was cancelled.
        case operationCancelled = 20
        /// The change token is older than the server's history.
        case changeTokenExpired = 21
        /// Not applied because another item of the same atomic zone batch failed.
        case batchRequestFailed = 22
        /// The zone is busy; retry after the given delay.
        case zoneBusy = 23
        /// The request is not valid in this database.
        case badDatabase = 24
        /// A storage quota would be exceeded.
        case quotaExceeded = 25
        /// The zone does not exist.
        case zoneNotFound = 26
        /// The request is too large.
        case limitExceeded = 27
        /// The user deleted the zone from the device's settings.
        case userDeletedZone = 28
        /// A share has too many participants.
        case tooManyParticipants = 29
        /// The record is already shared.
        case alreadyShared = 30
        /// A reference's target does not exist.
        case referenceViolation = 31
        /// A managed account does not allow this.
        case managedAccountRestricted = 32
        /// The user is not a participant of the share and may need to verify an address.
        case participantMayNeedVerification = 33
        /// The connection was lost before the response arrived.
        case serverResponseLost = 34
        /// An asset cannot be reached.
        case assetNotAvailable = 35
        /// The account is signed in but not ready yet.
        case accountTemporarilyUnavailable = 36
        /// The invitee must accept an earlier invitation first.
        case participantAlreadyInvited = 37
    }

    /// What went wrong.
    public var code: Code
    /// A message a developer can act on, naming the item, field or limit at fault.
    public var message: String
    /// Seconds to wait before retrying, when the server asks for a delay.
    public var retryAfter: Double?
    /// The server's current copy of the record, with ``Code/serverRecordChanged``.
    public var serverRecord: WireRecord?

    /// Creates an error.
    public init(_ code: Code, _ message: String, retryAfter: Double? = nil, serverRecord: WireRecord? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.serverRecord = serverRecord
    }
}
