/// `records/query`: one page of the records that match a query.
public struct WireQueryRequest: Sendable {
    /// Where the request goes.
    public var context: WireRequestContext
    /// The query, or nil when ``cursor`` continues an earlier one.
    public var query: WireQuery?
    /// The zone to search; nil searches every zone of the database. Ignored with a cursor.
    public var zoneID: WireZoneID?
    /// A cursor from an earlier page; it carries the query and zone it continues.
    public var cursor: [UInt8]?
    /// The most records to return; 0 lets the server choose.
    public var resultsLimit: Int
    /// The fields to return; nil for every field, empty for system fields only.
    public var desiredKeys: [String]?

    /// Creates a query request.
    public init(
        context: WireRequestContext,
        query: WireQuery?,
        zoneID: WireZoneID? = nil,
        cursor: [UInt8]? = nil,
        resultsLimit: Int = 0,
        desiredKeys: [String]? = nil
    ) {
        self.context = context
        self.query = query
        self.zoneID = zoneID
        self.cursor = cursor
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
    }
}

/// The answer to a ``WireQueryRequest``: the page's records in order, and a cursor when more
/// records match.
public struct WireQueryResponse: Sendable {
    /// The matching records, in the query's order.
    public var records: [WireRecord]
    /// Where the next page starts; nil when this page is the last.
    public var cursor: [UInt8]?

    /// Creates a query response.
    public init(records: [WireRecord], cursor: [UInt8]?) {
        self.records = records
        self.cursor = cursor
    }
}
