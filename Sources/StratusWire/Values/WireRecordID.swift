/// A record's identity as it crosses the client/server boundary: the value twin of `CKRecord.ID`.
///
/// Two IDs are equal when their record names have the same UTF-8 bytes and their zones are
/// equal (see ``WireZoneID``): a server stores names as bytes, so the canonically equivalent
/// but differently spelled `"Zon\u{E9}"` and `"Zone\u{301}"` name two records. ``WireName``
/// explains the rule.
public struct WireRecordID: Hashable, Sendable {
    /// The record's name, unique within its zone.
    public var recordName: String
    /// The zone that holds the record.
    public var zoneID: WireZoneID

    /// Creates a record identity.
    public init(recordName: String, zoneID: WireZoneID = .defaultZone) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    /// Whether the two IDs have byte-for-byte equal record names and equal zones.
    public static func == (lhs: WireRecordID, rhs: WireRecordID) -> Bool {
        lhs.recordName.hasSameUTF8Bytes(as: rhs.recordName) && lhs.zoneID == rhs.zoneID
    }

    /// Hashes the UTF-8 bytes of the record name and the zone.
    public func hash(into hasher: inout Hasher) {
        recordName.hashUTF8Bytes(into: &hasher)
        zoneID.hash(into: &hasher)
    }
}
