import Foundation

/// `pushes/poll` (a Stratus extension, after CloudKit Web Services' web courier):
/// `{"acknowledging": …}`, the ``WirePushDelivery/id`` of the push handled since the last poll,
/// left out on the first poll (`{}`). The request's context is not in the body
/// (``WireJSON/decode(_:from:context:)``).
extension WirePushPollRequest: Codable {
    private static let json = JSONDictionary(Self.init, .context(\.context), .integer("acknowledging", \.acknowledging))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// One push (a Stratus extension): `{"pushID": …, "notification": {…}}`, the notification as
/// ``WireNotification`` writes it, the remote-notification dictionary a device receives.
extension WirePushDelivery: Codable {
    private static let json = JSONDictionary(Self.init, .integer("pushID", \.id), .required("notification", \.notification))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// The answer to `pushes/poll` (a Stratus extension): `{"delivery": {…}}` with the device's
/// next push, or `{}` when the device is no longer registered for pushes and stops polling.
extension WirePushPollResponse: Codable {
    private static let json = JSONDictionary(Self.init, .optional("delivery", \.delivery))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}
