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

    /// A record type must be a field-key-like name: an ASCII letter, then letters, digits or `_`;
    /// or the share type `cloudkit.share` (``WireShareRules/recordType``).
    public static func checkRecordType(_ type: String) -> WireError? {
        guard isIdentifier(type) || WireShareRules.isShareType(type) else {
            return WireError(.invalidArguments, "record type '\(type)' must start with an ASCII letter and hold only letters, digits and '_' (at most 255)")
        }
        return nil
    }

    /// A field key must match `^[A-Za-z][A-Za-z0-9_]{0,254}$` and not be a system field name.
    public static func checkFieldKey(_ key: String) -> WireError? {
        guard isIdentifier(key) else {
            return WireError(.invalidArguments, "field key '\(key)' must start with an ASCII letter and hold only letters, digits and '_' (at most 255)")
        }
        if isReservedFieldKey(key) {
            return WireError(.invalidArguments, "field key '\(key)' is the name of a system field")
        }
        return nil
    }

    /// ``reservedFieldKeys`` by their length in bytes, so a key is compared with the one or
    /// two of its length rather than hashed.
    private static let reservedFieldKeysByLength: [[String]] = {
        var table = [[String]](repeating: [], count: (reservedFieldKeys.map(\.utf8.count).max() ?? 0) + 1)
        for key in reservedFieldKeys { table[key.utf8.count].append(key) }
        return table
    }()

    /// Whether `key`, an identifier (ASCII, so bytes and characters agree), is reserved.
    private static func isReservedFieldKey(_ key: String) -> Bool {
        let length = key.utf8.count
        guard length < reservedFieldKeysByLength.count else { return false }
        return reservedFieldKeysByLength[length].contains { $0.hasSameUTF8Bytes(as: key) }
    }

    private static func isIdentifier(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            let allowed = isLetter(byte) || (count > 0 && ((byte >= 0x30 && byte <= 0x39) || byte == 0x5F))
            count += 1
            guard allowed, count <= WireLimits.maximumNameBytes else { return false }
        }
        return count > 0
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// The name of a record to save: a valid record name (``checkRecordName(_:)``) that is not
    /// `__defaultOwner__`. That name stands for the current user's record when a record is
    /// looked up, as in CloudKit, so a record saved under it could never be fetched; it is
    /// reserved in every zone. Lookups and deletes still accept it.
    public static func checkRecordNameToSave(_ name: String) -> WireError? {
        if let error = checkRecordName(name) { return error }
        if name.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName) {
            return WireError(.invalidArguments, "record name '\(WireZoneID.currentUserOwnerName)' is reserved: it stands for the current user's record in lookups, so no record can be saved under it")
        }
        return nil
    }

    /// Everything about one record to save that needs no server state: its names (the record
    /// name not reserved), type, field keys (a share may also use the plain keys of
    /// ``WireShareRules/systemFieldKeys``), every value (see
    /// ``checkFieldValue(_:forKey:encrypted:of:)``), references (same zone only; a parent
    /// never `deleteSelf`) and size.
    ///
    /// The client runs it before sending a save and the server again before storing one, so
    /// the server stores nothing the client would refuse to send.
    public static func checkRecordToSave(_ save: WireRecordSave) -> WireError? {
        let record = save.record
        if let error = checkRecordNameToSave(record.recordID.recordName) { return error }
        if let error = checkZoneName(record.recordID.zoneID.zoneName) { return error }
        if let error = checkRecordType(record.recordType) { return error }
        // Checked in dictionary order, which costs nothing extra; only a record that breaks a
        // rule is checked again in key order, so the error it gets does not depend on hashing.
        if fieldError(of: save, inKeyOrder: false) != nil { return fieldError(of: save, inKeyOrder: true) }
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

    /// The first broken rule among a record's field keys (plain, encrypted, removed, removed
    /// encrypted) and then its values (plain, encrypted), each group in key order when
    /// `inKeyOrder`, else in dictionary order.
    private static func fieldError(of save: WireRecordSave, inKeyOrder: Bool) -> WireError? {
        let record = save.record
        let isShare = WireShareRules.isShareType(record.recordType)
        func keyError(in keys: some Sequence<String>, plain: Bool) -> WireError? {
            for key in keys where !(plain && isShare && WireShareRules.systemFieldKeys.contains(key)) {
                if let error = checkFieldKey(key) { return error }
            }
            return nil
        }
        func valueError(in fields: [String: WireFieldValue], encrypted: Bool) -> WireError? {
            func error(_ key: String, _ value: WireFieldValue) -> WireError? {
                checkFieldValue(value, forKey: key, encrypted: encrypted, of: record.recordID)
            }
            if inKeyOrder {
                for key in fields.keys.sorted() { if let value = fields[key], let error = error(key, value) { return error } }
            } else {
                for (key, value) in fields { if let error = error(key, value) { return error } }
            }
            return nil
        }
        let plainKeys = inKeyOrder ? keyError(in: record.fields.keys.sorted(), plain: true) : keyError(in: record.fields.keys, plain: true)
        let encryptedKeys = inKeyOrder ? keyError(in: record.encryptedFields.keys.sorted(), plain: false) : keyError(in: record.encryptedFields.keys, plain: false)
        return plainKeys ?? encryptedKeys
            ?? keyError(in: save.removedKeys, plain: true)
            ?? keyError(in: save.removedEncryptedKeys, plain: false)
            ?? valueError(in: record.fields, encrypted: false)
            ?? valueError(in: record.encryptedFields, encrypted: true)
    }

    /// One field value of a record to save must be one a `CKRecord` can hold: every double and
    /// date finite; a location's coordinate valid and its components finite; a list holding values of one kind and never another list; no
    /// `CKRecord.Reference` or `CKAsset` (nor a list of them) in an encrypted field, whatever
    /// the reference's action; and references only to records of the record's own zone.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The field's key, for the message.
    ///   - encrypted: Whether the value is in the record's `encryptedValues`.
    ///   - recordID: The record, for the message and the zone its references must stay in.
    /// - Returns: nil, or an `invalidArguments` error naming the record and the field.
    public static func checkFieldValue(_ value: WireFieldValue, forKey key: String, encrypted: Bool, of recordID: WireRecordID) -> WireError? {
        if let problem = problem(with: value, encrypted: encrypted) {
            return WireError(.invalidArguments, "\(encrypted ? "encrypted field" : "field") '\(key)' of record '\(recordID.recordName)' \(problem)")
        }
        return checkReferences(in: value, key: key, of: recordID)
    }

    /// Why `value` cannot be stored in a record, as the rest of a sentence that starts with the
    /// field's name ("holds a list inside a list…"), or nil when it can. It checks what every
    /// value must satisfy wherever it comes from (a request or an archive), but not where a
    /// reference points.
    package static func problem(with value: WireFieldValue, encrypted: Bool) -> String? {
        switch value {
        case .string, .int64, .bytes:
            return nil
        case .double(let number):
            return number.isFinite ? nil : "holds \(number), which is not a finite number; CloudKit stores only finite doubles"
        case .date(let date):
            return date.timeIntervalSinceReferenceDate.isFinite ? nil : "holds a date that is not finite (\(date.timeIntervalSinceReferenceDate) seconds); CloudKit stores only finite dates"
        case .reference:
            return encrypted ? "holds a CKRecord.Reference; encryptedValues hold any value type except CKAsset and CKRecord.Reference" : nil
        case .location(let location):
            return location.problem.map { "holds a location whose \($0)" }
        case .asset:
            return encrypted ? "holds a CKAsset; encryptedValues hold any value type except CKAsset and CKRecord.Reference" : nil
        case .list(let elements):
            let first = elements.first?.kind
            for (index, element) in elements.enumerated() {
                if case .list = element {
                    return "holds a list inside a list (element \(index)); a list never holds another list"
                }
                if let first, element.kind != first {
                    return "holds a list that mixes \(first) and \(element.kind) (element \(index)); a list holds values of one type"
                }
                if let problem = problem(with: element, encrypted: encrypted) {
                    return "holds a list whose element \(index) \(problem)"
                }
            }
            return nil
        }
    }

    private static func checkReferences(in value: WireFieldValue, key: String, of recordID: WireRecordID) -> WireError? {
        switch value {
        case .reference(let reference):
            if reference.recordID.zoneID != recordID.zoneID {
                return WireError(.invalidArguments, "field '\(key)' of record '\(recordID.recordName)' references zone '\(reference.recordID.zoneID.zoneName)'; references must stay in the record's zone")
            }
            return nil
        case .list(let values):
            for element in values {
                if let error = checkReferences(in: element, key: key, of: recordID) { return error }
            }
            return nil
        default:
            return nil
        }
    }

    /// The limit of a records lookup: at most ``WireLimits/maximumItemsPerRequest`` (400)
    /// record IDs, as CloudKit answers an over-large `CKFetchRecordsOperation`
    /// (`limitExceeded`, "more than the maximum number of items in a single request (400)").
    /// CloudKit's documentation states the 400-item limit only for modify requests; that it
    /// holds for fetches too is what apps report iCloud answering.
    public static func checkLookupSize(_ recordIDs: [WireRecordID]) -> WireError? {
        guard recordIDs.count > WireLimits.maximumItemsPerRequest else { return nil }
        return WireError(.limitExceeded, "the request names \(recordIDs.count) record IDs, more than the \(WireLimits.maximumItemsPerRequest) allowed in one request; fetch them in parts of at most \(WireLimits.maximumItemsPerRequest)")
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
