import Foundation

/// `records/changes` as CloudKit Web Services shapes it (one zone, as `changes/zone` asks for
/// each of its zones): `{"zoneID": {…}, "syncToken": …, "resultsLimit": …, "desiredKeys": […]}`.
/// The token is its bytes in standard base64, absent to fetch from the beginning;
/// `resultsLimit` is absent when it is 0 (the server chooses); `desiredKeys` absent returns
/// every field, `[]` only system fields.
extension WireRecordChangesRequest: Codable {
    private static let json = JSONDictionary(
        Self.init,
        .context(\.context),
        .required("zoneID", \.zoneID),
        .bytes("syncToken", \.sinceToken),
        .limit("resultsLimit", \.resultsLimit),
        .optional("desiredKeys", \.desiredKeys)
    )

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// A deleted record as CKWS lists it among a zone's changes: `{"recordName": …, "zoneID":
/// {…}, "recordType": …, "deleted": true}`. A deletion without `recordType` (CKWS may leave it
/// out) has the empty type.
extension WireRecordDeletion: Codable {
    private enum CodingKeys: String, CodingKey {
        case recordName, zoneID, recordType, deleted
    }

    public func encode(to encoder: any Encoder) throws {
        try recordID.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(recordType, forKey: .recordType)
        try container.encode(true, forKey: .deleted)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            recordID: try WireRecordID(from: decoder),
            recordType: try container.decodeIfPresent(String.self, forKey: .recordType) ?? ""
        )
    }
}

/// The answer to `records/changes` as CKWS writes it: `{"records": […], "syncToken": …,
/// "moreComing": …}`, the changed records' dictionaries, then the deletions (``WireRecordDeletion``,
/// told apart by `"deleted": true`, so they may come in any order), the token in standard
/// base64; plus the Stratus extension `clientChangeTokenData` (standard base64), the token the
/// last modify of the zone carried. `moreComing` absent is false; CKWS's `reverse` is ignored.
extension WireRecordChangesResponse: Codable {
    public func encode(to encoder: any Encoder) throws {
        var container = try JSONChangeList.encode(changed, deleted, under: "records", token: token, moreComing: moreComing, to: encoder) { record, encoder in
            try record.encode(to: encoder)
        }
        try JSONOpaqueBytes.encode(clientChangeTokenData.map { [UInt8]($0) }, forKey: JSONKey("clientChangeTokenData"), in: &container)
    }

    public init(from decoder: any Decoder) throws {
        let (changed, deleted, list) = try JSONChangeList.decode(under: "records", from: decoder, reading: WireRecord.init(from:), WireRecordDeletion.self)
        self.init(
            changed: changed,
            deleted: deleted,
            token: list.token,
            moreComing: list.moreComing,
            clientChangeTokenData: try JSONOpaqueBytes.decode(forKey: JSONKey("clientChangeTokenData"), in: list.container).map { Data($0) }
        )
    }
}

/// A change feed's request, `changes/database` as CKWS shapes it, and the notification
/// collection's in the same style (a Stratus extension: CKWS has no endpoint for it):
/// `{"syncToken": …, "resultsLimit": …}`, the token in standard base64, absent to fetch from
/// the beginning; `resultsLimit` absent when it is 0 (the server chooses). The request's
/// context is not in the body (``WireJSON/decode(_:from:context:)``).
extension WireChangeFeedRequest: Codable {
    private static let json = JSONDictionary(Self.init, .context(\.context), .bytes("syncToken", \.sinceToken), .limit("resultsLimit", \.resultsLimit))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// Why a zone went away, as a Stratus extension names it (CKWS does not say):
/// `DELETED`, `PURGED`, `ENCRYPTED_DATA_RESET`.
extension WireZoneDeletionReason: Codable {
    private static let names: [(Self, String)] = [(.deleted, "DELETED"), (.purged, "PURGED"), (.encryptedDataReset, "ENCRYPTED_DATA_RESET")]

    public func encode(to encoder: any Encoder) throws {
        try JSONEnumeration.encode(self, Self.names, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "a zone deletion reason")
    }
}

/// A deleted zone as CKWS lists it among a database's changes: `{"zoneID": {…}, "deleted":
/// true}`, plus the Stratus extension `deletionReason` (``WireZoneDeletionReason``); without
/// it, the app deleted the zone.
extension WireZoneDeletion: Codable {
    private enum CodingKeys: String, CodingKey {
        case zoneID, deleted, deletionReason
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zoneID, forKey: .zoneID)
        try container.encode(true, forKey: .deleted)
        try container.encode(reason, forKey: .deletionReason)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            zoneID: try container.decode(WireZoneID.self, forKey: .zoneID),
            reason: try container.decodeIfPresent(WireZoneDeletionReason.self, forKey: .deletionReason) ?? .deleted
        )
    }
}

