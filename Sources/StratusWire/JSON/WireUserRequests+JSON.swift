import Foundation

/// An account status as a Stratus extension names it (CloudKit Web Services has no endpoint
/// for it; a CKWS client reads it from `users/caller`): `COULD_NOT_DETERMINE`, `AVAILABLE`,
/// `RESTRICTED`, `NO_ACCOUNT`, `TEMPORARILY_UNAVAILABLE`. The answer is the bare string.
extension WireAccountStatus: Codable {
    private static let names: [(Self, String)] = [
        (.couldNotDetermine, "COULD_NOT_DETERMINE"), (.available, "AVAILABLE"), (.restricted, "RESTRICTED"),
        (.noAccount, "NO_ACCOUNT"), (.temporarilyUnavailable, "TEMPORARILY_UNAVAILABLE"),
    ]

    public func encode(to encoder: any Encoder) throws {
        try JSONEnumeration.encode(self, Self.names, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "an account status")
    }
}

/// The answer to `users/current` as CKWS writes it: `{"userRecordName": …}` (CKWS's
/// `firstName` and `lastName`, which Stratus does not give, are ignored).
extension WireCurrentUserResponse: Codable {
    private static let json = JSONDictionary(Self.init, .required("userRecordName", \.userRecordName))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// `users/discover` (POST) as CKWS shapes it.
extension WireUsersEndpoint: WireJSONItemsRequestEndpoint {
    /// The request: `{"lookupInfos": [{emailAddress | phoneNumber | userRecordName}, …]}`.
    public static let itemsRequestJSON = JSONDictionary(WireUsersLookupRequest.init, .context(\.context), .required("lookupInfos", \.ids)).coder
}

/// The answer to `users/discover` as CKWS writes it: `{"users": […]}`, one element per lookup
/// info in order, so that each keeps its position: the user identity, or, where no user
/// matches, CKWS's per-item error `{"serverErrorCode": "NOT_FOUND", …}`. Decoding also takes
/// `null` for no user; any other error is `invalidArguments` naming the element.
extension WireUsersLookupResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case users
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var users = container.nestedUnkeyedContainer(forKey: .users)
        for result in results {
            if let identity = result {
                try users.encode(identity)
            } else {
                try users.encode(WireError(.unknownItem, "no discoverable user matches the lookup info"))
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var users = try container.nestedUnkeyedContainer(forKey: .users)
        var results: [WireUserIdentity?] = []
        while !users.isAtEnd {
            if try users.decodeNil() {
                results.append(nil)
                continue
            }
            let element = try users.superDecoder()
            guard try element.container(keyedBy: JSONKey.self).contains(JSONKey("serverErrorCode")) else {
                results.append(try WireUserIdentity(from: element))
                continue
            }
            let error = try WireError(from: element)
            guard error.code == .unknownItem else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: element.codingPath,
                    debugDescription: "a user lookup answers a user or NOT_FOUND, not \(WireError.serverErrorCode(for: error.code)): \(error.message)"
                ))
            }
            results.append(nil)
        }
        self.init(results: results)
    }
}

/// The answer to `users/lookup/contacts` as CKWS writes it: `{"users": [identity, …]}`.
extension WireUsersContactsResponse: Codable {
    private static let json = JSONDictionary(Self.init, .required("users", \.identities))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// Application permissions as a Stratus extension writes them (CKWS has no endpoint for
/// them): an array of names, `["USER_DISCOVERABILITY"]`; a bit the names do not cover goes
/// out as its number, so that the server, not the coding, refuses it.
extension WireApplicationPermissions: Codable {
    private static let names: [(Self, String)] = [(.userDiscoverability, "USER_DISCOVERABILITY")]

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        var rest = rawValue
        for (permission, name) in Self.names where contains(permission) {
            try container.encode(name)
            rest &= ~permission.rawValue
        }
        for bit in 0..<UInt.bitWidth where rest & (1 << bit) != 0 {
            try container.encode(UInt(1) << bit)
        }
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var permissions: WireApplicationPermissions = []
        while !container.isAtEnd {
            let element = try container.superDecoder().singleValueContainer()
            if let name = try? element.decode(String.self) {
                guard let permission = Self.names.first(where: { $0.1 == name })?.0 else {
                    let known = Self.names.map(\.1).joined(separator: ", ")
                    throw DecodingError.dataCorruptedError(in: element, debugDescription: "'\(name)' is not an application permission (\(known))")
                }
                permissions.insert(permission)
                continue
            }
            do {
                permissions.insert(WireApplicationPermissions(rawValue: try element.decode(UInt.self)))
            } catch let error as DecodingError {
                throw error
            } catch {
                // Foundation's error for a number out of range names no key.
                throw DecodingError.dataCorruptedError(in: element, debugDescription: "a permission is a name or a number of at most \(UInt.max) (\(error))")
            }
        }
        self = permissions
    }
}

/// An application permission's status as a Stratus extension names it: `INITIAL_STATE`,
/// `COULD_NOT_COMPLETE`, `DENIED`, `GRANTED`. The answer is the bare string.
extension WireApplicationPermissionStatus: Codable {
    private static let names: [(Self, String)] = [
        (.initialState, "INITIAL_STATE"), (.couldNotComplete, "COULD_NOT_COMPLETE"), (.denied, "DENIED"), (.granted, "GRANTED"),
    ]

    public func encode(to encoder: any Encoder) throws {
        try JSONEnumeration.encode(self, Self.names, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "an application permission status")
    }
}

/// Reading or requesting an application permission, a Stratus extension:
/// `{"permission": ["USER_DISCOVERABILITY"]}` (``WireApplicationPermissions``).
extension WireApplicationPermissionRequest: Codable {
    private static let json = JSONDictionary(Self.init, .context(\.context), .required("permission", \.permission))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}
