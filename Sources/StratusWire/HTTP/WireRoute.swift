import Foundation

/// Where one ``CloudService`` call goes over HTTP: CloudKit Web Services' method and path where
/// CKWS has the endpoint, and a Stratus extension in the same style where it has none. The
/// HTTP transport builds its URLs from these routes and `stratus-server` dispatches by them, so
/// the two cannot disagree.
///
/// A database route's path is `/database/1/{container}/{environment}/{database}/{subpath}`; a
/// device route's (CKWS's `tokens/*`, and Stratus's sessions and pushes) is
/// `/device/1/{container}/{environment}/{subpath}`, with no database segment. Endpoints that
/// are not about one database put `public` in the database segment, as CKWS's `users/*`,
/// `records/resolve` and `records/accept` do (``fixedDatabase``).
///
/// Two calls have no route: the upload and the download of an asset's bytes go to the URLs the
/// service itself issued (`assets/upload`'s tokens, an asset's `downloadURL`), as in CKWS.
///
/// The body of each route is the call's request in ``WireJSON``, its context apart (the path
/// and the credentials carry it); a call whose request is its context alone (`zones/list`,
/// `subscriptions/list`, `users/current`, …) has no body and is a `GET` where CKWS makes it one.
public struct WireRoute: Hashable, Sendable, CustomStringConvertible {
    /// The CKWS service a route belongs to: the first segment of its path.
    public enum Service: String, Hashable, Sendable, CaseIterable {
        /// `/database/1/…`: the records, zones, changes, subscriptions, users and shares of a
        /// container's databases.
        case database
        /// `/device/1/…`: what belongs to a device rather than a database (push tokens,
        /// sessions).
        case device
    }

    /// The HTTP method of a route.
    public enum Method: String, Hashable, Sendable, CaseIterable {
        /// `GET`: a call whose request is its context alone.
        case get = "GET"
        /// `POST`, with the request's JSON as the body.
        case post = "POST"
    }

    /// The service the route's path starts with.
    public let service: Service
    /// The HTTP method.
    public let method: Method
    /// The path after the database segment (or, for a device route, after the environment),
    /// such as `records/lookup`.
    public let subpath: String
    /// The database segment the route always uses, whatever database the request names; nil
    /// when the request's database goes there. Always nil for a device route.
    public let fixedDatabase: WireDatabaseScope?
    /// Whether CloudKit Web Services has the endpoint; false for a Stratus extension.
    public let isCloudKitWebServices: Bool

    private init(_ service: Service, _ method: Method, _ subpath: String, fixedDatabase: WireDatabaseScope? = nil, ckws: Bool = true) {
        self.service = service
        self.method = method
        self.subpath = subpath
        self.fixedDatabase = fixedDatabase
        self.isCloudKitWebServices = ckws
    }

    /// The method and the route's path pattern, such as
    /// `POST /database/1/{container}/{environment}/{database}/records/lookup`.
    public var description: String {
        switch service {
        case .database:
            "\(method.rawValue) /database/1/{container}/{environment}/\(fixedDatabase?.name ?? "{database}")/\(subpath)"
        case .device:
            "\(method.rawValue) /device/1/{container}/{environment}/\(subpath)"
        }
    }

    /// The URL path of this route for a request to `container`'s `database` in `environment`,
    /// each segment percent-encoded.
    public func path(container: String, environment: WireEnvironment, database: WireDatabaseScope) -> String {
        let prefix = "/\(service.rawValue)/1/\(Self.percentEncoded(container))/\(environment.rawValue)"
        switch service {
        case .database: return "\(prefix)/\((fixedDatabase ?? database).name)/\(subpath)"
        case .device: return "\(prefix)/\(subpath)"
        }
    }

    private static func percentEncoded(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? segment
    }

    /// The characters a path segment keeps as they are: RFC 3986's unreserved characters.
    private static let segmentCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
}

/// A container's environment, the path segment after the container: CKWS's `development` and
/// `production`.
public enum WireEnvironment: String, Hashable, Sendable, CaseIterable {
    /// The schema may still change; record types and fields are created as they are saved.
    case development
    /// The deployed schema.
    case production
}

// MARK: - The routes

extension WireRoute {
    /// `session/open` (device): signs a device in (``CloudService/openSession(_:)``).
    public static let openSession = WireRoute(.device, .post, "session/open", ckws: false)
    /// `session/close` (device): forgets a device (``CloudService/closeSession(deviceID:)``).
    public static let closeSession = WireRoute(.device, .post, "session/close", ckws: false)
    /// `pushes/register` (device; CKWS's `tokens/register`): registers or unregisters a device
    /// for pushes (``CloudService/registerForPushes(_:registered:)``).
    public static let registerForPushes = WireRoute(.device, .post, "pushes/register", ckws: false)
    /// `pushes/poll` (device; after CKWS's web courier): waits for the device's next push
    /// (``CloudService/pollPushes(_:)``).
    public static let pollPushes = WireRoute(.device, .post, "pushes/poll", ckws: false)

