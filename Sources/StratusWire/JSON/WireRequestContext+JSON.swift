import Foundation

/// A request's context as JSON (a Stratus extension: over HTTP, CloudKit Web Services carries
/// it in the URL, `…/{container}/{environment}/{database}/…`, and the credentials):
/// `{containerIdentifier, database, deviceID, ckWebAuthToken, operationID, qualityOfService}`,
/// the database `public`, `private` or `shared` as in CKWS paths, the session token under
/// CKWS's name for it.
extension WireRequestContext: Codable {
    private static let json = JSONDictionary(Self.init, .required("containerIdentifier", \.containerIdentifier), .required("database", \.database), .required("deviceID", \.deviceID), .optional("ckWebAuthToken", \.sessionToken), .optional("operationID", \.operationID), .optional("qualityOfService", \.qualityOfService, absent: .default))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// A database as CKWS paths name it: `public`, `private`, `shared` (``WireRoute`` writes the
/// same names in its paths).
extension WireDatabaseScope {
    static let names: [(Self, String)] = allCases.map { ($0, $0.name) }

    /// The database's name in CKWS paths and JSON.
    var name: String {
        switch self {
        case .public: "public"
        case .private: "private"
        case .shared: "shared"
        }
    }

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
