import Foundation

/// A snapshot of a record as it crosses the client/server boundary.
///
/// It is the value twin of `CKRecord`: system fields plus field values. A snapshot is a value,
/// so what the server stores can never be changed through an object the client holds.
public struct WireRecord: Hashable, Sendable {
    /// The record's identity.
    public var recordID: WireRecordID
    /// The record's type, such as `Photo`.
    public var recordType: String
    /// The server's change tag; nil for a record the server has never saved.
    public var changeTag: String?
    /// When the server first saved the record.
    public var creationDate: Date?
    /// When the server last saved the record.
    public var modificationDate: Date?
    /// The user record name of the user who created the record.
    public var creatorUserRecordName: String?
    /// The user record name of the user who last modified the record.
    public var lastModifiedUserRecordName: String?
    /// The record's parent, used by sharing; always a reference with action `.none`.
    public var parent: WireReference?
    /// The share that includes the record, set by the server: on a share's root record, and
    /// on a zone's records when the zone is shared as a whole.
    public var share: WireReference?
    /// The sharing state of a share record (type `cloudkit.share`); nil for other records.
    public var shareInfo: WireShareInfo?
    /// The plain field values by key.
    public var fields: [String: WireFieldValue]
    /// The field values stored encrypted (`CKRecord.encryptedValues`), by key.
    public var encryptedFields: [String: WireFieldValue]

    /// Creates a snapshot.
    public init(
        recordID: WireRecordID,
        recordType: String,
        changeTag: String? = nil,
        creationDate: Date? = nil,
        modificationDate: Date? = nil,
        creatorUserRecordName: String? = nil,
        lastModifiedUserRecordName: String? = nil,
        parent: WireReference? = nil,
        share: WireReference? = nil,
        shareInfo: WireShareInfo? = nil,
        fields: [String: WireFieldValue] = [:],
        encryptedFields: [String: WireFieldValue] = [:]
    ) {
        self.recordID = recordID
        self.recordType = recordType
        self.changeTag = changeTag
        self.creationDate = creationDate
        self.modificationDate = modificationDate
        self.creatorUserRecordName = creatorUserRecordName
        self.lastModifiedUserRecordName = lastModifiedUserRecordName
        self.parent = parent
        self.share = share
        self.shareInfo = shareInfo
        self.fields = fields
        self.encryptedFields = encryptedFields
    }

    /// The same record with no field values: what `CKRecord.encodeSystemFields(with:)` keeps.
    public var systemFieldsOnly: WireRecord {
        var copy = self
        copy.fields = [:]
        copy.encryptedFields = [:]
        return copy
    }
}
