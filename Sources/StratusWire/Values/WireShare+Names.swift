extension WireShareInfo {
    /// The record type of shares: `cloudkit.share` (`CKRecord.SystemType.share`).
    public static let recordType = "cloudkit.share"

    /// The record name of a zone-wide share: `cloudkit.zoneshare` (`CKRecordNameZoneWideShare`).
    /// A zone holds at most one such share.
    public static let zoneWideShareRecordName = "cloudkit.zoneshare"
}
