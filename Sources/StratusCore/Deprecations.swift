import Foundation

// CloudKit names kept for older code. Each forwards to the current spelling.

/// The old name of ``CKCurrentUserDefaultName``.
@available(*, deprecated, renamed: "CKCurrentUserDefaultName")
public let CKOwnerDefaultName = CKCurrentUserDefaultName

extension CKRecord {
    /// Creates a record in the given zone with a new UUID name.
    @available(*, deprecated, message: "Use init(recordType:recordID:) + CKRecord.ID(zoneID:) instead")
    public convenience init(recordType: RecordType, zoneID: CKRecordZone.ID) {
        self.init(recordType: recordType, recordID: ID(zoneID: zoneID))
    }
}

extension CKReference {
    /// The old name of ``CKRecord/ReferenceAction``.
    @available(*, deprecated, message: "renamed to CKRecord.ReferenceAction")
    public typealias Action = CKRecord.ReferenceAction
}
