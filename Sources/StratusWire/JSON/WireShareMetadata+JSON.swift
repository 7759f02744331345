import Foundation

/// Share metadata as CloudKit Web Services' share result dictionary (`records/resolve`):
/// `{"containerIdentifier": …, "databaseScope": "PRIVATE" | "SHARED", "zoneID": {…},
/// "rootRecordName": …, "rootRecord": {…}, "share": {…}, "ownerIdentity": {…},
/// "participantType": …, "participantStatus": …, "participantPermission": …}`.
///
/// `zoneID` is the zone of the root record (for a zone-wide share, which has no root record,
/// the share's zone); `rootRecordName` is absent for a zone-wide share. `databaseScope` says
/// where the requesting user finds the share: `PRIVATE` for its owner, `SHARED` for anyone
/// else; it is written for CKWS clients and not read back. The participant's type, status and
/// permission are the names a share participant's use (``WireParticipantRole``,
/// ``WireParticipantAcceptanceStatus``, ``WireParticipantPermission``), `UNKNOWN` when absent.
/// CKWS's `environment`, `potentialMatchList` and `webpageURL` are not written, and ignored.
/// A `share` or `rootRecord` dictionary without `zoneID` (CKWS names the zone once, beside
/// them) is in `zoneID`.
extension WireShareMetadata: Codable {
    private enum CodingKeys: String, CodingKey {
        case containerIdentifier, databaseScope, zoneID, rootRecordName, rootRecord, share, ownerIdentity
        case participantType, participantStatus, participantPermission
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(containerIdentifier, forKey: .containerIdentifier)
        try container.encode(participantRole == .owner ? "PRIVATE" : "SHARED", forKey: .databaseScope)
        try container.encode(hierarchicalRootRecordID?.zoneID ?? share.recordID.zoneID, forKey: .zoneID)
        try container.encodeIfPresent(hierarchicalRootRecordID?.recordName, forKey: .rootRecordName)
        try container.encodeIfPresent(rootRecord, forKey: .rootRecord)
        try container.encode(share, forKey: .share)
        try container.encode(ownerIdentity, forKey: .ownerIdentity)
        try container.encode(participantRole, forKey: .participantType)
        try container.encode(participantStatus, forKey: .participantStatus)
        try container.encode(participantPermission, forKey: .participantPermission)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let zoneID = try container.decodeIfPresent(WireZoneID.self, forKey: .zoneID)
        let share = try container.decodeRecord(forKey: .share, inZone: zoneID)
        let rootRecordID = try container.decodeIfPresent(String.self, forKey: .rootRecordName).map { name in
            WireRecordID(recordName: name, zoneID: zoneID ?? share.recordID.zoneID)
        }
        self.init(
            containerIdentifier: try container.decode(String.self, forKey: .containerIdentifier),
            share: share,
            hierarchicalRootRecordID: rootRecordID,
            rootRecord: container.contains(.rootRecord) ? try container.decodeRecord(forKey: .rootRecord, inZone: zoneID) : nil,
            participantRole: try container.decodeIfPresent(WireParticipantRole.self, forKey: .participantType) ?? .unknown,
            participantStatus: try container.decodeIfPresent(WireParticipantAcceptanceStatus.self, forKey: .participantStatus) ?? .unknown,
            participantPermission: try container.decodeIfPresent(WireParticipantPermission.self, forKey: .participantPermission) ?? .unknown,
            ownerIdentity: try container.decode(WireUserIdentity.self, forKey: .ownerIdentity)
        )
    }
}

extension KeyedDecodingContainer {
    /// The record at `key`, in `zoneID` when its dictionary names no zone.
    fileprivate func decodeRecord(forKey key: Key, inZone zoneID: WireZoneID?) throws -> WireRecord {
        var record = try decode(WireRecord.self, forKey: key)
        if let zoneID, try !nestedContainer(keyedBy: JSONKey.self, forKey: key).contains(JSONKey("zoneID")) {
            record.recordID.zoneID = zoneID
        }
        return record
    }
}
