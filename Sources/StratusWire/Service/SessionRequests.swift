/// `session/open` (a Stratus extension: CloudKit Web Services signs a user in through a web
/// page and hands the client a `ckWebAuthToken`): signs a device of a container in to an
/// account, or out, and opens the session its requests carry from then on.
public struct WireSessionRequest: Hashable, Sendable {
    /// The container, such as `iCloud.com.example.clowns`.
    public var containerIdentifier: String
    /// The device to sign in or out; nil registers a new device.
    public var deviceID: String?
    /// The account to sign in to; nil signs the device out: its requests are then anonymous,
    /// as from a device with no iCloud account.
    ///
    /// The embedded server trusts the name it is given, as a test's sign-in does; a service in
    /// another process decides who may open a session for an account.
    public var account: String?

    /// Creates a session request.
    public init(containerIdentifier: String, deviceID: String? = nil, account: String?) {
        self.containerIdentifier = containerIdentifier
        self.deviceID = deviceID
        self.account = account
    }
}

/// What a device holds after signing in: its identity, and the session its requests carry.
///
/// The session token is opaque to the client, as CloudKit Web Services' `ckWebAuthToken` is; a
/// request carrying a token that is not the device's current one fails with
/// ``CKErrorCode/notAuthenticated``.
public struct WireSession: Hashable, Sendable {
    /// The identity the service knows the device by.
    public var deviceID: String
    /// The session of the account the device is signed in to; nil when it has none.
    public var sessionToken: String?

    /// Creates a session.
    public init(deviceID: String, sessionToken: String?) {
        self.deviceID = deviceID
        self.sessionToken = sessionToken
    }
}
