import Foundation

/// A participant's permission as CKWS names it: `UNKNOWN`, `NONE`, `READ_ONLY`, `READ_WRITE`.
extension WireParticipantPermission: Codable {
    private static let names: [(Self, String)] = [(.unknown, "UNKNOWN"), (.none, "NONE"), (.readOnly, "READ_ONLY"), (.readWrite, "READ_WRITE")]

    public func encode(to encoder: any Encoder) throws {
        try JSONEnumeration.encode(self, Self.names, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "a share permission")
    }
}

/// A participant's role as CKWS names its type: `UNKNOWN`, `OWNER`, `USER`, `PUBLIC_USER`
/// (and `ADMINISTRATOR`, which CloudKit's native API does not have: `invalidArguments`).
extension WireParticipantRole: Codable {
    private static let names: [(Self, String)] = [(.unknown, "UNKNOWN"), (.owner, "OWNER"), (.privateUser, "USER"), (.publicUser, "PUBLIC_USER")]

    public func encode(to encoder: any Encoder) throws {
        try JSONEnumeration.encode(self, Self.names, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "a participant type")
    }
}

/// A participant's acceptance status as CKWS names it: `UNKNOWN`, `INVITED` (the native
/// `pending`; `PENDING` is read too), `ACCEPTED`, `REMOVED`.
extension WireParticipantAcceptanceStatus: Codable {
    private static let names: [(Self, String)] = [(.unknown, "UNKNOWN"), (.pending, "INVITED"), (.accepted, "ACCEPTED"), (.removed, "REMOVED"), (.pending, "PENDING")]

    public func encode(to encoder: any Encoder) throws {
        try JSONEnumeration.encode(self, Self.names, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "an acceptance status")
    }
}

/// A share participant as CKWS writes it: `{userIdentity, permission, type, acceptanceStatus}`,
/// plus Stratus's `participantID`, which names the participant within its share.
extension WireShareParticipant: Codable {
    private static let json = JSONDictionary(
        Self.init,
        .optional("participantID", \.participantID, absent: ""),
        .required("userIdentity", \.identity),
        .optional("type", \.role, absent: .unknown),
        .optional("acceptanceStatus", \.acceptanceStatus, absent: .unknown),
        .optional("permission", \.permission, absent: .unknown)
    )

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// A user identity as CKWS writes it: `{userRecordName, lookupInfo, nameComponents}`, plus
/// Stratus's `contactIdentifiers` and `hasiCloudAccount`.
extension WireUserIdentity: Codable {
    private enum CodingKeys: String, CodingKey {
        case userRecordName, lookupInfo, nameComponents, contactIdentifiers, hasiCloudAccount
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(userRecordName, forKey: .userRecordName)
        try container.encodeIfPresent(lookupInfo, forKey: .lookupInfo)
        try container.encodeIfPresent(nameComponents, forKey: .nameComponents)
        if !contactIdentifiers.isEmpty { try container.encode(contactIdentifiers, forKey: .contactIdentifiers) }
        try container.encode(hasiCloudAccount, forKey: .hasiCloudAccount)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let userRecordName = try container.decodeIfPresent(String.self, forKey: .userRecordName)
        self.init(
            userRecordName: userRecordName,
            lookupInfo: try container.decodeIfPresent(WireUserLookupInfo.self, forKey: .lookupInfo),
            nameComponents: try container.decodeIfPresent(WireNameComponents.self, forKey: .nameComponents),
            contactIdentifiers: try container.decodeIfPresent([String].self, forKey: .contactIdentifiers) ?? [],
            hasiCloudAccount: try container.decodeIfPresent(Bool.self, forKey: .hasiCloudAccount) ?? (userRecordName != nil)
        )
    }
}

/// A lookup info as CKWS writes it: `{emailAddress, phoneNumber, userRecordName}`; a user
/// record ID outside the default zone (which the server refuses) keeps its zone under the
/// Stratus extension `userRecordZoneID`, so the refusal survives the crossing.
extension WireUserLookupInfo: Codable {
    private enum CodingKeys: String, CodingKey {
        case emailAddress, phoneNumber, userRecordName, userRecordZoneID
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(emailAddress, forKey: .emailAddress)
        try container.encodeIfPresent(phoneNumber, forKey: .phoneNumber)
        try container.encodeIfPresent(userRecordID?.recordName, forKey: .userRecordName)
        if let zoneID = userRecordID?.zoneID, zoneID != .defaultZone { try container.encode(zoneID, forKey: .userRecordZoneID) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let zoneID = try container.decodeIfPresent(WireZoneID.self, forKey: .userRecordZoneID) ?? .defaultZone
        self.init(
            emailAddress: try container.decodeIfPresent(String.self, forKey: .emailAddress),
            phoneNumber: try container.decodeIfPresent(String.self, forKey: .phoneNumber),
            userRecordID: try container.decodeIfPresent(String.self, forKey: .userRecordName).map { WireRecordID(recordName: $0, zoneID: zoneID) }
        )
    }
}

/// An enumeration's CKWS name, written and read.
enum JSONEnumeration {
    /// Writes the name `names` pairs with `value` (the first name listed for it); a value
    /// `names` lacks, which only a C enumeration can hold, is written as the first name.
    static func encode<Value: Equatable>(_ value: Value, _ names: [(Value, String)], to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(names.first { $0.0 == value }?.1 ?? names.first?.1 ?? "")
    }

    /// The case `names` pairs with the string `decoder` holds.
    static func decode<Value>(from decoder: any Decoder, _ names: [(Value, String)], what: String) throws -> Value {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let value = names.first(where: { $0.1 == name })?.0 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(name)' is not \(what) (\(names.map(\.1).joined(separator: ", ")))")
        }
        return value
    }
}
