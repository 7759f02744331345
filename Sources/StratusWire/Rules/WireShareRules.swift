/// The names CloudKit reserves for shares, in one place for the client's checks and the
/// server's.
public enum WireShareRules {
    /// The record type of every share (`CKRecord.SystemType.share`): `cloudkit.share`.
    public static let recordType = "cloudkit.share"
    /// The record name of a zone's zone-wide share (`CKRecordNameZoneWideShare`):
    /// `cloudkit.zoneshare`.
    public static let zoneWideShareName = "cloudkit.zoneshare"
    /// The field keys CloudKit predefines on shares (`CKShare.SystemFieldKey`): `cloudkit.title`,
    /// `cloudkit.thumbnailImageData` and `cloudkit.type`. Only share records may use them; they
    /// do not match the pattern other field keys must.
    public static let systemFieldKeys: Set<String> = ["cloudkit.title", "cloudkit.thumbnailImageData", "cloudkit.type"]
    /// How many participants a share may have, its owner included: 100.
    public static let maximumParticipants = 100

    /// Whether `recordType` is the share type, compared byte for byte.
    public static func isShareType(_ recordType: String) -> Bool {
        recordType.hasSameUTF8Bytes(as: Self.recordType)
    }
}
