/// Which database of which container a request addresses.
public enum WireDatabaseScope: Int, Hashable, Sendable, Codable, CaseIterable {
    /// The container's public database, shared by every user.
    case `public` = 1
    /// The user's private database.
    case `private` = 2
    /// The databases of other users' shares that this user joined.
    case shared = 3
}

/// How urgent a request is, as `Foundation.QualityOfService` names it.
public enum WireQualityOfService: Hashable, Sendable, Codable, CaseIterable {
    /// Work the user is waiting on interactively.
    case userInteractive
    /// Work the user asked for and waits on.
    case userInitiated
    /// No explicit urgency: `CKOperation`'s default.
    case `default`
    /// Long-running work the user knows about.
    case utility
    /// Work the user does not see.
    case background
}

/// Everything that identifies a request apart from its payload: where it goes, from which
/// device, and for which operation.
public struct WireRequestContext: Hashable, Sendable {
    /// The container, such as `iCloud.com.example.clowns`.
    public var containerIdentifier: String
    /// The database within the container.
    public var database: WireDatabaseScope
    /// The sending device.
    public var deviceID: String
    /// The session the service opened when the device signed in to its account, naming that
    /// account: the request runs under the account this session belongs to, fixed when the
    /// client made the request, never under whatever account the device has by the time the
    /// request is handled. The service refuses a session that is not the device's current one
    /// with `notAuthenticated`; nil makes the request anonymous, as from a device with no
    /// account.
    public var sessionToken: String?
    /// The `CKOperation.operationID` of the operation that sent the request, if any.
    public var operationID: String?
    /// The quality of service the request was sent with.
    public var qualityOfService: WireQualityOfService

    /// Creates a request context.
    public init(
        containerIdentifier: String,
        database: WireDatabaseScope,
        deviceID: String,
        sessionToken: String? = nil,
        operationID: String? = nil,
        qualityOfService: WireQualityOfService = .default
    ) {
        self.containerIdentifier = containerIdentifier
        self.database = database
        self.deviceID = deviceID
        self.sessionToken = sessionToken
        self.operationID = operationID
        self.qualityOfService = qualityOfService
    }
}
