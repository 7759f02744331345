import Foundation

/// The `zones/*` endpoints as CloudKit Web Services shapes them.
extension WireZonesEndpoint: WireJSONItemsRequestEndpoint, WireJSONItemsResponseEndpoint, WireJSONModifyRequestEndpoint, WireJSONModifyResponseEndpoint {
    /// `zones/lookup`: `{"zones": [zoneID, …]}`, an array of zone-ID dictionaries.
    public static let itemsRequestJSON = JSONDictionary(WireZonesLookupRequest.init, .context(\.context), .required("zones", \.ids)).coder

    /// The answer to `zones/lookup`: `{"zones": […]}`, one element per requested zone in
    /// order, the zone dictionary or an error dictionary, with the requested `zoneID`
    /// (``JSONItems``). When the zone's own ID differs from the requested one byte for byte,
    /// the zone's goes under the Stratus extension `stratusZoneID`.
    public static let itemsResponseJSON = JSONDictionary(WireZonesLookupResponse.init, .results("zones", \.results, ownID: JSONItems.zones)).coder

    /// `zones/modify`: `{"operations": [{"operationType": "create", "zone": {…}},
    /// {"operationType": "delete", "zone": {"zoneID": {…}}}]}`, the saves first, then the
    /// deletes, each in order; a created zone is the whole zone dictionary (``WireZone``). An
    /// unknown `operationType`, and a save after a delete, are `invalidArguments` naming
    /// `operations[i].operationType`.
    public static let modifyRequestJSON: WireJSONCoder<WireZonesModifyRequest> = JSONOperations.coder(
        under: "zone", saveTypes: ["create"], savesFirst: true, what: "zone operation type (create, delete)",
        delete: JSONItems.zoneID
    )

    /// The answer to `zones/modify`: `{"zones": […]}`, one element per operation in request
    /// order, so the saves' results, then the deletes': a zone as in
    /// ``WireZonesLookupResponse``, a deletion as CKWS's `{"zoneID": {…}, "deleted": true}`, a
    /// failure as the error dictionary with `zoneID` beside. Every result of a delete also
    /// carries the Stratus extension `"operationType": "delete"` (``JSONSavesThenDeletes``).
    public static let modifyResponseJSON: WireJSONCoder<WireZonesModifyResponse> = JSONSavesThenDeletes.coder(
        under: "zones", saves: JSONItems.zones, deleteType: "delete", saveTypes: ["create"], deleteTypes: ["delete"]
    )
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
