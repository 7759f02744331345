import StratusWire

/// One request as the server received it, for tests that check what a client sent.
public struct RecordedRequest: Hashable, Sendable {
    /// The endpoint a request called, named after CloudKit Web Services'.
    public enum Endpoint: String, Hashable, Sendable {
        /// `users/current`.
        case currentUser = "users/current"
        /// `records/lookup`.
        case lookupRecords = "records/lookup"
        /// `records/modify`.
        case modifyRecords = "records/modify"
        /// `records/query`.
        case queryRecords = "records/query"
        /// `zones/list`.
        case listZones = "zones/list"
        /// `zones/lookup`.
        case lookupZones = "zones/lookup"
        /// `zones/modify`.
        case modifyZones = "zones/modify"
        /// `records/changes`.
        case recordChanges = "records/changes"
        /// `changes/database`.
        case databaseChanges = "changes/database"
        /// `users/lookup/email`, `users/lookup/phone` and `users/lookup/id`, in one request.
        case lookupUsers = "users/lookup"
        /// `users/lookup/contacts`.
        case lookupContacts = "users/lookup/contacts"
        /// Turning lookup infos into share participants (no CloudKit Web Services counterpart).
        case lookupShareParticipants = "users/lookup/participants"
        /// `records/resolve`: the metadata of shares, by URL.
        case lookupShareMetadata = "records/resolve"
        /// `records/accept`: accepting shares, by URL.
        case acceptShares = "records/accept"
        /// The status of an application permission (no CloudKit Web Services counterpart).
        case applicationPermissionStatus = "users/permissions"
        /// A request for an application permission (no CloudKit Web Services counterpart).
        case requestApplicationPermission = "users/permissions/request"
        /// `subscriptions/list`.
        case listSubscriptions = "subscriptions/list"
        /// `subscriptions/lookup`.
        case lookupSubscriptions = "subscriptions/lookup"
        /// `subscriptions/modify`.
        case modifySubscriptions = "subscriptions/modify"
        /// The notification collection's changes (no CloudKit Web Services counterpart).
        case notificationChanges = "notifications/changes"
        /// Marking notifications read (no CloudKit Web Services counterpart).
        case markNotificationsRead = "notifications/markRead"
        /// Setting the account's badge (no CloudKit Web Services counterpart).
        case modifyBadge = "badge/modify"
        /// `assets/upload`: URLs to upload assets' bytes to.
        case uploadAssets = "assets/upload"
    }

    /// The endpoint called.
    public var endpoint: Endpoint
    /// Where the request went, from which device, for which operation, at which quality of service.
    public var context: WireRequestContext
}
