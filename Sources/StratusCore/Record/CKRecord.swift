import Foundation
import StratusWire
import Synchronization

/// A record: a typed set of fields with an identity and the server's system fields.
///
/// As in CloudKit, you create a record with a type and an ID, set its fields with subscripts,
/// and save it; the server assigns a ``recordChangeTag`` and dates. A record tracks which keys
/// you changed (``changedKeys()``), so a save sends only those.
///
/// ```swift
/// let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "clown-party"))
/// party["title"] = "Clowns at the park"
/// party["date"] = Date()
/// party["attendees"] = 12
/// let attendees = party["attendees"] as? Int   // 12
/// ```
///
/// Field values are CloudKit's schema types: strings, 64-bit integers, doubles, dates, bytes,
/// references, assets and homogeneous lists of these. Numbers read back as `NSNumber`, so every
/// numeric cast works. A value that is not a field type (a nested list, a `UInt64` beyond
/// `Int64.max`, a reference in ``encryptedValues``) is not stored: the record remembers the
/// rejection and the next save fails it with `invalidArguments`, where CloudKit would raise
/// an Objective-C exception.
///
/// A record is safe to use from several threads; its storage is guarded by a lock. The server
/// never holds your record object: saving copies it, and every record you receive is new.
///
/// CloudKit document: *CKRecord*.
public class CKRecord: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// A record type name, such as `Photo`.
    public typealias RecordType = String
    /// A field key, such as `title`.
    public typealias FieldKey = String

    /// CloudKit's name for the class, `CKRecord`: the class table of an archive whose root or
    /// nested object this is lists it as the class's fallback (`$classhints`). Foundation on
    /// Linux writes the module-qualified Swift name as `$classname` and offers no way to change
    /// it (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKRecord"] }

    struct State: Sendable {
        /// The system fields and the current values.
        var snapshot: WireRecord
        var plain = FieldChanges()
        var encrypted = FieldChanges()
        var parentChanged = false
    }

    let state: Mutex<State>

    /// The record's type.
    public let recordType: RecordType

    /// The record's identity.
    public let recordID: ID

    /// Creates an empty record that has never been saved.
    ///
    /// - Parameters:
    ///   - recordType: The type, such as `Photo`. Types are created in the development schema
    ///     the first time a record of the type is saved.
    ///   - recordID: The identity; a new UUID in the default zone by default.
    public convenience init(recordType: RecordType, recordID: ID = ID()) {
        self.init(state: State(snapshot: WireRecord(recordID: recordID.wireValue, recordType: recordType)), recordID: recordID)
    }

    /// A plain record as the server sent it: no local changes. Records received from a
    /// service are made by ``make(wire:)``, which makes a ``CKShare`` of a share.
    package convenience init(wire: WireRecord) {
        self.init(state: State(snapshot: wire), recordID: ID(wire: wire.recordID))
    }

    init(state: State, recordID: ID) {
        self.recordType = state.snapshot.recordType
        self.recordID = recordID
        self.state = Mutex(state)
    }

    /// Decodes a record archived with ``encode(with:)`` or ``encodeSystemFields(with:)``; nil
    /// for a missing, truncated, damaged or foreign archive, or one of another format version.
    ///
    /// As in CloudKit, calling it on a share's archive gives a plain record of type
    /// `cloudkit.share`; decode shares with ``CKShare/init(coder:)`` to get a ``CKShare``.
    public required convenience init?(coder: NSCoder) {
        guard let blob = SecureCodingBlob.blob(from: coder),
              let state = try? CKRecord.decodeState(blob)
        else { return nil }
        self.init(state: state, recordID: ID(wire: state.snapshot.recordID))
    }

    /// A summary such as `<CKRecord: recordType=Party, recordID=…, recordChangeTag=3, values={title=…}>`.
    /// The format is not stable.
    public override var description: String {
        let snapshot = wireSnapshot
        let values = snapshot.fields.keys.sorted().map { key in
            "\(key)=\(snapshot.fields[key]?.description ?? "nil")"
        }
        return "<CKRecord: recordType=\(recordType), recordID=\(recordID), "
            + "recordChangeTag=\(snapshot.changeTag ?? "nil"), values={\(values.joined(separator: ", "))}>"
    }

    // MARK: - System fields

    /// The server's tag for the version of the record you hold; nil until the record is saved.
    /// Every save on the server gives a new tag.
    public var recordChangeTag: String? { state.withLock { $0.snapshot.changeTag } }

    /// When the server first saved the record; nil until then.
    public var creationDate: Date? { state.withLock { $0.snapshot.creationDate } }

    /// When the server last saved the record; nil until the first save.
    public var modificationDate: Date? { state.withLock { $0.snapshot.modificationDate } }

    /// The user record ID of the user who created the record; your own reads as
    /// `__defaultOwner__`.
    public var creatorUserRecordID: ID? {
        state.withLock { $0.snapshot.creatorUserRecordName }.map { ID(recordName: $0) }
    }

    /// The user record ID of the user who last saved the record; your own reads as
    /// `__defaultOwner__`.
    public var lastModifiedUserRecordID: ID? {
        state.withLock { $0.snapshot.lastModifiedUserRecordName }.map { ID(recordName: $0) }
    }

    /// The record's parent in a share hierarchy. Its action must be ``ReferenceAction/none``,
    /// and its target must exist or be saved in the same operation (`referenceViolation`).
    public var parent: Reference? {
        get { state.withLock { $0.snapshot.parent }.map { Reference(wire: $0) } }
        set {
            state.withLock {
                $0.snapshot.parent = newValue?.wireValue
                $0.parentChanged = true
            }
        }
    }

    /// Makes `parentRecord` this record's parent, or removes the parent when nil.
    public func setParent(_ parentRecord: CKRecord?) {
        setParent(parentRecord?.recordID)
    }

    /// Makes the record with `parentRecordID` this record's parent, or removes the parent when nil.
    public func setParent(_ parentRecordID: ID?) {
        parent = parentRecordID.map { Reference(recordID: $0, action: .none) }
    }

    /// The share that includes the record: set on a share's root record by
    /// ``CKShare/init(rootRecord:)`` (locally, until the two are saved together) and by the
    /// server; on every record of a zone shared as a whole, by the server. nil otherwise.
    public var share: Reference? { state.withLock { $0.snapshot.share }.map { Reference(wire: $0) } }

    /// Points the record's ``share`` at `reference`: what creating a share for a root record
    /// does locally, as CloudKit does.
    func setShareReference(_ reference: Reference?) {
        state.withLock { $0.snapshot.share = reference?.wireValue }
    }

    // MARK: - Keys

    /// The keys that have values, sorted.
    public func allKeys() -> [FieldKey] {
        state.withLock { $0.snapshot.fields.keys.sorted() }
    }

    /// The keys set since the record was created, fetched or decoded, including keys set to
    /// nil, sorted. A save sends these keys.
    public func changedKeys() -> [FieldKey] {
        state.withLock { $0.plain.changed.sorted() }
    }

    // MARK: - Values

    /// The value of `key` as a Foundation object (`NSString`, `NSNumber`, `NSDate`, `NSData`,
    /// `NSArray`, a reference or an asset), or nil.
    public func object(forKey key: FieldKey) -> (any __CKRecordObjCValue)? {
        state.withLock { $0.snapshot.fields[key] }.map(FieldValueConversion.object(for:))
    }

    /// Sets the value of `key`; nil removes the field when the record is saved. Either way the
    /// key joins ``changedKeys()``.
    public func setObject(_ object: (any __CKRecordObjCValue)?, forKey key: FieldKey) {
        setValue(object, forKey: key, encrypted: false)
    }

    /// The value of `key`, as ``object(forKey:)`` returns it.
    public subscript(key: FieldKey) -> (any __CKRecordObjCValue)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    /// The value of `key`: the key-value coding spelling CloudKit code uses, which Linux's
    /// `NSObject` lacks.
    public func value(forKey key: String) -> Any? {
        object(forKey: key)
    }

    /// Sets the value of `key`: the key-value coding spelling CloudKit code uses. A value that
    /// is not a CloudKit field value is rejected as ``setObject(_:forKey:)`` describes.
    public func setValue(_ value: Any?, forKey key: String) {
        setValue(value, forKey: key, encrypted: false)
    }

    /// Stores `value` under `key`, converting it to a field value or remembering why it cannot be.
    func setValue(_ value: Any?, forKey key: String, encrypted: Bool) {
        let converted = value.map { FieldValueConversion.fieldValue(from: $0, encrypted: encrypted) }
        state.withLock { state in
            if encrypted {
                state.encrypted.apply(converted, forKey: key, to: &state.snapshot.encryptedFields)
            } else {
                state.plain.apply(converted, forKey: key, to: &state.snapshot.fields)
            }
        }
    }

    /// The record's fields, system fields and local edits, as one value; for a share, with
    /// its current sharing state.
    package var wireSnapshot: WireRecord { state.withLock { $0.snapshot } }

    // MARK: - What a share adds

    // `CKShare` overrides these; Swift cannot override members declared in extensions.

    /// The sharing state a save sends: a share's current one; for a plain record of type
    /// `cloudkit.share` (a share's archive decoded with `CKRecord(coder:)`), the one the server
    /// last sent; nil for other records.
    var shareInfoToSave: WireShareInfo? {
        state.withLock { $0.snapshot.recordType == SystemType.share ? $0.snapshot.shareInfo : nil }
    }

    /// Why the record cannot be saved besides its rejected values, or nil; a share names a
    /// participant change it refused.
    var sharingRefusal: String? { nil }

    /// The blob ``encode(with:)`` stores, or with `systemFieldsOnly`,
    /// ``encodeSystemFields(with:)``.
    func archiveBlob(systemFieldsOnly: Bool) -> [UInt8] {
        recordArchiveBlob(systemFieldsOnly: systemFieldsOnly)
    }

    /// What ``copy(with:)`` returns: a new object of the same class and state.
    func makeCopy() -> CKRecord {
        CKRecord(state: state.withLock { $0 }, recordID: recordID)
    }

    /// The keys whose last set value was rejected, with the reasons, plain and encrypted.
    package var rejectedValues: (plain: [String: String], encrypted: [String: String]) {
        state.withLock { ($0.plain.rejections, $0.encrypted.rejections) }
    }

    /// The record as it was before the local edits: the ancestor of a conflicting save.
    package var ancestorSnapshot: WireRecord {
        state.withLock { state in
            var ancestor = state.snapshot
            if let fields = state.plain.ancestor { ancestor.fields = fields }
            if let fields = state.encrypted.ancestor { ancestor.encryptedFields = fields }
            return ancestor
        }
    }
}
