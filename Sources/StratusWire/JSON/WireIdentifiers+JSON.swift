import Foundation

/// A zone ID as CloudKit Web Services writes it: `{"zoneName": …, "ownerRecordName": …}`
/// (the owner key is `ownerRecordName`, not `ownerName`). Decoding defaults a missing
/// `zoneName` to `_defaultZone` and a missing owner to the caller (`__defaultOwner__`), as CKWS
/// does; Stratus writes both. `zoneType`, which live CKWS responses add, is ignored.
extension WireZoneID: Codable {
    private static let json = JSONDictionary(Self.init, .optional("zoneName", \.zoneName, absent: WireZoneID.defaultZoneName), .optional("ownerRecordName", \.ownerName, absent: WireZoneID.currentUserOwnerName))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// A record ID: `{"recordName": …, "zoneID": {…}}`, CKWS's lookup item with the zone beside
/// the name (a Stratus request may name records of several zones). A missing `zoneID` is the
/// default zone.
extension WireRecordID: Codable {
    private static let json = JSONDictionary(Self.init, .required("recordName", \.recordName), .optional("zoneID", \.zoneID, absent: .defaultZone))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// A reference as CKWS writes it: `{"recordName": …, "zoneID": {…}, "action": "NONE"}`, the
/// action `NONE` or `DELETE_SELF`. A missing action is `NONE`; CKWS's `VALIDATE`, which
/// CloudKit's native API does not have, is `invalidArguments`.
extension WireReference: Codable {
    private enum CodingKeys: String, CodingKey {
        case recordName, zoneID, action
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(recordID.recordName, forKey: .recordName)
        try container.encode(recordID.zoneID, forKey: .zoneID)
        try container.encode(action == .deleteSelf ? "DELETE_SELF" : "NONE", forKey: .action)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let action: Action
        switch try container.decodeIfPresent(String.self, forKey: .action) ?? "NONE" {
        case "NONE": action = .none
        case "DELETE_SELF": action = .deleteSelf
        case let other: throw DecodingError.invalid(CodingKeys.action, in: container, "'\(other)' is not a reference action (NONE or DELETE_SELF)")
        }
        self.init(
            recordID: WireRecordID(
                recordName: try container.decode(String.self, forKey: .recordName),
                zoneID: try container.decodeIfPresent(WireZoneID.self, forKey: .zoneID) ?? .defaultZone
            ),
            action: action
        )
    }
}

/// A location as CKWS writes it: `latitude`, `longitude`, `horizontalAccuracy`,
/// `verticalAccuracy`, `altitude`, `speed`, `course`, and `timestamp` in milliseconds (with
/// `stratusDate` when that is not exact). Only the coordinates are required.
extension WireLocation: Codable {
    private enum CodingKeys: String, CodingKey {
        case latitude, longitude, horizontalAccuracy, verticalAccuracy, altitude, speed, course, timestamp, stratusDate
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encode(horizontalAccuracy, forKey: .horizontalAccuracy)
        try container.encode(verticalAccuracy, forKey: .verticalAccuracy)
        try container.encode(altitude, forKey: .altitude)
        try container.encode(speed, forKey: .speed)
        try container.encode(course, forKey: .course)
        try container.encode(JSONTimestamp.milliseconds(timestamp), forKey: .timestamp)
        try container.encodeIfPresent(JSONTimestamp.exactSeconds(timestamp), forKey: .stratusDate)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var timestamp = Date(timeIntervalSinceReferenceDate: 0)
        if let milliseconds = try container.decodeIfPresent(Double.self, forKey: .timestamp) {
            guard let date = JSONTimestamp.date(milliseconds: milliseconds, exact: try container.decodeIfPresent(Double.self, forKey: .stratusDate)) else {
                throw DecodingError.invalid(CodingKeys.timestamp, in: container, "\(milliseconds) is not a timestamp")
            }
            timestamp = date
        }
        self.init(
            latitude: try container.decode(Double.self, forKey: .latitude),
            longitude: try container.decode(Double.self, forKey: .longitude),
            altitude: try container.decodeIfPresent(Double.self, forKey: .altitude) ?? 0,
            horizontalAccuracy: try container.decodeIfPresent(Double.self, forKey: .horizontalAccuracy) ?? 0,
            verticalAccuracy: try container.decodeIfPresent(Double.self, forKey: .verticalAccuracy) ?? -1,
            course: try container.decodeIfPresent(Double.self, forKey: .course) ?? -1,
            speed: try container.decodeIfPresent(Double.self, forKey: .speed) ?? -1,
            timestamp: timestamp
        )
    }
}
