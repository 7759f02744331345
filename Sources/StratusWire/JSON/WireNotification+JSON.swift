import Foundation

/// A notification as JSON (a Stratus extension: CloudKit Web Services has no endpoint that
/// returns notifications, only the web courier, whose answers are shaped like an APNs
/// payload): the remote-notification dictionary a device receives for it, with the keys
/// ``RemoteNotificationPayload`` writes (§9.2 of the reference), and a few extension keys so
/// that every property comes back exactly:
///
/// ```
/// {
///   "aps": { "alert": { "body", "loc-key", "loc-args", "title", "title-loc-key",
///                       "title-loc-args", "subtitle", "subtitle-loc-key",
///                       "subtitle-loc-args", "action-loc-key", "launch-image" },
///            "sound", "badge", "category", "content-available": 1, "mutable-content": 1 },
///   "ck": { "nid", "cid", "ckuserid", "p": 1,
///           "qry": { "sid", "dbs", "fo", "rid", "zid", "zoid", "af": { field: fieldValue } },
///                                                       // or, by kind:
///           "fet": { "sid", "dbs", "zid", "zoid" },    // a zone notification
///           "met": { "sid", "dbs" } },                 // a database notification
///   "apns-collapse-id": String
/// }
/// ```
///
/// As in the push: only the keys that are set are written (no `alert` or `aps` when empty);
/// `dbs` is the database scope's number (1 public, 2 private, 3 shared), `fo` the query reason's
/// (1 created, 2 updated, 3 deleted); `p` marks a pruned notification; a read notification has
/// none of `qry`, `fet` and `met`. Decoding takes `alert` as a bare string (the body) too, as
/// APNs allows.
///
/// The Stratus extensions:
/// - `af` holds CKWS field values (`{"value": …, "type": "DOUBLE"}`) rather than the push's
///   bare values, so that an integer and a whole double stay apart; the client writes the
///   push's form when it makes the device's dictionary.
/// - `apns-collapse-id`: the collapse ID, an APNs header rather than part of the payload.
/// - A property the notification's kind has no key for travels in its body too: `fo` and `af`
///   as they are, a record ID as `recordID` (``WireRecordID``'s JSON) beside `fet` or `met`'s
///   keys, a zone ID as `zoneID` beside `qry` or `met`'s; and a read notification that has any
///   of them (or a database other than the private one) carries them under `read`.
extension WireNotification: Codable {
    private enum CodingKeys: String, CodingKey {
        case aps, ck
        case collapseID = "apns-collapse-id"
    }

    private enum APSKeys: String, CodingKey {
        case alert, sound, badge, category
        case contentAvailable = "content-available"
        case mutableContent = "mutable-content"
    }

    private enum AlertKeys: String, CodingKey {
        case body, title, subtitle
        case locKey = "loc-key"
        case locArgs = "loc-args"
        case titleLocKey = "title-loc-key"
        case titleLocArgs = "title-loc-args"
        case subtitleLocKey = "subtitle-loc-key"
        case subtitleLocArgs = "subtitle-loc-args"
        case actionLocKey = "action-loc-key"
        case launchImage = "launch-image"
    }

    private enum CKKeys: String, CodingKey {
        case nid, cid, ckuserid, p, qry, fet, met, read
    }

    private enum BodyKeys: String, CodingKey {
        case sid, dbs, fo, rid, zid, zoid, af, recordID, zoneID
    }

    /// The `ck` key of each kind's body.
    private static let bodyKeys: [(Kind, CKKeys)] = [(.query, .qry), (.recordZone, .fet), (.database, .met), (.readNotification, .read)]

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if hasAPS { try encodeAPS(into: container.nestedContainer(keyedBy: APSKeys.self, forKey: .aps)) }

        var ck = container.nestedContainer(keyedBy: CKKeys.self, forKey: .ck)
        try ck.encodeIfPresent(notificationID, forKey: .nid)
        try ck.encodeIfPresent(containerIdentifier, forKey: .cid)
        try ck.encodeIfPresent(subscriptionOwnerUserRecordName, forKey: .ckuserid)
        if isPruned { try ck.encode(1, forKey: .p) }
        let hasReadBody = subscriptionID != nil || databaseScope != .private || queryReason != nil || recordID != nil || zoneID != nil || recordFields != nil
        if kind != .readNotification || hasReadBody, let key = Self.bodyKeys.first(where: { $0.0 == kind })?.1 {
            try encodeBody(into: ck.nestedContainer(keyedBy: BodyKeys.self, forKey: key))
        }

