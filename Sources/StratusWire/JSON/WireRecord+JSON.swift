import Foundation

/// A record as CloudKit Web Services writes it: `recordName`, `recordType`, `recordChangeTag`,
/// `fields` (each a field value; an encrypted one with `"isEncrypted": true`), `created` and
/// `modified` (`{timestamp, userRecordName}`), `parent` and `share` (references), and, for a
/// share, `publicPermission` and `participants`; plus, as Stratus extensions, `zoneID` and a
/// share's `url`.
///
/// A field sent as `{}` or `{"value": null}` clears the field (CKWS's two spellings); a record
/// decoded on its own skips it, and a save collects it (``JSONRecordBody``).
extension WireRecord: Codable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONRecordBody.CodingKeys.self)
        try container.encode(recordID.recordName, forKey: .recordName)
        try container.encode(recordID.zoneID, forKey: .zoneID)
        try container.encode(recordType, forKey: .recordType)
        try container.encodeIfPresent(changeTag, forKey: .recordChangeTag)
        var fieldsContainer = container.nestedContainer(keyedBy: JSONKey.self, forKey: .fields)
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            try fieldsContainer.encode(value, forKey: JSONKey(key))
        }
        for (key, value) in encryptedFields.sorted(by: { $0.key < $1.key }) {
            try fieldsContainer.encode(JSONEncryptedField(value: value), forKey: JSONKey(key))
        }
        if creationDate != nil || creatorUserRecordName != nil {
            try container.encode(JSONStamp(date: creationDate, userRecordName: creatorUserRecordName), forKey: .created)
        }
        if modificationDate != nil || lastModifiedUserRecordName != nil {
            try container.encode(JSONStamp(date: modificationDate, userRecordName: lastModifiedUserRecordName), forKey: .modified)
        }
        try container.encodeIfPresent(parent, forKey: .parent)
        try container.encodeIfPresent(share, forKey: .share)
        if let shareInfo {
            try container.encode(shareInfo.publicPermission, forKey: .publicPermission)
            try container.encode(shareInfo.participants, forKey: .participants)
            try container.encodeIfPresent(shareInfo.url, forKey: .url)
        }
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONRecordBody(from: decoder).record
    }
}

/// A record dictionary as decoded, with the fields it clears: what a save is made from.
struct JSONRecordBody: Decodable {
    enum CodingKeys: String, CodingKey {
        case recordName, zoneID, recordType, recordChangeTag, fields, created, modified, parent, share
        case publicPermission, participants, url
    }

    var record: WireRecord
    /// Plain fields sent as `{}` or `{"value": null}`.
    var removedKeys: [String] = []
    /// Encrypted fields sent so.
    var removedEncryptedKeys: [String] = []

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var fields: [String: WireFieldValue] = [:]
        var encryptedFields: [String: WireFieldValue] = [:]
        if container.contains(.fields) {
            let fieldsContainer = try container.nestedContainer(keyedBy: JSONKey.self, forKey: .fields)
            for key in fieldsContainer.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                let field = try fieldsContainer.decode(JSONEncryptedField.Optional.self, forKey: key)
                switch (field.value, field.isEncrypted) {
                case (let value?, false): fields[key.stringValue] = value
                case (let value?, true): encryptedFields[key.stringValue] = value
                case (nil, false): removedKeys.append(key.stringValue)
                case (nil, true): removedEncryptedKeys.append(key.stringValue)
                }
            }
        }
        let created = try container.decodeIfPresent(JSONStamp.self, forKey: .created)
        let modified = try container.decodeIfPresent(JSONStamp.self, forKey: .modified)
        var shareInfo: WireShareInfo?
        if container.contains(.participants) || container.contains(.publicPermission) {
            shareInfo = WireShareInfo(
                publicPermission: try container.decodeIfPresent(WireParticipantPermission.self, forKey: .publicPermission) ?? .none,
                url: try container.decodeIfPresent(String.self, forKey: .url),
                participants: try container.decodeIfPresent([WireShareParticipant].self, forKey: .participants) ?? []
            )
        }
        record = WireRecord(
            recordID: WireRecordID(
                recordName: try container.decode(String.self, forKey: .recordName),
                zoneID: try container.decodeIfPresent(WireZoneID.self, forKey: .zoneID) ?? .defaultZone
            ),
            recordType: try container.decode(String.self, forKey: .recordType),
            changeTag: try container.decodeIfPresent(String.self, forKey: .recordChangeTag),
            creationDate: created?.date,
            modificationDate: modified?.date,
            creatorUserRecordName: created?.userRecordName,
            lastModifiedUserRecordName: modified?.userRecordName,
            parent: try container.decodeIfPresent(WireReference.self, forKey: .parent),
            share: try container.decodeIfPresent(WireReference.self, forKey: .share),
            shareInfo: shareInfo,
            fields: fields,
            encryptedFields: encryptedFields
        )
    }
}

/// `created` or `modified`: `{timestamp, userRecordName}` (CKWS also sends `deviceID`, which
/// Stratus ignores), with `stratusDate` when the milliseconds are not exact.
private struct JSONStamp: Codable {
    var date: Date?
    var userRecordName: String?

    private enum CodingKeys: String, CodingKey {
        case timestamp, userRecordName, stratusDate
    }

    init(date: Date?, userRecordName: String?) {
        self.date = date
        self.userRecordName = userRecordName
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let date {
            try container.encode(JSONTimestamp.milliseconds(date), forKey: .timestamp)
            try container.encodeIfPresent(JSONTimestamp.exactSeconds(date), forKey: .stratusDate)
        }
        try container.encodeIfPresent(userRecordName, forKey: .userRecordName)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userRecordName = try container.decodeIfPresent(String.self, forKey: .userRecordName)
        guard let milliseconds = try container.decodeIfPresent(Double.self, forKey: .timestamp) else { return }
        guard let date = JSONTimestamp.date(milliseconds: milliseconds, exact: try container.decodeIfPresent(Double.self, forKey: .stratusDate)) else {
            throw DecodingError.invalid(CodingKeys.timestamp, in: container, "\(milliseconds) is not a timestamp")
        }
        self.date = date
    }
}

/// A field value marked `"isEncrypted": true`, as CKWS writes a field of `encryptedValues`.
private struct JSONEncryptedField: Encodable {
    var value: WireFieldValue

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
        try JSONKey.encode(true, under: "isEncrypted", to: encoder)
    }

    /// A field as a save sends it: a value, or nothing (`{}`, `{"value": null}`) to clear it,
    /// plain or encrypted.
    struct Optional: Decodable {
        var value: WireFieldValue?
        var isEncrypted: Bool

        private enum Keys: String, CodingKey {
            case value, isEncrypted
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            isEncrypted = try container.decodeIfPresent(Bool.self, forKey: .isEncrypted) ?? false
            let cleared = try !container.contains(.value) || container.decodeNil(forKey: .value)
            value = cleared ? nil : try WireFieldValue(from: decoder)
        }
    }
}
