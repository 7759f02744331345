// Requests and responses of user discovery and application permissions, shaped after CloudKit
// Web Services' `users/discover` and `users/lookup/contacts` endpoints.

/// What one user is looked up by: exactly one of an email address, a phone number or a user
/// record ID (`CKUserIdentity.LookupInfo`'s wire form).
public struct WireUserLookupInfo: Hashable, Sendable {
    /// The email address to look up, if this looks up by email.
    public var emailAddress: String?
    /// The phone number to look up, if this looks up by phone number.
    public var phoneNumber: String?
    /// The user record ID to look up, if this looks up by user record ID. User records live
    /// in the default zone: an ID in another zone names no user.
    public var userRecordID: WireRecordID?

    /// Creates a lookup info; a valid one sets exactly one of the three.
    public init(emailAddress: String? = nil, phoneNumber: String? = nil, userRecordID: WireRecordID? = nil) {
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.userRecordID = userRecordID
    }

    /// Whether exactly one of the three is set, as every lookup must be.
    public var isWellFormed: Bool {
        [emailAddress != nil, phoneNumber != nil, userRecordID != nil].filter { $0 }.count == 1
    }
}

/// A person's name as the server knows it: `PersonNameComponents`' parts that CloudKit
/// returns for a discovered user. Its JSON is CloudKit Web Services' `nameComponents`
/// dictionary (`namePrefix`, `givenName`, `middleName`, `familyName`, `nameSuffix`,
/// `nickname`).
public struct WireNameComponents: Hashable, Sendable, Codable {
    /// A title such as "Dr.".
    public var namePrefix: String?
    /// The given (first) name.
    public var givenName: String?
    /// The middle name.
    public var middleName: String?
    /// The family (last) name.
    public var familyName: String?
    /// A suffix such as "Jr.".
    public var nameSuffix: String?
    /// A nickname.
    public var nickname: String?

    /// Creates a name.
    public init(
        namePrefix: String? = nil,
        givenName: String? = nil,
        middleName: String? = nil,
        familyName: String? = nil,
        nameSuffix: String? = nil,
        nickname: String? = nil
    ) {
        self.namePrefix = namePrefix
        self.givenName = givenName
        self.middleName = middleName
        self.familyName = familyName
        self.nameSuffix = nameSuffix
        self.nickname = nickname
    }
}

/// A discovered user (`CKUserIdentity`'s wire form).
public struct WireUserIdentity: Hashable, Sendable {
    /// The user record name of the user in the request's container.
    public var userRecordName: String?
    /// What the user was found by: the lookup info asked for, or, for a contact, the email
    /// address or phone number of the contact that matched first.
    public var lookupInfo: WireUserLookupInfo?
    /// The user's name, when the user gave one.
    public var nameComponents: WireNameComponents?
    /// The identifiers of the requesting user's contacts that match this user, in the order
    /// of the contact list; empty for lookups.
    public var contactIdentifiers: [String]
    /// Whether the user has an iCloud account: always true for a discovered user.
    public var hasiCloudAccount: Bool

    /// Creates an identity.
    public init(
        userRecordName: String?,
        lookupInfo: WireUserLookupInfo?,
        nameComponents: WireNameComponents?,
        contactIdentifiers: [String] = [],
        hasiCloudAccount: Bool = true
    ) {
        self.userRecordName = userRecordName
        self.lookupInfo = lookupInfo
        self.nameComponents = nameComponents
        self.contactIdentifiers = contactIdentifiers
        self.hasiCloudAccount = hasiCloudAccount
    }
}

/// `users/discover` (`POST`): users, named by lookup infos of any kind in one request (CloudKit
/// Web Services' older `users/lookup/email` and `users/lookup/id` take one kind each).
public enum WireUsersEndpoint: WireItemEndpoint {
    /// A user to look up, by exactly one of email, phone or user record name.
    public typealias ID = WireUserLookupInfo
    /// A discovered user.
    public typealias Value = WireUserIdentity
}

/// `users/discover` (`POST`): the users that the lookup infos name (``WireUsersEndpoint``).
public typealias WireUsersLookupRequest = WireItemsRequest<WireUsersEndpoint>

/// The answer to a ``WireUsersLookupRequest``.
public struct WireUsersLookupResponse: Hashable, Sendable {
    /// One entry per lookup info, in the request's order: the user, or nil when no user who
    /// opted in to discoverability matches.
    public var results: [WireUserIdentity?]

    /// Creates a response.
    public init(results: [WireUserIdentity?]) {
        self.results = results
    }
}

/// The answer to `users/lookup/contacts`: the requesting user's contacts who are discoverable
/// users of the container.
public struct WireUsersContactsResponse: Hashable, Sendable {
    /// One identity per discovered user, in the order their first matching contact has in the
    /// contact list.
    public var identities: [WireUserIdentity]

    /// Creates a response.
    public init(identities: [WireUserIdentity]) {
        self.identities = identities
    }
}

/// Application permissions, as `CKContainer.ApplicationPermissions`' raw bits.
public struct WireApplicationPermissions: OptionSet, Hashable, Sendable {
    /// The bits.
    public var rawValue: UInt

    /// Creates a set from its bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Whether the user's identity may be discovered by others using the container.
    public static let userDiscoverability = WireApplicationPermissions(rawValue: 1 << 0)

    /// Every permission the server knows.
    public static let known: WireApplicationPermissions = [.userDiscoverability]
}

/// The state of an application permission: `CKContainer.ApplicationPermissionStatus`' raw values.
public enum WireApplicationPermissionStatus: Int, Hashable, Sendable, CaseIterable {
    /// The user has not been asked yet.
    case initialState = 0
    /// The status could not be determined or changed.
    case couldNotComplete = 1
    /// The user denied the permission.
    case denied = 2
    /// The user granted the permission.
    case granted = 3
}

/// Reads or requests an application permission of the requesting user in the container.
public struct WireApplicationPermissionRequest: Hashable, Sendable {
    /// Where the request goes and who sends it.
    public var context: WireRequestContext
    /// The permission asked about; the server knows only
    /// ``WireApplicationPermissions/userDiscoverability``.
    public var permission: WireApplicationPermissions

    /// Creates a request.
    public init(context: WireRequestContext, permission: WireApplicationPermissions) {
        self.context = context
        self.permission = permission
    }
}
