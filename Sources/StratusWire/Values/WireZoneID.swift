/// A record zone's identity as it crosses the client/server boundary.
///
/// The value twin of `CKRecordZone.ID`: a zone name and the name of the user who owns it. Two
/// IDs are equal when both names have the same UTF-8 bytes, as a server stores them; canonical
/// equivalence (Swift's `String` equality) is not enough. ``WireName`` explains the rule.
public struct WireZoneID: Hashable, Sendable {
    /// CloudKit's name of every database's default zone: `_defaultZone`.
    public static let defaultZoneName = "_defaultZone"
    /// CloudKit's stand-in for the current user as a zone owner: `__defaultOwner__`.
    public static let currentUserOwnerName = "__defaultOwner__"
    /// The default zone, owned by the current user.
    public static let defaultZone = WireZoneID(zoneName: defaultZoneName, ownerName: currentUserOwnerName)

    /// The zone's name, unique within its owner's database.
    public var zoneName: String
    /// The owner's user record name, or `__defaultOwner__` for the current user.
    public var ownerName: String

    /// Creates a zone identity.
    public init(zoneName: String, ownerName: String = WireZoneID.currentUserOwnerName) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    /// Whether this is the database's default zone.
    public var isDefaultZone: Bool { zoneName.hasSameUTF8Bytes(as: WireZoneID.defaultZoneName) }

    /// Whether the two IDs have byte-for-byte equal zone names and owner names.
    public static func == (lhs: WireZoneID, rhs: WireZoneID) -> Bool {
        lhs.zoneName.hasSameUTF8Bytes(as: rhs.zoneName) && lhs.ownerName.hasSameUTF8Bytes(as: rhs.ownerName)
    }

    /// Hashes the UTF-8 bytes of the zone name and the owner name.
    public func hash(into hasher: inout Hasher) {
        zoneName.hashUTF8Bytes(into: &hasher)
        ownerName.hashUTF8Bytes(into: &hasher)
    }
}
