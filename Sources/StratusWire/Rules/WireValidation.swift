/// The rules a request must follow, checked by the client before sending (so a bad item costs
/// no request) and again by the server (which never trusts a client).
///
/// Each check returns nil when the value is fine, or a ``WireError`` that names what is wrong.
public enum WireValidation {
    /// System field names that field keys may not take.
    public static let reservedFieldKeys: Set<String> = [
        "recordID", "recordName", "recordType", "recordChangeTag", "creationDate", "modificationDate",
        "creatorUserRecordID", "lastModifiedUserRecordID", "parent", "share", "allTokens",
    ]

    /// A record name must be 1 to 255 UTF-8 bytes.
    public static func checkRecordName(_ name: String) -> WireError? {
        checkName(name, what: "record name")
    }

    /// A zone name must be 1 to 255 UTF-8 bytes.
    public static func checkZoneName(_ name: String) -> WireError? {
        checkName(name, what: "zone name")
    }

    private static func checkName(_ name: String, what: String) -> WireError? {
        if name.isEmpty { return WireError(.invalidArguments, "\(what) is empty") }
        let bytes = name.utf8.count
        if bytes > WireLimits.maximumNameBytes {
            return WireError(.invalidArguments, "\(what) '\(name.prefix(32))…' is \(bytes) UTF-8 bytes; the limit is \(WireLimits.maximumNameBytes)")
        }
        return nil
    }

    /// A record type must be a field-key-like name: an ASCII letter, then letters, digits or `_`.
    public static func checkRecordType(_ type: String) -> WireError? {
        guard isIdentifier(type) else {
            return WireError(.invalidArguments, "record type '\(type)' must start with an ASCII letter and hold only letters, digits and '_' (at most 255)")
        }
        return nil
    }

    /// A field key must match `^[A-Za-z][A-Za-z0-9_]{0,254}$` and not be a system field name.
    public static func checkFieldKey(_ key: String) -> WireError? {
        guard isIdentifier(key) else {
            return WireError(.invalidArguments, "field key '\(key)' must start with an ASCII letter and hold only letters, digits and '_' (at most 255)")
        }
        if reservedFieldKeys.contains(key) {
            return WireError(.invalidArguments, "field key '\(key)' is the name of a system field")
        }
        return nil
    }

    private static func isIdentifier(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= WireLimits.maximumNameBytes, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// Everything about one record to save that needs no server state: its names, type, field
    /// keys, references (same zone only; a parent never `deleteSelf`) and size.
    public static func checkRecordToSave(_ save: WireRecordSave) -> WireError? {
        let record = save.record
        if let error = checkRecordName(record.recordID.recordName) { return error }
        if let error = checkZoneName(record.recordID.zoneID.zoneName) { return error }
        if let error = checkRecordType(record.recordType) { return error }
        for key in record.fields.keys.sorted() + record.encryptedFields.keys.sorted() + save.removedKeys + save.removedEncryptedKeys {
            if let error = checkFieldKey(key) { return error }
        }
        for key in record.fields.keys.sorted() {
            if let error = checkReferences(in: record.fields[key], key: key, of: record.recordID) { return error }
        }
        for (key, value) in record.fields.merging(record.encryptedFields, uniquingKeysWith: { first, _ in first }) where !value.isFinite {
            return WireError(.invalidArguments, "field '\(key)' of record '\(record.recordID.recordName)' holds a number that is not finite")
        }
        if let parent = record.parent {
            if parent.recordID.zoneID != record.recordID.zoneID {
                return WireError(.invalidArguments, "the parent of record '\(record.recordID.recordName)' is in zone '\(parent.recordID.zoneID.zoneName)'; a parent must be in the record's zone")
            }
            if parent.action != .none {
                return WireError(.invalidArguments, "the parent reference of record '\(record.recordID.recordName)' must have action .none")
            }
        }
        let size = record.byteSize
        if size > WireLimits.maximumRecordBytes {
            return WireError(.limitExceeded, "record '\(record.recordID.recordName)' holds \(size) bytes of field data; the limit is \(WireLimits.maximumRecordBytes) bytes (1 MB), assets excluded")
        }
        return nil
    }

    private static func checkReferences(in value: WireFieldValue?, key: String, of recordID: WireRecordID) -> WireError? {
        switch value {
        case .reference(let reference)?:
            if reference.recordID.zoneID != recordID.zoneID {
                return WireError(.invalidArguments, "field '\(key)' of record '\(recordID.recordName)' references zone '\(reference.recordID.zoneID.zoneName)'; references must stay in the record's zone")
            }
            return nil
        case .list(let values)?:
            for element in values {
                if let error = checkReferences(in: element, key: key, of: recordID) { return error }
            }
            return nil
        default:
            return nil
        }
    }

    /// The request-wide limits: at most 400 items and 2 MB of record data.
    public static func checkRequestSize(saves: [WireRecordSave], deletes: [WireRecordID]) -> WireError? {
        let items = saves.count + deletes.count
        if items > WireLimits.maximumItemsPerRequest {
            return WireError(.limitExceeded, "the request holds \(items) items, more than the \(WireLimits.maximumItemsPerRequest) allowed in one request; split it in half and retry both halves")
        }
        let bytes = saves.reduce(0) { $0 + $1.record.byteSize } + deletes.reduce(0) { $0 + $1.byteSize }
        if bytes > WireLimits.maximumRequestBytes {
            return WireError(.limitExceeded, "the request holds \(bytes) bytes of record data, more than the \(WireLimits.maximumRequestBytes) (2 MB) allowed; split it in half and retry both halves")
        }
        return nil
    }
}
