/// The notification collection's changes since a token: what `CKFetchNotificationChangesOperation`
/// asks for. The collection is the requesting account's, in the request's container; a nil
/// token fetches from the beginning of the kept history.
public typealias WireNotificationChangesRequest = WireChangeFeedRequest

/// The answer to a ``WireNotificationChangesRequest``: each notification added or marked read
/// since the token, once, in its latest state, in the order of those changes.
public struct WireNotificationChangesResponse: Sendable {
    /// The notifications: a read one comes as a ``WireNotification/Kind/readNotification``
    /// entry carrying only its ID and container.
    public var notifications: [WireNotification]
    /// The token to fetch from next time.
    public var token: [UInt8]
    /// Whether more notifications wait after these.
    public var moreComing: Bool

    /// Creates a response.
    public init(notifications: [WireNotification], token: [UInt8], moreComing: Bool) {
        self.notifications = notifications
        self.token = token
        self.moreComing = moreComing
    }
}

/// Marking notifications of the requesting account read, on every device: notifications,
/// named by their IDs.
public enum WireMarkNotificationsReadEndpoint: WireItemEndpoint {
    /// A notification's ID.
    public typealias ID = String
    /// A notification now marked read carries nothing more.
    public typealias Value = Void
}

/// Marks notifications of the requesting account read, on every device, by their IDs.
public typealias WireMarkNotificationsReadRequest = WireItemsRequest<WireMarkNotificationsReadEndpoint>

/// The answer to a ``WireMarkNotificationsReadRequest``: one result per ID, in request order,
/// saying whether it is now marked read.
public typealias WireMarkNotificationsReadResponse = WireItemsResponse<WireMarkNotificationsReadEndpoint>

/// Sets the badge the server keeps for the requesting account in the container.
public struct WireModifyBadgeRequest: Sendable {
    /// Who asks.
    public var context: WireRequestContext
    /// The new badge count; 0 clears the badge.
    public var badgeValue: Int

    /// Creates a request.
    public init(context: WireRequestContext, badgeValue: Int) {
        self.context = context
        self.badgeValue = badgeValue
    }
}
