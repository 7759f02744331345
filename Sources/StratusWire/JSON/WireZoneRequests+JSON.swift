import Foundation

/// `zones/lookup` as CloudKit Web Services shapes it: `{"zones": [zoneID, …]}`, an array of
/// zone-ID dictionaries.
extension WireZonesLookupRequest: Codable {
    private static let json = JSONDictionary(Self.init, .context(\.context), .required("zones", \.zoneIDs))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// The answer to `zones/lookup` as CKWS writes it: `{"zones": […]}`, one element per requested
/// zone in order, the zone dictionary or an error dictionary, with the requested `zoneID`
/// (``JSONItems``). When the zone's own ID differs from the requested one byte for byte, the
/// zone's goes under the Stratus extension `stratusZoneID`.
extension WireZonesLookupResponse: Codable {
    public func encode(to encoder: any Encoder) throws {
        var items = JSONKey.list(under: "zones", of: encoder)
        try JSONItems.zones.encode(results, into: &items)
    }

    public init(from decoder: any Decoder) throws {
        var items = try JSONKey.list(under: "zones", of: decoder)
        self.init(results: try JSONItems.decode(from: &items, id: JSONItems.decodeZoneID, value: JSONItems.zones.decodeValue))
    }
}

/// The answer to `zones/list` as CKWS writes it: `{"zones": [zone, …]}`. An error element,
/// which CKWS may send in its place, is `invalidArguments` naming it: the list holds zones only.
extension WireZonesListResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case zones
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zones, forKey: .zones)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var items = try container.nestedUnkeyedContainer(forKey: .zones)
        var zones: [WireZone] = []
        while !items.isAtEnd {
            let item = try items.superDecoder()
            if try item.container(keyedBy: JSONKey.self).contains(JSONKey("serverErrorCode")) {
                let error = try WireError(from: item)
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: item.codingPath,
                    debugDescription: "a zone list holds zones, not errors (\(WireError.serverErrorCode(for: error.code)): \(error.message))"
                ))
            }
            zones.append(try WireZone(from: item))
        }
        self.init(zones: zones)
    }
}

/// `zones/modify` as CKWS shapes it: `{"operations": [{"operationType": "create", "zone":
/// {…}}, {"operationType": "delete", "zone": {"zoneID": {…}}}]}`, the saves first, then the
/// deletes, each in order; a created zone is the whole zone dictionary (``WireZone``). An
/// unknown `operationType`, and a save after a delete, are `invalidArguments` naming
/// `operations[i].operationType`.
extension WireZonesModifyRequest: Codable {
    public func encode(to encoder: any Encoder) throws {
        try JSONOperations.encode(saves: saves, deletes: deletes, under: "zone", to: encoder) { zoneID, encoder in
            try JSONKey.encode(zoneID, under: "zoneID", to: encoder)
        }
    }

    public init(from decoder: any Decoder) throws {
        let (saves, deletes): ([WireZone], [WireZoneID]) = try JSONOperations.decode(
            under: "zone", saveTypes: ["create"], savesFirst: true, what: "zone operation type (create, delete)", from: decoder
        ) { try JSONKey.decode(WireZoneID.self, under: "zoneID", from: $0) }
        self.init(context: try decoder.requestContext(), saves: saves, deletes: deletes)
    }
}

/// The answer to `zones/modify` as CKWS writes it: `{"zones": […]}`, one element per operation
/// in request order, so the saves' results, then the deletes': a zone as in
/// ``WireZonesLookupResponse``, a deletion as CKWS's `{"zoneID": {…}, "deleted": true}`, a
/// failure as the error dictionary with `zoneID` beside. Every result of a delete also carries
/// the Stratus extension `"operationType": "delete"` (``JSONSavesThenDeletes``).
extension WireZonesModifyResponse: Codable {
    public func encode(to encoder: any Encoder) throws {
        var items = JSONKey.list(under: "zones", of: encoder)
        try JSONItems.zones.encode(saveResults, into: &items)
        try JSONSavesThenDeletes.encodeDeletes(deleteResults, operationType: "delete", into: &items, id: JSONItems.encodeZoneID)
    }

    public init(from decoder: any Decoder) throws {
        var items = try JSONKey.list(under: "zones", of: decoder)
        let (saves, deletes) = try JSONSavesThenDeletes.decode(
            from: &items, saveTypes: ["create"], deleteTypes: ["delete"], id: JSONItems.decodeZoneID, value: JSONItems.zones.decodeValue
        )
        self.init(saveResults: saves, deleteResults: deletes)
    }
}

