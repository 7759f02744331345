import Foundation

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

/// Marking notifications read, a Stratus extension in the style of CKWS's lookups.
extension WireMarkNotificationsReadEndpoint: WireJSONItemsRequestEndpoint, WireJSONItemsResponseEndpoint {
    /// The request: `{"notifications": [{"notificationID": …}…]}`. The request's context is not
    /// in the body.
    public static let itemsRequestJSON = JSONDictionary(
        WireMarkNotificationsReadRequest.init, .context(\.context), .ids("notifications", as: "notificationID", \.ids)
    ).coder

    /// The answer: `{"notifications": […]}`, one element per ID, in request order:
    /// `{"notificationID": …, "read": true}`, or an error dictionary with the `notificationID`
    /// beside it.
    public static let itemsResponseJSON = JSONDictionary(
        WireMarkNotificationsReadResponse.init, .results("notifications", \.results, id: .keyed("notificationID"), value: read)
    ).coder

    /// A notification marked read: `{"read": true}`.
    private static let read = WireJSONCoder<Void> { _, encoder in try JSONKey.encode(true, under: "read", to: encoder) } decode: { _ in }
}

/// Setting the badge (a Stratus extension): `{"badgeValue": …}`, required. The request's
/// context is not in the body.
extension WireModifyBadgeRequest: Codable {
    private static let json = JSONDictionary(Self.init, .context(\.context), .integer("badgeValue", \.badgeValue))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}
