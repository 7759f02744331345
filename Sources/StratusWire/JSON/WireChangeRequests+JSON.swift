import Foundation

/// `records/changes` as CloudKit Web Services shapes it (one zone, as `changes/zone` asks for
/// each of its zones): `{"zoneID": {…}, "syncToken": …, "resultsLimit": …, "desiredKeys": […]}`.
/// The token is its bytes in standard base64, absent to fetch from the beginning;
/// `resultsLimit` is absent when it is 0 (the server chooses); `desiredKeys` absent returns
/// every field, `[]` only system fields.
extension WireRecordChangesRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case zoneID, syncToken, resultsLimit, desiredKeys
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zoneID, forKey: .zoneID)
        try container.encodeIfPresent(sinceToken.map { Data($0).base64EncodedString() }, forKey: .syncToken)
        if resultsLimit != 0 { try container.encode(resultsLimit, forKey: .resultsLimit) }
        try container.encodeIfPresent(desiredKeys, forKey: .desiredKeys)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            context: try decoder.requestContext(),
            zoneID: try container.decode(WireZoneID.self, forKey: .zoneID),
            sinceToken: try JSONChangeTokens.decodeIfPresent(container, .syncToken),
            resultsLimit: try container.decodeLimitIfPresent(forKey: .resultsLimit) ?? 0,
            desiredKeys: try container.decodeIfPresent([String].self, forKey: .desiredKeys)
        )
    }
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
    private enum CodingKeys: String, CodingKey {
        case records, syncToken, moreComing, clientChangeTokenData
    }

    private enum ElementKeys: String, CodingKey {
        case deleted
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var records = container.nestedUnkeyedContainer(forKey: .records)
        for record in changed { try records.encode(record) }
        for deletion in deleted { try records.encode(deletion) }
        try container.encode(Data(token).base64EncodedString(), forKey: .syncToken)
        try container.encode(moreComing, forKey: .moreComing)
        try container.encodeIfPresent(clientChangeTokenData?.base64EncodedString(), forKey: .clientChangeTokenData)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var records = try container.nestedUnkeyedContainer(forKey: .records)
        var changed: [WireRecord] = []
        var deleted: [WireRecordDeletion] = []
        while !records.isAtEnd {
            let element = try records.superDecoder()
            if try element.container(keyedBy: ElementKeys.self).decodeIfPresent(Bool.self, forKey: .deleted) == true {
                deleted.append(try WireRecordDeletion(from: element))
            } else {
                changed.append(try WireRecord(from: element))
            }
        }
        guard let token = try JSONChangeTokens.decodeIfPresent(container, .syncToken) else {
            throw DecodingError.keyNotFound(CodingKeys.syncToken, DecodingError.Context(codingPath: container.codingPath, debugDescription: "a change fetch answers a token"))
        }
        self.init(
            changed: changed,
            deleted: deleted,
            token: token,
            moreComing: try container.decodeIfPresent(Bool.self, forKey: .moreComing) ?? false,
            clientChangeTokenData: try JSONChangeTokens.decodeIfPresent(container, .clientChangeTokenData).map { Data($0) }
        )
    }
}

/// `changes/database` as CKWS shapes it: `{"syncToken": …, "resultsLimit": …}`, the token in
/// standard base64, absent to fetch from the beginning; `resultsLimit` absent when it is 0.
extension WireDatabaseChangesRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case syncToken, resultsLimit
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(sinceToken.map { Data($0).base64EncodedString() }, forKey: .syncToken)
        if resultsLimit != 0 { try container.encode(resultsLimit, forKey: .resultsLimit) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            context: try decoder.requestContext(),
            sinceToken: try JSONChangeTokens.decodeIfPresent(container, .syncToken),
            resultsLimit: try container.decodeLimitIfPresent(forKey: .resultsLimit) ?? 0
        )
    }
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
    private enum CodingKeys: String, CodingKey {
        case zones, syncToken, moreComing
    }

    private enum ZoneKeys: String, CodingKey {
        case zoneID, deleted
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var zones = container.nestedUnkeyedContainer(forKey: .zones)
        for zoneID in changedZoneIDs {
            var zone = zones.nestedContainer(keyedBy: ZoneKeys.self)
            try zone.encode(zoneID, forKey: .zoneID)
        }
        for deletion in deleted { try zones.encode(deletion) }
        try container.encode(Data(token).base64EncodedString(), forKey: .syncToken)
        try container.encode(moreComing, forKey: .moreComing)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var zones = try container.nestedUnkeyedContainer(forKey: .zones)
        var changed: [WireZoneID] = []
        var deleted: [WireZoneDeletion] = []
        while !zones.isAtEnd {
            let element = try zones.superDecoder()
            let zone = try element.container(keyedBy: ZoneKeys.self)
            if try zone.decodeIfPresent(Bool.self, forKey: .deleted) == true {
                deleted.append(try WireZoneDeletion(from: element))
            } else {
                changed.append(try zone.decode(WireZoneID.self, forKey: .zoneID))
            }
        }
        guard let token = try JSONChangeTokens.decodeIfPresent(container, .syncToken) else {
            throw DecodingError.keyNotFound(CodingKeys.syncToken, DecodingError.Context(codingPath: container.codingPath, debugDescription: "a change fetch answers a token"))
        }
        self.init(changedZoneIDs: changed, deleted: deleted, token: token, moreComing: try container.decodeIfPresent(Bool.self, forKey: .moreComing) ?? false)
    }
}

/// Change tokens as CKWS's `syncToken` carries them: standard base64 strings.
private enum JSONChangeTokens {
    /// The bytes of the token at `key`, or nil when there is none.
    static func decodeIfPresent<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> [UInt8]? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.invalid(key, in: container, "a token must be standard base64")
        }
        return [UInt8](data)
    }
}

private extension KeyedDecodingContainer {
    /// The results limit at `key`, or nil when there is none. A number `Int` cannot hold (too
    /// large, or with a fraction) names the key, which Foundation's own error (not a
    /// `DecodingError` until the decoder returns) does not.
    func decodeLimitIfPresent(forKey key: Key) throws -> Int? {
        do {
            return try decodeIfPresent(Int.self, forKey: key)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.invalid(key, in: self, "a results limit is a whole number of at most \(Int.max) (\(error))")
        }
    }
}
