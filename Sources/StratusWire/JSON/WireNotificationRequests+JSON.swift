import Foundation

/// The notification collection's changes (a Stratus extension: CloudKit Web Services has no
/// endpoint for the notification collection), in the style of CKWS's change feeds:
/// `{"syncToken": …, "resultsLimit": …}`, the token the bytes of the earlier fetch's in base64
/// (left out on the first fetch), `resultsLimit` left out when 0 (the server chooses). The
/// request's context is not in the body (``WireJSON/decode(_:from:context:)``).
extension WireNotificationChangesRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case syncToken, resultsLimit
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try JSONOpaqueBytes.encode(sinceToken, forKey: .syncToken, in: &container)
        if resultsLimit != 0 { try container.encode(resultsLimit, forKey: .resultsLimit) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            context: try decoder.requestContext(),
            sinceToken: try JSONOpaqueBytes.decode(forKey: .syncToken, in: container),
            resultsLimit: try JSONInteger.decodeIfPresent(forKey: .resultsLimit, in: container) ?? 0
        )
    }
}

/// The answer to ``WireNotificationChangesRequest`` (a Stratus extension), as CKWS's change
/// feeds answer: `{"notifications": [notification…], "syncToken": …, "moreComing": …}`, each
/// notification as ``WireNotification`` writes it (a read one has only `ck.nid` and `ck.cid`),
/// the token in base64. `syncToken` is required; a missing `moreComing` is `false`.
extension WireNotificationChangesResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case notifications, syncToken, moreComing
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(notifications, forKey: .notifications)
        try JSONOpaqueBytes.encode(token, forKey: .syncToken, in: &container)
        try container.encode(moreComing, forKey: .moreComing)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let token = try JSONOpaqueBytes.decode(forKey: .syncToken, in: container) else {
            throw DecodingError.keyNotFound(CodingKeys.syncToken, DecodingError.Context(codingPath: container.codingPath, debugDescription: "the answer carries the token to fetch from next time"))
        }
        self.init(
            notifications: try container.decode([WireNotification].self, forKey: .notifications),
            token: token,
            moreComing: try container.decodeIfPresent(Bool.self, forKey: .moreComing) ?? false
        )
    }
}

/// Marking notifications read (a Stratus extension), in the style of CKWS's lookups:
/// `{"notifications": [{"notificationID": …}…]}`. The request's context is not in the body.
extension WireMarkNotificationsReadRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case notifications
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .notifications)
        for notificationID in notificationIDs {
            try JSONItems.encodeString("notificationID")(notificationID, list.superEncoder())
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .notifications)
        var notificationIDs: [String] = []
        while !list.isAtEnd {
            notificationIDs.append(try JSONItems.decodeString("notificationID")(try list.superDecoder()))
        }
        self.init(context: try decoder.requestContext(), notificationIDs: notificationIDs)
    }
}

/// The answer to ``WireMarkNotificationsReadRequest`` (a Stratus extension):
/// `{"notifications": […]}`, one element per ID, in request order: `{"notificationID": …,
/// "read": true}`, or an error dictionary with the `notificationID` beside it.
extension WireMarkNotificationsReadResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case notifications
    }

    private enum ReadKeys: String, CodingKey {
        case read
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list: any UnkeyedEncodingContainer = container.nestedUnkeyedContainer(forKey: .notifications)
        try JSONItems.encode(results, into: &list, id: JSONItems.encodeString("notificationID")) { _, encoder in
            var item = encoder.container(keyedBy: ReadKeys.self)
            try item.encode(true, forKey: .read)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list: any UnkeyedDecodingContainer = try container.nestedUnkeyedContainer(forKey: .notifications)
        self.init(results: try JSONItems.decode(from: &list, id: JSONItems.decodeString("notificationID")) { _ in })
    }
}

/// Setting the badge (a Stratus extension): `{"badgeValue": …}`, required. The request's
/// context is not in the body.
extension WireModifyBadgeRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case badgeValue
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(badgeValue, forKey: .badgeValue)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(context: try decoder.requestContext(), badgeValue: try JSONInteger.decode(forKey: .badgeValue, in: container))
    }
}
