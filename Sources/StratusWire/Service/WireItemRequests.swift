// The requests and responses that batch endpoints share: a family of endpoints (`zones/lookup`
// and `zones/modify`, `subscriptions/lookup` and `subscriptions/modify`, …) works on items of
// one kind, named by IDs of one kind, and answers one result per item in request order. Each
// family is a ``WireItemEndpoint``; each endpoint's own name (``WireZonesLookupRequest``, …) is
// an alias of these types for its family.

/// A family of batch endpoints working on items of one kind: what names an item, and what a
/// successful result for it carries. A family is a caseless enum that only names it; its JSON
/// shapes (which differ per family, as CloudKit Web Services' keys do) come with its
/// conformances to ``WireJSONItemsRequestEndpoint`` and its siblings.
public protocol WireItemEndpoint: Sendable {
    /// What names one item, in a request and beside its result.
    associatedtype ID: Hashable & Sendable
    /// What a successful result for one item carries.
    associatedtype Value: Sendable
}

/// A batch request about the items that `ids` name, answered with one result per ID in request
/// order (``WireItemsResponse``): a lookup (`zones/lookup`, `users/discover`, …), or an action
/// on each item (`records/accept`, marking notifications read).
public struct WireItemsRequest<Endpoint: WireItemEndpoint>: Hashable, Sendable {
    /// Where the request goes and who sends it.
    public var context: WireRequestContext
    /// The items, in the order results come back.
    public var ids: [Endpoint.ID]

    /// Creates a request.
    public init(context: WireRequestContext, ids: [Endpoint.ID]) {
        self.context = context
        self.ids = ids
    }
}

/// The answer to a batch request: one result per requested item, in request order.
public struct WireItemsResponse<Endpoint: WireItemEndpoint>: Sendable {
    /// The outcome for each requested item.
    public var results: [WireItemResult<Endpoint.ID, Endpoint.Value>]

    /// Creates a response.
    public init(results: [WireItemResult<Endpoint.ID, Endpoint.Value>]) {
        self.results = results
    }
}

/// A modify: save and delete items in one request.
public struct WireModifyRequest<Endpoint: WireItemEndpoint>: Sendable {
    /// Where the request goes and who sends it.
    public var context: WireRequestContext
    /// Items to save, in order.
    public var saves: [Endpoint.Value]
    /// IDs of items to delete, in order.
    public var deletes: [Endpoint.ID]

    /// Creates a modify request.
    public init(context: WireRequestContext, saves: [Endpoint.Value] = [], deletes: [Endpoint.ID] = []) {
        self.context = context
        self.saves = saves
        self.deletes = deletes
    }
}

/// The answer to a modify: one result per item, in request order.
public struct WireModifyResponse<Endpoint: WireItemEndpoint>: Sendable {
    /// For each save, the item as the server now has it, or why it was not saved.
    public var saveResults: [WireItemResult<Endpoint.ID, Endpoint.Value>]
    /// For each delete, whether it happened.
    public var deleteResults: [WireItemResult<Endpoint.ID, Void>]

    /// Creates a modify response.
    public init(saveResults: [WireItemResult<Endpoint.ID, Endpoint.Value>], deleteResults: [WireItemResult<Endpoint.ID, Void>]) {
        self.saveResults = saveResults
        self.deleteResults = deleteResults
    }
}
