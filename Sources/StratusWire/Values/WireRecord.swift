import Foundation

/// A snapshot of a record as it crosses the client/server boundary.
///
/// It is the value twin of `CKRecord`: system fields plus field values. A snapshot is a value,
/// so what the server stores can never be changed through an object the client holds.
///
/// The values live in one shared box that is copied only when a copy is changed, so passing
/// a record around (into a store, a change log, a response) costs one reference count rather
/// than one per field.
public struct WireRecord: Hashable, Sendable {
    /// The box holding the values; never changed while another record shares it.
    private final class Storage: @unchecked Sendable {
        var recordID: WireRecordID
        var recordType: String
        var changeTag: String?
        var creationDate: Date?
        var modificationDate: Date?
        var creatorUserRecordName: String?
        var lastModifiedUserRecordName: String?
        var parent: WireReference?
        var share: WireReference?
        var shareInfo: WireShareInfo?
        var fields: [String: WireFieldValue]
        var encryptedFields: [String: WireFieldValue]

        init(
            recordID: WireRecordID,
            recordType: String,
            changeTag: String?,
            creationDate: Date?,
            modificationDate: Date?,
            creatorUserRecordName: String?,
            lastModifiedUserRecordName: String?,
            parent: WireReference?,
            share: WireReference?,
            shareInfo: WireShareInfo?,
            fields: [String: WireFieldValue],
            encryptedFields: [String: WireFieldValue]
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

        func copy() -> Storage {
            Storage(
                recordID: recordID,
                recordType: recordType,
                changeTag: changeTag,
                creationDate: creationDate,
                modificationDate: modificationDate,
                creatorUserRecordName: creatorUserRecordName,
                lastModifiedUserRecordName: lastModifiedUserRecordName,
                parent: parent,
                share: share,
                shareInfo: shareInfo,
                fields: fields,
                encryptedFields: encryptedFields
            )
        }
    }

    private var storage: Storage

    /// The box, copied first when another record shares it.
    private var uniqueStorage: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    /// The record's identity.
    public var recordID: WireRecordID {
        get { storage.recordID }
        _modify { yield &uniqueStorage.recordID }
    }

    /// The record's type, such as `Photo`.
    public var recordType: String {
        get { storage.recordType }
        _modify { yield &uniqueStorage.recordType }
    }

    /// The server's change tag; nil for a record the server has never saved.
    public var changeTag: String? {
        get { storage.changeTag }
        _modify { yield &uniqueStorage.changeTag }
    }

    /// When the server first saved the record.
    public var creationDate: Date? {
        get { storage.creationDate }
        _modify { yield &uniqueStorage.creationDate }
    }

    /// When the server last saved the record.
    public var modificationDate: Date? {
        get { storage.modificationDate }
        _modify { yield &uniqueStorage.modificationDate }
    }

    /// The user record name of the user who created the record.
    public var creatorUserRecordName: String? {
        get { storage.creatorUserRecordName }
        _modify { yield &uniqueStorage.creatorUserRecordName }
    }

    /// The user record name of the user who last modified the record.
    public var lastModifiedUserRecordName: String? {
        get { storage.lastModifiedUserRecordName }
        _modify { yield &uniqueStorage.lastModifiedUserRecordName }
    }

    /// The record's parent, used by sharing; always a reference with action `.none`.
    public var parent: WireReference? {
        get { storage.parent }
        _modify { yield &uniqueStorage.parent }
    }

    /// The share that includes the record, set by the server: on a share's root record, and
    /// on a zone's records when the zone is shared as a whole.
    public var share: WireReference? {
        get { storage.share }
        _modify { yield &uniqueStorage.share }
    }

    /// The sharing state of a share record (type `cloudkit.share`); nil for other records.
    public var shareInfo: WireShareInfo? {
        get { storage.shareInfo }
        _modify { yield &uniqueStorage.shareInfo }
    }

    /// The plain field values by key.
    public var fields: [String: WireFieldValue] {
        get { storage.fields }
        _modify { yield &uniqueStorage.fields }
    }

    /// The field values stored encrypted (`CKRecord.encryptedValues`), by key.
    public var encryptedFields: [String: WireFieldValue] {
        get { storage.encryptedFields }
        _modify { yield &uniqueStorage.encryptedFields }
    }

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
        storage = Storage(
            recordID: recordID,
            recordType: recordType,
            changeTag: changeTag,
            creationDate: creationDate,
            modificationDate: modificationDate,
            creatorUserRecordName: creatorUserRecordName,
            lastModifiedUserRecordName: lastModifiedUserRecordName,
            parent: parent,
            share: share,
            shareInfo: shareInfo,
            fields: fields,
            encryptedFields: encryptedFields
        )
    }

    /// Whether the two records hold the same values.
    public static func == (lhs: WireRecord, rhs: WireRecord) -> Bool {
        if lhs.storage === rhs.storage { return true }
        let l = lhs.storage, r = rhs.storage
        return l.recordID == r.recordID
            && l.recordType == r.recordType
            && l.changeTag == r.changeTag
            && l.creationDate == r.creationDate
            && l.modificationDate == r.modificationDate
            && l.creatorUserRecordName == r.creatorUserRecordName
            && l.lastModifiedUserRecordName == r.lastModifiedUserRecordName
            && l.parent == r.parent
            && l.share == r.share
            && l.shareInfo == r.shareInfo
            && l.fields == r.fields
            && l.encryptedFields == r.encryptedFields
    }

    /// Hashes every value.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.recordID)
        hasher.combine(storage.recordType)
        hasher.combine(storage.changeTag)
        hasher.combine(storage.creationDate)
        hasher.combine(storage.modificationDate)
        hasher.combine(storage.creatorUserRecordName)
        hasher.combine(storage.lastModifiedUserRecordName)
        hasher.combine(storage.parent)
        hasher.combine(storage.share)
        hasher.combine(storage.shareInfo)
        hasher.combine(storage.fields)
        hasher.combine(storage.encryptedFields)
    }

    /// The same record with no field values: what `CKRecord.encodeSystemFields(with:)` keeps.
    public var systemFieldsOnly: WireRecord {
        var copy = self
        copy.fields = [:]
        copy.encryptedFields = [:]
        return copy
    }
}
