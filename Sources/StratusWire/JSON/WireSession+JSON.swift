import Foundation

/// `session/open`, a Stratus extension (CloudKit Web Services signs a user in through a web
/// page instead): `{"containerIdentifier": …, "deviceID": …, "account": …}`, `deviceID` absent
/// to register a new device, `account` absent to sign the device out. The request carries no
/// ``WireRequestContext``: it is what makes one.
extension WireSessionRequest: Codable {
    private static let json = JSONDictionary(Self.init, .required("containerIdentifier", \.containerIdentifier), .optional("deviceID", \.deviceID), .optional("account", \.account))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// The answer to `session/open`, a Stratus extension: `{"deviceID": …, "ckWebAuthToken": …}`,
/// the session token under CKWS's name for the token a signed-in web client carries; absent
/// when the device is signed out.
extension WireSession: Codable {
    private static let json = JSONDictionary(Self.init, .required("deviceID", \.deviceID), .optional("ckWebAuthToken", \.sessionToken))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}
