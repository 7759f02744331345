/// A record's identity as it crosses the client/server boundary: the value twin of `CKRecord.ID`.
public struct WireRecordID: Hashable, Sendable, Codable {
    /// The record's name, unique within its zone.
    public var recordName: String
    /// The zone that holds the record.
    public var zoneID: WireZoneID

    /// Creates a record identity.
    public init(recordName: String, zoneID: WireZoneID = .defaultZone) {
        self.recordName = recordName
        self.zoneID = zoneID
    }
}
