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

/// The `subscriptions/*` endpoints: subscriptions, named by their IDs.
public enum WireSubscriptionsEndpoint: WireItemEndpoint {
    /// A subscription is named by its ID.
    public typealias ID = String
    /// A found or saved subscription, as the server keeps it.
    public typealias Value = WireSubscription
}

/// `subscriptions/lookup`: fetch subscriptions by ID.
public typealias WireSubscriptionsLookupRequest = WireItemsRequest<WireSubscriptionsEndpoint>

/// The answer to a ``WireSubscriptionsLookupRequest``: one result per requested ID, in
/// request order.
public typealias WireSubscriptionsLookupResponse = WireItemsResponse<WireSubscriptionsEndpoint>

/// `subscriptions/modify`: save and delete subscriptions in one request. A save with the ID of
/// an existing subscription replaces it.
public typealias WireSubscriptionsModifyRequest = WireModifyRequest<WireSubscriptionsEndpoint>

/// The answer to a ``WireSubscriptionsModifyRequest``: one result per item, in request order.
public typealias WireSubscriptionsModifyResponse = WireModifyResponse<WireSubscriptionsEndpoint>