    /// `users/accountStatus`: the device's account status (``CloudService/accountStatus(_:)``;
    /// a CKWS client reads it from `users/caller`).
    public static let accountStatus = WireRoute(.database, .get, "users/accountStatus", fixedDatabase: .public, ckws: false)
    /// `users/current`: the account's user record name (``CloudService/currentUser(_:)``).
    public static let currentUser = WireRoute(.database, .get, "users/current", fixedDatabase: .public)
    /// `users/discover` (`POST`): users by lookup info (``CloudService/lookupUsers(_:)``).
    public static let lookupUsers = WireRoute(.database, .post, "users/discover", fixedDatabase: .public)
    /// `users/lookup/contacts`: the account's discoverable contacts
    /// (``CloudService/lookupContacts(_:)``).
    public static let lookupContacts = WireRoute(.database, .post, "users/lookup/contacts", fixedDatabase: .public)
    /// `users/participants`: new share participants by lookup info
    /// (``CloudService/lookupShareParticipants(_:)``).
    public static let lookupShareParticipants = WireRoute(.database, .post, "users/participants", fixedDatabase: .public, ckws: false)
    /// `users/permissions/status`: the account's status for an application permission
    /// (``CloudService/applicationPermissionStatus(_:)``).
    public static let applicationPermissionStatus = WireRoute(.database, .post, "users/permissions/status", fixedDatabase: .public, ckws: false)
    /// `users/permissions/request`: asks for an application permission
    /// (``CloudService/requestApplicationPermission(_:)``).
    public static let requestApplicationPermission = WireRoute(.database, .post, "users/permissions/request", fixedDatabase: .public, ckws: false)

    /// `records/lookup` (``CloudService/lookupRecords(_:)``).
    public static let lookupRecords = WireRoute(.database, .post, "records/lookup")
    /// `records/modify` (``CloudService/modifyRecords(_:)``).
    public static let modifyRecords = WireRoute(.database, .post, "records/modify")
    /// `records/query` (``CloudService/queryRecords(_:)``).
    public static let queryRecords = WireRoute(.database, .post, "records/query")
    /// `records/changes`: one zone's changes (``CloudService/recordChanges(_:)``).
    public static let recordChanges = WireRoute(.database, .post, "records/changes")
    /// `assets/upload`: upload URLs for assets' bytes (``CloudService/uploadAssets(_:)``).
    public static let uploadAssets = WireRoute(.database, .post, "assets/upload")
    /// `records/resolve`: share metadata by share URL (``CloudService/lookupShareMetadata(_:)``).
    public static let lookupShareMetadata = WireRoute(.database, .post, "records/resolve", fixedDatabase: .public)
    /// `records/accept`: accepts shares (``CloudService/acceptShares(_:)``).
    public static let acceptShares = WireRoute(.database, .post, "records/accept", fixedDatabase: .public)

    /// `zones/list` (``CloudService/listZones(_:)``).
    public static let listZones = WireRoute(.database, .get, "zones/list")
    /// `zones/lookup` (``CloudService/lookupZones(_:)``).
    public static let lookupZones = WireRoute(.database, .post, "zones/lookup")
    /// `zones/modify` (``CloudService/modifyZones(_:)``).
    public static let modifyZones = WireRoute(.database, .post, "zones/modify")
    /// `changes/database`: which zones changed (``CloudService/databaseChanges(_:)``).
    public static let databaseChanges = WireRoute(.database, .post, "changes/database")

    /// `subscriptions/list` (``CloudService/listSubscriptions(_:)``).
    public static let listSubscriptions = WireRoute(.database, .get, "subscriptions/list")
    /// `subscriptions/lookup` (``CloudService/lookupSubscriptions(_:)``).
    public static let lookupSubscriptions = WireRoute(.database, .post, "subscriptions/lookup")
    /// `subscriptions/modify` (``CloudService/modifySubscriptions(_:)``).
    public static let modifySubscriptions = WireRoute(.database, .post, "subscriptions/modify")

    /// `notifications/changes`: the account's notification collection since a token
    /// (``CloudService/notificationChanges(_:)``).
    public static let notificationChanges = WireRoute(.database, .post, "notifications/changes", fixedDatabase: .public, ckws: false)
    /// `notifications/markRead` (``CloudService/markNotificationsRead(_:)``).
    public static let markNotificationsRead = WireRoute(.database, .post, "notifications/markRead", fixedDatabase: .public, ckws: false)
    /// `notifications/badge` (``CloudService/modifyBadge(_:)``).
    public static let modifyBadge = WireRoute(.database, .post, "notifications/badge", fixedDatabase: .public, ckws: false)

    /// Every route, one per ``CloudService`` call that crosses as a request of its own.
    public static let all: [WireRoute] = [
        openSession, closeSession, registerForPushes, pollPushes,
        accountStatus, currentUser, lookupUsers, lookupContacts, lookupShareParticipants,
        applicationPermissionStatus, requestApplicationPermission,
        lookupRecords, modifyRecords, queryRecords, recordChanges, uploadAssets, lookupShareMetadata, acceptShares,
        listZones, lookupZones, modifyZones, databaseChanges,
        listSubscriptions, lookupSubscriptions, modifySubscriptions,
        notificationChanges, markNotificationsRead, modifyBadge,
    ]
}
