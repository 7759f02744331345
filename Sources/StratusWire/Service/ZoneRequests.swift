/// The `zones/*` endpoints: zones, named by their IDs.
public enum WireZonesEndpoint: WireItemEndpoint {
    /// A zone is named by its ID.
    public typealias ID = WireZoneID
    /// A found or saved zone, as the server has it.
    public typealias Value = WireZone
}

/// `zones/lookup`: fetch zones by ID.
public typealias WireZonesLookupRequest = WireItemsRequest<WireZonesEndpoint>

/// The answer to a ``WireZonesLookupRequest``: one result per requested zone, in request order.
public typealias WireZonesLookupResponse = WireItemsResponse<WireZonesEndpoint>

/// The answer to `zones/list`: every zone of the database.
public struct WireZonesListResponse: Sendable {
    /// The zones, the default zone first, then by name.
    public var zones: [WireZone]

    /// Creates a list response.
    public init(zones: [WireZone]) {
        self.zones = zones
    }
}

/// `zones/modify`: create and delete zones in one request. Saving an existing zone changes
/// nothing; deleting a zone deletes every record in it.
public typealias WireZonesModifyRequest = WireModifyRequest<WireZonesEndpoint>

/// The answer to a ``WireZonesModifyRequest``: one result per item, in request order.
public typealias WireZonesModifyResponse = WireModifyResponse<WireZonesEndpoint>
