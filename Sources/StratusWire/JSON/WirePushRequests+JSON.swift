import Foundation

/// `pushes/poll` (a Stratus extension, after CloudKit Web Services' web courier):
/// `{"acknowledging": …}`, the ``WirePushDelivery/id`` of the push handled since the last poll,
/// left out on the first poll (`{}`). The request's context is not in the body
/// (``WireJSON/decode(_:from:context:)``).
extension WirePushPollRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case acknowledging
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(acknowledging, forKey: .acknowledging)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(context: try decoder.requestContext(), acknowledging: try JSONInteger.decodeIfPresent(forKey: .acknowledging, in: container))
    }
}

/// One push (a Stratus extension): `{"pushID": …, "notification": {…}}`, the notification as
/// ``WireNotification`` writes it, the remote-notification dictionary a device receives.
extension WirePushDelivery: Codable {
    private enum CodingKeys: String, CodingKey {
        case pushID, notification
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .pushID)
        try container.encode(notification, forKey: .notification)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try JSONInteger.decode(forKey: .pushID, in: container), notification: try container.decode(WireNotification.self, forKey: .notification))
    }
}

/// The answer to `pushes/poll` (a Stratus extension): `{"delivery": {…}}` with the device's
/// next push, or `{}` when the device is no longer registered for pushes and stops polling.
extension WirePushPollResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case delivery
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(delivery, forKey: .delivery)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(delivery: try container.decodeIfPresent(WirePushDelivery.self, forKey: .delivery))
    }
}
