import Foundation

extension CKRecord {
    /// The record's encrypted fields, stored apart from its plain fields.
    ///
    /// Any field value except ``CKRecord/Reference`` and ``CKAsset`` (and lists of them) may be
    /// encrypted; those are rejected, and the next save fails with `invalidArguments`. Keys here
    /// do not appear in the record's own ``allKeys()`` or subscripts.
    ///
    /// ```swift
    /// record.encryptedValues["diary"] = "Dear diary"
    /// let diary: String? = record.encryptedValues["diary"]
    /// ```
    public var encryptedValues: any CKRecordKeyValueSetting & Sendable {
        EncryptedValues(record: self)
    }
}

/// The view of a record's encrypted fields that ``CKRecord/encryptedValues`` returns; it reads
/// and writes the record itself.
final class EncryptedValues: NSObject, CKRecordKeyValueSetting, FieldValueSetting, @unchecked Sendable {
    private let record: CKRecord

    init(record: CKRecord) {
        self.record = record
    }

    var storesEncrypted: Bool { true }

    func setValue(_ value: Any?, forKey key: String, encrypted: Bool) {
        record.setValue(value, forKey: key, encrypted: encrypted)
    }

    func object(forKey key: String) -> (any __CKRecordObjCValue)? {
        record.state.withLock { $0.snapshot.encryptedFields[key] }.map(FieldValueConversion.object(for:))
    }

    func setObject(_ object: (any __CKRecordObjCValue)?, forKey key: String) {
        record.setValue(object, forKey: key, encrypted: true)
    }

    subscript(key: String) -> (any __CKRecordObjCValue)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    func allKeys() -> [String] {
        record.state.withLock { $0.snapshot.encryptedFields.keys.sorted() }
    }

    func changedKeys() -> [String] {
        record.state.withLock { $0.encrypted.changed.sorted() }
    }

    override var description: String {
        "<CKRecord encryptedValues: keys=\(allKeys())>"
    }
}
