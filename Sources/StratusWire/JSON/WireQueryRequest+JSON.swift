import Foundation

/// `records/query` as CloudKit Web Services' body: `{zoneID, zoneWide, resultsLimit, query,
/// continuationMarker, desiredKeys}`.
///
/// - `zoneID` names the zone searched; no zone (every zone of the database) is
///   `"zoneWide": true` without a `zoneID`. Decoding follows CKWS: a `zoneID` wins over
///   `zoneWide`, and neither is the default zone.
/// - `resultsLimit` is left out when it is 0 (the server chooses, CKWS's default).
/// - `continuationMarker` is the cursor's bytes in base64.
/// - `desiredKeys` is left out for every field; `[]` asks for the system fields only.
///
/// CKWS's `numbersAsStrings` is read as an unknown key: Stratus writes numbers as numbers and
/// reads both. The request's context is not in the body (``WireJSON/decode(_:from:context:)``).
extension WireQueryRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case zoneID, zoneWide, resultsLimit, query, continuationMarker, desiredKeys
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let zoneID {
            try container.encode(zoneID, forKey: .zoneID)
        } else {
            try container.encode(true, forKey: .zoneWide)
        }
        if resultsLimit != 0 { try container.encode(resultsLimit, forKey: .resultsLimit) }
        try container.encodeIfPresent(query, forKey: .query)
        try JSONOpaqueBytes.encode(cursor, forKey: .continuationMarker, in: &container)
        try container.encodeIfPresent(desiredKeys, forKey: .desiredKeys)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var zoneID = try container.decodeIfPresent(WireZoneID.self, forKey: .zoneID)
        if zoneID == nil, try container.decodeIfPresent(Bool.self, forKey: .zoneWide) != true {
            zoneID = .defaultZone
        }
        self.init(
            context: try decoder.requestContext(),
            query: try container.decodeIfPresent(WireQuery.self, forKey: .query),
            zoneID: zoneID,
            cursor: try JSONOpaqueBytes.decode(forKey: .continuationMarker, in: container),
            resultsLimit: try JSONInteger.decodeIfPresent(forKey: .resultsLimit, in: container) ?? 0,
            desiredKeys: try container.decodeIfPresent([String].self, forKey: .desiredKeys)
        )
    }
}

/// The answer to `records/query` as CKWS writes it: `{records: [record…],
/// continuationMarker}`, the marker (the cursor's bytes in base64) only while more records
/// match.
extension WireQueryResponse: Codable {
    private static let json = JSONDictionary(Self.init, .required("records", \.records), .bytes("continuationMarker", \.cursor))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}