/// The answer to `changes/database` as CKWS writes it: `{"zones": […], "syncToken": …,
/// "moreComing": …}`, a changed zone as `{"zoneID": {…}}` (CKWS's zone dictionary, of which
/// Stratus reads only the ID), then the deleted zones (``WireZoneDeletion``, told apart by
/// `"deleted": true`, so they may come in any order), the token in standard base64.
/// `moreComing` absent is false.
extension WireDatabaseChangesResponse: Codable {
    public func encode(to encoder: any Encoder) throws {
        _ = try JSONChangeList.encode(changedZoneIDs, deleted, under: "zones", token: token, moreComing: moreComing, to: encoder) { zoneID, encoder in
            try JSONKey.encode(zoneID, under: "zoneID", to: encoder)
        }
    }

    public init(from decoder: any Decoder) throws {
        let (changed, deleted, list) = try JSONChangeList.decode(under: "zones", from: decoder, reading: { element in
            try JSONKey.decode(WireZoneID.self, under: "zoneID", from: element)
        }, WireZoneDeletion.self)
        self.init(changedZoneIDs: changed, deleted: deleted, token: list.token, moreComing: list.moreComing)
    }
}

/// A change fetch's answer as CKWS writes it: `{KEY: […], "syncToken": …, "moreComing": …}`,
/// the changed items first, then the deletions (told apart by `"deleted": true`, so they may
/// come in any order), the token in standard base64. `moreComing` absent is false.
enum JSONChangeList {
    /// What the list's dictionary holds besides the items.
    struct Rest {
        var token: [UInt8]
        var moreComing: Bool
        /// The dictionary, for keys a fetch adds.
        var container: KeyedDecodingContainer<JSONKey>
    }

    /// Writes the list, the token and `moreComing`, and hands back the dictionary for keys a
    /// fetch adds.
    static func encode<Changed, Deleted: Encodable>(
        _ changed: [Changed], _ deleted: [Deleted], under key: String, token: [UInt8], moreComing: Bool,
        to encoder: any Encoder, writing write: (Changed, any Encoder) throws -> Void
    ) throws -> KeyedEncodingContainer<JSONKey> {
        var container = encoder.container(keyedBy: JSONKey.self)
        var items = container.nestedUnkeyedContainer(forKey: JSONKey(key))
        for item in changed { try write(item, items.superEncoder()) }
        for deletion in deleted { try items.encode(deletion) }
        try JSONOpaqueBytes.encode(token, forKey: JSONKey("syncToken"), in: &container)
        try container.encode(moreComing, forKey: JSONKey("moreComing"))
        return container
    }

    /// Reads what ``encode(_:_:under:token:moreComing:to:writing:)`` wrote.
    static func decode<Changed, Deleted: Decodable>(
        under key: String, from decoder: any Decoder, reading read: (any Decoder) throws -> Changed, _: Deleted.Type
    ) throws -> ([Changed], [Deleted], Rest) {
        let container = try decoder.container(keyedBy: JSONKey.self)
        var items = try container.nestedUnkeyedContainer(forKey: JSONKey(key))
        var changed: [Changed] = []
        var deleted: [Deleted] = []
        while !items.isAtEnd {
            let element = try items.superDecoder()
            if try element.container(keyedBy: JSONKey.self).decodeIfPresent(Bool.self, forKey: JSONKey("deleted")) == true {
                deleted.append(try Deleted(from: element))
            } else {
                changed.append(try read(element))
            }
        }
        guard let token = try JSONOpaqueBytes.decode(forKey: JSONKey("syncToken"), in: container) else {
            throw DecodingError.keyNotFound(JSONKey("syncToken"), DecodingError.Context(codingPath: container.codingPath, debugDescription: "a change fetch answers a token"))
        }
        let moreComing = try container.decodeIfPresent(Bool.self, forKey: JSONKey("moreComing")) ?? false
        return (changed, deleted, Rest(token: token, moreComing: moreComing, container: container))
    }
}
