/// The answer to `subscriptions/list`: every subscription the requesting user has in the
/// database.
public struct WireSubscriptionsListResponse: Sendable {
    /// The subscriptions, by the bytes of their IDs.
    public var subscriptions: [WireSubscription]

    /// Creates a list response.
    public init(subscriptions: [WireSubscription]) {
        self.subscriptions = subscriptions
    }
}

/// `subscriptions/lookup`: fetch subscriptions by ID.
public struct WireSubscriptionsLookupRequest: Sendable {
    /// Where the request goes.
    public var context: WireRequestContext
    /// The subscriptions to fetch, in the order results come back.
    public var subscriptionIDs: [String]

    /// Creates a lookup request.
    public init(context: WireRequestContext, subscriptionIDs: [String]) {
        self.context = context
        self.subscriptionIDs = subscriptionIDs
    }
}

/// The answer to a ``WireSubscriptionsLookupRequest``: one result per requested ID, in
/// request order.
public struct WireSubscriptionsLookupResponse: Sendable {
    /// The outcome for each requested subscription.
    public var results: [WireItemResult<String, WireSubscription>]

    /// Creates a lookup response.
    public init(results: [WireItemResult<String, WireSubscription>]) {
        self.results = results
    }
}

/// `subscriptions/modify`: save and delete subscriptions in one request.
public struct WireSubscriptionsModifyRequest: Sendable {
    /// Where the request goes.
    public var context: WireRequestContext
    /// Subscriptions to save; one with the ID of an existing subscription replaces it.
    public var saves: [WireSubscription]
    /// IDs of subscriptions to delete.
    public var deletes: [String]

    /// Creates a modify request.
    public init(context: WireRequestContext, saves: [WireSubscription] = [], deletes: [String] = []) {
        self.context = context
        self.saves = saves
        self.deletes = deletes
    }
}

/// The answer to a ``WireSubscriptionsModifyRequest``: one result per item, in request order.
public struct WireSubscriptionsModifyResponse: Sendable {
    /// For each save, the subscription as the server keeps it.
    public var saveResults: [WireItemResult<String, WireSubscription>]
    /// For each delete, whether it happened.
    public var deleteResults: [WireItemResult<String, Void>]

    /// Creates a modify response.
    public init(saveResults: [WireItemResult<String, WireSubscription>], deleteResults: [WireItemResult<String, Void>]) {
        self.saveResults = saveResults
        self.deleteResults = deleteResults
    }
}
