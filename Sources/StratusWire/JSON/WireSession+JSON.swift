import Foundation

/// `session/open`, a Stratus extension (CloudKit Web Services signs a user in through a web
/// page instead): `{"containerIdentifier": …, "deviceID": …, "account": …}`, `deviceID` absent
/// to register a new device, `account` absent to sign the device out. The request carries no
/// ``WireRequestContext``: it is what makes one.
extension WireSessionRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case containerIdentifier, deviceID, account
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(containerIdentifier, forKey: .containerIdentifier)
        try container.encodeIfPresent(deviceID, forKey: .deviceID)
        try container.encodeIfPresent(account, forKey: .account)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            containerIdentifier: try container.decode(String.self, forKey: .containerIdentifier),
            deviceID: try container.decodeIfPresent(String.self, forKey: .deviceID),
            account: try container.decodeIfPresent(String.self, forKey: .account)
        )
    }
}

/// The answer to `session/open`, a Stratus extension: `{"deviceID": …, "ckWebAuthToken": …}`,
/// the session token under CKWS's name for the token a signed-in web client carries; absent
/// when the device is signed out.
extension WireSession: Codable {
    private enum CodingKeys: String, CodingKey {
        case deviceID, ckWebAuthToken
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encodeIfPresent(sessionToken, forKey: .ckWebAuthToken)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            deviceID: try container.decode(String.self, forKey: .deviceID),
            sessionToken: try container.decodeIfPresent(String.self, forKey: .ckWebAuthToken)
        )
    }
}
