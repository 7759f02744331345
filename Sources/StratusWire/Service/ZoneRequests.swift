/// `zones/lookup`: fetch zones by ID.
public struct WireZonesLookupRequest: Sendable {
    /// Where the request goes.
    public var context: WireRequestContext
    /// The zones to fetch, in the order results come back.
    public var zoneIDs: [WireZoneID]

    /// Creates a lookup request.
    public init(context: WireRequestContext, zoneIDs: [WireZoneID]) {
        self.context = context
        self.zoneIDs = zoneIDs
    }
}

/// The answer to a ``WireZonesLookupRequest``: one result per requested zone, in request order.
public struct WireZonesLookupResponse: Sendable {
    /// The outcome for each requested zone.
    public var results: [WireItemResult<WireZoneID, WireZone>]

    /// Creates a lookup response.
    public init(results: [WireItemResult<WireZoneID, WireZone>]) {
        self.results = results
    }
}

/// The answer to `zones/list`: every zone of the database.
public struct WireZonesListResponse: Sendable {
    /// The zones, the default zone first, then by name.
    public var zones: [WireZone]

    /// Creates a list response.
    public init(zones: [WireZone]) {
        self.zones = zones
    }
}

/// `zones/modify`: create and delete zones in one request.
public struct WireZonesModifyRequest: Sendable {
    /// Where the request goes.
    public var context: WireRequestContext
    /// Zones to create (saving an existing zone changes nothing).
    public var saves: [WireZone]
    /// Zones to delete, with every record in them.
    public var deletes: [WireZoneID]

    /// Creates a modify request.
    public init(context: WireRequestContext, saves: [WireZone] = [], deletes: [WireZoneID] = []) {
        self.context = context
        self.saves = saves
        self.deletes = deletes
    }
}

/// The answer to a ``WireZonesModifyRequest``: one result per item, in request order.
public struct WireZonesModifyResponse: Sendable {
    /// For each save, the zone as the server has it.
    public var saveResults: [WireItemResult<WireZoneID, WireZone>]
    /// For each delete, whether it happened.
    public var deleteResults: [WireItemResult<WireZoneID, Void>]

    /// Creates a modify response.
    public init(
        saveResults: [WireItemResult<WireZoneID, WireZone>],
        deleteResults: [WireItemResult<WireZoneID, Void>]
    ) {
        self.saveResults = saveResults
        self.deleteResults = deleteResults
    }
}