        try container.encodeIfPresent(collapseID, forKey: .collapseID)
    }

    /// Whether the notification has anything for `aps`.
    private var hasAPS: Bool {
        hasAlert || soundName != nil || badge != nil || category != nil || contentAvailable || mutableContent
    }

    /// Whether the notification has anything for `aps.alert`.
    private var hasAlert: Bool {
        [alertBody, alertLocalizationKey, title, titleLocalizationKey, subtitle, subtitleLocalizationKey, alertActionLocalizationKey, alertLaunchImage].contains { $0 != nil }
            || [alertLocalizationArgs, titleLocalizationArgs, subtitleLocalizationArgs].contains { $0 != nil }
    }

    private func encodeAPS(into aps: KeyedEncodingContainer<APSKeys>) throws {
        var aps = aps
        if hasAlert {
            var alert = aps.nestedContainer(keyedBy: AlertKeys.self, forKey: .alert)
            try alert.encodeIfPresent(alertBody, forKey: .body)
            try alert.encodeIfPresent(alertLocalizationKey, forKey: .locKey)
            try alert.encodeIfPresent(alertLocalizationArgs, forKey: .locArgs)
            try alert.encodeIfPresent(title, forKey: .title)
            try alert.encodeIfPresent(titleLocalizationKey, forKey: .titleLocKey)
            try alert.encodeIfPresent(titleLocalizationArgs, forKey: .titleLocArgs)
            try alert.encodeIfPresent(subtitle, forKey: .subtitle)
            try alert.encodeIfPresent(subtitleLocalizationKey, forKey: .subtitleLocKey)
            try alert.encodeIfPresent(subtitleLocalizationArgs, forKey: .subtitleLocArgs)
            try alert.encodeIfPresent(alertActionLocalizationKey, forKey: .actionLocKey)
            try alert.encodeIfPresent(alertLaunchImage, forKey: .launchImage)
        }
        try aps.encodeIfPresent(soundName, forKey: .sound)
        try aps.encodeIfPresent(badge, forKey: .badge)
        try aps.encodeIfPresent(category, forKey: .category)
        if contentAvailable { try aps.encode(1, forKey: .contentAvailable) }
        if mutableContent { try aps.encode(1, forKey: .mutableContent) }
    }

    private func encodeBody(into body: KeyedEncodingContainer<BodyKeys>) throws {
        var body = body
        try body.encodeIfPresent(subscriptionID, forKey: .sid)
        try body.encode(databaseScope.rawValue, forKey: .dbs)
        try body.encodeIfPresent(queryReason?.rawValue, forKey: .fo)
        if kind == .query, let recordID {
            try body.encode(recordID.recordName, forKey: .rid)
            try body.encode(recordID.zoneID.zoneName, forKey: .zid)
            try body.encode(recordID.zoneID.ownerName, forKey: .zoid)
        } else {
            try body.encodeIfPresent(recordID, forKey: .recordID)
        }
        if kind == .recordZone, let zoneID {
            try body.encode(zoneID.zoneName, forKey: .zid)
            try body.encode(zoneID.ownerName, forKey: .zoid)
        } else {
            try body.encodeIfPresent(zoneID, forKey: .zoneID)
        }
        try body.encodeIfPresent(recordFields, forKey: .af)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let ck = try container.nestedContainer(keyedBy: CKKeys.self, forKey: .ck)
        let bodies = Self.bodyKeys.filter { ck.contains($0.1) }
        guard bodies.count <= 1 else {
            throw DecodingError.invalid(CodingKeys.ck, in: container, "a notification has one of qry, fet, met and read, not \(bodies.map(\.1.stringValue).joined(separator: " and "))")
        }
        self.init(kind: bodies.first?.0 ?? .readNotification)
        notificationID = try ck.decodeIfPresent(String.self, forKey: .nid)
        containerIdentifier = try ck.decodeIfPresent(String.self, forKey: .cid)
        subscriptionOwnerUserRecordName = try ck.decodeIfPresent(String.self, forKey: .ckuserid)
        isPruned = try JSONInteger.decodeIfPresent(forKey: .p, in: ck) != nil
        if let key = bodies.first?.1 {
            try decodeBody(ck.nestedContainer(keyedBy: BodyKeys.self, forKey: key))
        }
        if container.contains(.aps) {
            try decodeAPS(container.nestedContainer(keyedBy: APSKeys.self, forKey: .aps))
        }
        collapseID = try container.decodeIfPresent(String.self, forKey: .collapseID)
    }

    private mutating func decodeBody(_ body: KeyedDecodingContainer<BodyKeys>) throws {
        subscriptionID = try body.decodeIfPresent(String.self, forKey: .sid)
        if let number = try JSONInteger.decodeIfPresent(forKey: .dbs, in: body) {
            guard let scope = WireDatabaseScope(rawValue: number) else {
                throw DecodingError.invalid(BodyKeys.dbs, in: body, "\(number) is not a database scope (1 public, 2 private, 3 shared)")
            }
            databaseScope = scope
        }
        if let number = try JSONInteger.decodeIfPresent(forKey: .fo, in: body) {
            guard let reason = QueryReason(rawValue: number) else {
                throw DecodingError.invalid(BodyKeys.fo, in: body, "\(number) is not a query notification reason (1 created, 2 updated, 3 deleted)")
            }
            queryReason = reason
        }
        switch kind {
        case .query where body.contains(.rid):
            recordID = WireRecordID(recordName: try body.decode(String.self, forKey: .rid), zoneID: try Self.zoneID(in: body))
        case .recordZone where body.contains(.zid) || body.contains(.zoid):
            zoneID = try Self.zoneID(in: body)
        default:
            break
        }
        recordID = try recordID ?? body.decodeIfPresent(WireRecordID.self, forKey: .recordID)
        zoneID = try zoneID ?? body.decodeIfPresent(WireZoneID.self, forKey: .zoneID)
        recordFields = try body.decodeIfPresent([String: WireFieldValue].self, forKey: .af)
    }

    /// The zone `zid` and `zoid` name; both are needed.
    private static func zoneID(in body: KeyedDecodingContainer<BodyKeys>) throws -> WireZoneID {
        WireZoneID(zoneName: try body.decode(String.self, forKey: .zid), ownerName: try body.decode(String.self, forKey: .zoid))
    }

    private mutating func decodeAPS(_ aps: KeyedDecodingContainer<APSKeys>) throws {
        if let body = try? aps.decode(String.self, forKey: .alert) {
            alertBody = body
        } else if aps.contains(.alert) {
            let alert = try aps.nestedContainer(keyedBy: AlertKeys.self, forKey: .alert)
            alertBody = try alert.decodeIfPresent(String.self, forKey: .body)
            alertLocalizationKey = try alert.decodeIfPresent(String.self, forKey: .locKey)
            alertLocalizationArgs = try alert.decodeIfPresent([String].self, forKey: .locArgs)
            title = try alert.decodeIfPresent(String.self, forKey: .title)
            titleLocalizationKey = try alert.decodeIfPresent(String.self, forKey: .titleLocKey)
            titleLocalizationArgs = try alert.decodeIfPresent([String].self, forKey: .titleLocArgs)
            subtitle = try alert.decodeIfPresent(String.self, forKey: .subtitle)
            subtitleLocalizationKey = try alert.decodeIfPresent(String.self, forKey: .subtitleLocKey)
            subtitleLocalizationArgs = try alert.decodeIfPresent([String].self, forKey: .subtitleLocArgs)
            alertActionLocalizationKey = try alert.decodeIfPresent(String.self, forKey: .actionLocKey)
            alertLaunchImage = try alert.decodeIfPresent(String.self, forKey: .launchImage)
        }
        soundName = try aps.decodeIfPresent(String.self, forKey: .sound)
        badge = try JSONInteger.decodeIfPresent(forKey: .badge, in: aps)
        category = try aps.decodeIfPresent(String.self, forKey: .category)
        contentAvailable = try (JSONInteger.decodeIfPresent(forKey: .contentAvailable, in: aps) ?? 0) != 0
        mutableContent = try (JSONInteger.decodeIfPresent(forKey: .mutableContent, in: aps) ?? 0) != 0
    }
}
