import StratusWire

/// The record name of every zone-wide share: `cloudkit.zoneshare`. A zone holds at most one
/// zone-wide share; fetch it with `CKRecord.ID(recordName: CKRecordNameZoneWideShare,
/// zoneID: zoneID)`. A share whose record name is this one shares a whole zone; any other
/// shares a record hierarchy.
public let CKRecordNameZoneWideShare: String = WireShareInfo.zoneWideShareRecordName

extension CKShare {
    /// The keys of the fields the system reads from a share: when a user is invited, in the
    /// sharing interface, and when a user accepts. Each is optional.
    ///
    /// ```swift
    /// share[CKShare.SystemFieldKey.title] = "Clowns at the park"
    /// share[CKShare.SystemFieldKey.shareType] = "com.example.clowns.party"
    /// ```
    public enum SystemFieldKey {
        /// The share's title, a string, such as "Clowns at the park": `cloudkit.title`.
        public static let title: CKRecord.FieldKey = "cloudkit.title"
        /// A thumbnail image's bytes (PNG or JPEG data): `cloudkit.thumbnailImageData`.
        public static let thumbnailImageData: CKRecord.FieldKey = "cloudkit.thumbnailImageData"
        /// A uniform type identifier for what is shared, such as `com.example.clowns.party`:
        /// `cloudkit.type`.
        public static let shareType: CKRecord.FieldKey = "cloudkit.type"
    }
}

/// The Swift 3 name of ``CKRecord/SystemType/share``.
@available(swift, obsoleted: 4.2, renamed: "CKRecord.SystemType.share")
public let CKRecordTypeShare: String = CKRecord.SystemType.share

/// The Swift 3 name of ``CKShare/SystemFieldKey/title``.
@available(swift, obsoleted: 4.2, renamed: "CKShare.SystemFieldKey.title")
public let CKShareTitleKey: String = CKShare.SystemFieldKey.title

/// The Swift 3 name of ``CKShare/SystemFieldKey/thumbnailImageData``.
@available(swift, obsoleted: 4.2, renamed: "CKShare.SystemFieldKey.thumbnailImageData")
public let CKShareThumbnailImageDataKey: String = CKShare.SystemFieldKey.thumbnailImageData

/// The Swift 3 name of ``CKShare/SystemFieldKey/shareType``.
@available(swift, obsoleted: 4.2, renamed: "CKShare.SystemFieldKey.shareType")
public let CKShareTypeKey: String = CKShare.SystemFieldKey.shareType
