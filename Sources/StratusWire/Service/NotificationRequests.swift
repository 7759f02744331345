/// The notification collection's changes since a token: what `CKFetchNotificationChangesOperation`
/// asks for.
public struct WireNotificationChangesRequest: Sendable {
    /// Who asks: the collection is the requesting account's, in the request's container.
    public var context: WireRequestContext
    /// The token of an earlier fetch; nil fetches from the beginning of the kept history.
    public var sinceToken: [UInt8]?
    /// The most notifications to return; 0 lets the server choose.
    public var resultsLimit: Int

    /// Creates a request.
    public init(context: WireRequestContext, sinceToken: [UInt8]? = nil, resultsLimit: Int = 0) {
        self.context = context
        self.sinceToken = sinceToken
        self.resultsLimit = resultsLimit
    }
}

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

/// Marks notifications of the requesting account read, on every device.
public struct WireMarkNotificationsReadRequest: Sendable {
    /// Who asks.
    public var context: WireRequestContext
    /// The notifications to mark read, by their IDs.
    public var notificationIDs: [String]

    /// Creates a request.
    public init(context: WireRequestContext, notificationIDs: [String]) {
        self.context = context
        self.notificationIDs = notificationIDs
    }
}

/// The answer to a ``WireMarkNotificationsReadRequest``: one result per ID, in request order.
public struct WireMarkNotificationsReadResponse: Sendable {
    /// For each ID, whether it is now marked read.
    public var results: [WireItemResult<String, Void>]

    /// Creates a response.
    public init(results: [WireItemResult<String, Void>]) {
        self.results = results
    }
}

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
