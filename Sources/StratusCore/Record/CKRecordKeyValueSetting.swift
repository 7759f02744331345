import Foundation

/// Reading and writing a record's values by key: CloudKit's `CKRecordKeyValueSetting`.
///
/// ``CKRecord`` conforms, and so does its ``CKRecord/encryptedValues``. The protocol extension
/// adds the typed subscripts CloudKit's Swift overlay has:
///
/// ```swift
/// record["title"] = "Clown party"              // any field value
/// let title: String? = record["title"]          // typed read
/// record.encryptedValues["diary"] = "secret"     // encrypted field
/// ```
public protocol CKRecordKeyValueSetting: NSObjectProtocol {
    /// The value of `key` as a Foundation object, or nil.
    func object(forKey key: String) -> (any __CKRecordObjCValue)?
    /// Sets the value of `key`; nil removes the field.
    func setObject(_ object: (any __CKRecordObjCValue)?, forKey key: String)
    /// The value of `key`, as ``object(forKey:)`` and ``setObject(_:forKey:)``.
    subscript(key: String) -> (any __CKRecordObjCValue)? { get set }
    /// The keys that have values, sorted.
    func allKeys() -> [String]
    /// The keys set since the values were fetched, decoded or created, sorted.
    func changedKeys() -> [String]
}

/// Conformers that accept any Swift value and reject, rather than drop, what is not a field value.
protocol FieldValueSetting {
    func setValue(_ value: Any?, forKey key: String, encrypted: Bool)
    var storesEncrypted: Bool { get }
}

extension CKRecordKeyValueSetting {
    /// The value of `key` as `T`, or nil when there is none or it is not a `T`. Numbers convert
    /// to any numeric type that holds them exactly, lists to typed arrays.
    public subscript<T: CKRecordValueProtocol>(key: CKRecord.FieldKey) -> T? {
        get { object(forKey: key) as? T }
        set { store(newValue, forKey: key) }
    }

    /// The value of `key` as any field value, or nil.
    public subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        get { object(forKey: key) }
        set { store(newValue, forKey: key) }
    }

    private func store(_ value: (any CKRecordValueProtocol)?, forKey key: String) {
        if let setter = self as? FieldValueSetting {
            setter.setValue(value, forKey: key, encrypted: setter.storesEncrypted)
        } else {
            setObject(value as? any __CKRecordObjCValue, forKey: key)
        }
    }
}

extension CKRecord: CKRecordKeyValueSetting, FieldValueSetting {
    var storesEncrypted: Bool { false }
}
