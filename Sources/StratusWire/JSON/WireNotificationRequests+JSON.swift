import Foundation

/// The notification collection's changes (a Stratus extension: CloudKit Web Services has no
/// endpoint for the notification collection), in the style of CKWS's change feeds:
/// `{"syncToken": …, "resultsLimit": …}`, the token the bytes of the earlier fetch's in base64
/// (left out on the first fetch), `resultsLimit` left out when 0 (the server chooses). The
/// request's context is not in the body (``WireJSON/decode(_:from:context:)``).
extension WireNotificationChangesRequest: Codable {
    private static let json = JSONDictionary(Self.init, .context(\.context), .bytes("syncToken", \.sinceToken), .limit("resultsLimit", \.resultsLimit))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// The answer to ``WireNotificationChangesRequest`` (a Stratus extension), as CKWS's change
/// feeds answer: `{"notifications": [notification…], "syncToken": …, "moreComing": …}`, each
/// notification as ``WireNotification`` writes it (a read one has only `ck.nid` and `ck.cid`),
/// the token in base64. `syncToken` is required; a missing `moreComing` is `false`.
extension WireNotificationChangesResponse: Codable {
    private static let json = JSONDictionary(
        Self.init,
        .required("notifications", \.notifications),
        .bytes("syncToken", \.token),
        .optional("moreComing", \.moreComing, absent: false)
    )

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// Marking notifications read (a Stratus extension), in the style of CKWS's lookups:
/// `{"notifications": [{"notificationID": …}…]}`. The request's context is not in the body.
extension WireMarkNotificationsReadRequest: Codable {
    private static let json = JSONDictionary(Self.init, .context(\.context), .ids("notifications", as: "notificationID", \.notificationIDs))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// The answer to ``WireMarkNotificationsReadRequest`` (a Stratus extension):
/// `{"notifications": […]}`, one element per ID, in request order: `{"notificationID": …,
/// "read": true}`, or an error dictionary with the `notificationID` beside it.
extension WireMarkNotificationsReadResponse: Codable {
    public func encode(to encoder: any Encoder) throws {
        var list = JSONKey.list(under: "notifications", of: encoder)
        try JSONItems.encode(results, into: &list, id: JSONItems.encodeString("notificationID")) { _, encoder in
            try JSONKey.encode(true, under: "read", to: encoder)
        }
    }

    public init(from decoder: any Decoder) throws {
        var list = try JSONKey.list(under: "notifications", of: decoder)
        self.init(results: try JSONItems.decode(from: &list, id: JSONItems.decodeString("notificationID")) { _ in })
    }
}

/// Setting the badge (a Stratus extension): `{"badgeValue": …}`, required. The request's
/// context is not in the body.
extension WireModifyBadgeRequest: Codable {
    private static let json = JSONDictionary(Self.init, .context(\.context), .integer("badgeValue", \.badgeValue))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}
