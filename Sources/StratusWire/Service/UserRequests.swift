/// The state of the iCloud account a device is signed in to: `CKAccountStatus`'s raw values.
public enum WireAccountStatus: Int, Hashable, Sendable, CaseIterable {
    /// The state could not be determined.
    case couldNotDetermine = 0
    /// An account is signed in and usable.
    case available = 1
    /// Parental controls or device management deny access.
    case restricted = 2
    /// No account is signed in.
    case noAccount = 3
    /// An account is signed in but not ready yet.
    case temporarilyUnavailable = 4
}

/// The answer to `users/current`: who the device's account is in this container.
public struct WireCurrentUserResponse: Hashable, Sendable {
    /// The user record's name: `_` followed by 32 hexadecimal digits, stable per account and
    /// container.
    public var userRecordName: String

    /// Creates a response.
    public init(userRecordName: String) {
        self.userRecordName = userRecordName
    }
}
