import Foundation

/// A request's context as JSON (a Stratus extension: over HTTP, CloudKit Web Services carries
/// it in the URL, `…/{container}/{environment}/{database}/…`, and the credentials):
/// `{containerIdentifier, database, deviceID, ckWebAuthToken, operationID, qualityOfService}`,
/// the database `public`, `private` or `shared` as in CKWS paths, the session token under
/// CKWS's name for it.
extension WireRequestContext: Codable {
    private enum CodingKeys: String, CodingKey {
        case containerIdentifier, database, deviceID, ckWebAuthToken, operationID, qualityOfService
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(containerIdentifier, forKey: .containerIdentifier)
        try container.encode(database, forKey: .database)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encodeIfPresent(sessionToken, forKey: .ckWebAuthToken)
        try container.encodeIfPresent(operationID, forKey: .operationID)
        try container.encode(qualityOfService, forKey: .qualityOfService)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            containerIdentifier: try container.decode(String.self, forKey: .containerIdentifier),
            database: try container.decode(WireDatabaseScope.self, forKey: .database),
            deviceID: try container.decode(String.self, forKey: .deviceID),
            sessionToken: try container.decodeIfPresent(String.self, forKey: .ckWebAuthToken),
            operationID: try container.decodeIfPresent(String.self, forKey: .operationID),
            qualityOfService: try container.decodeIfPresent(WireQualityOfService.self, forKey: .qualityOfService) ?? .default
        )
    }
}

/// A database as CKWS paths name it: `public`, `private`, `shared`.
extension WireDatabaseScope {
    private static let names: [(Self, String)] = [(.public, "public"), (.private, "private"), (.shared, "shared")]

    public func encode(to encoder: any Encoder) throws {
        try JSONEnumeration.encode(self, Self.names, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "a database (public, private, shared)")
    }
}

/// A quality of service by its Foundation name: `userInteractive`, `userInitiated`, `default`,
/// `utility`, `background`.
extension WireQualityOfService {
    private static let names: [(Self, String)] = [
        (.userInteractive, "userInteractive"), (.userInitiated, "userInitiated"), (.default, "default"), (.utility, "utility"), (.background, "background"),
    ]

    public func encode(to encoder: any Encoder) throws {
        try JSONEnumeration.encode(self, Self.names, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "a quality of service")
    }
}
