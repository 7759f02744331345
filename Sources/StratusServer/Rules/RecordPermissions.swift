/// Who may read, create and write records of one type in a container's public database: the
/// security roles CloudKit's dashboard sets per record type.
///
/// Three roles: `world` (anyone, signed in or not), `authenticated` (any signed-in user) and
/// `creator` (the user who created the record). A request gets the grants of every role it
/// holds. The private database ignores them: its owner may do anything there.
///
/// ```swift
/// var party = RecordPermissions.default
/// party.authenticated.insert(.write)        // any signed-in user may edit a Party
/// server.setPermissions(party, forRecordType: "Party", containerIdentifier: "iCloud.com.example.clowns")
/// ```
public struct RecordPermissions: Hashable, Sendable {
    /// What a role may do.
    public struct Grants: OptionSet, Hashable, Sendable {
        /// The raw bit mask.
        public let rawValue: UInt8
        /// Creates grants from their bit mask.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Fetch and query records.
        public static let read = Grants(rawValue: 1 << 0)
        /// Save new records.
        public static let create = Grants(rawValue: 1 << 1)
        /// Change and delete existing records.
        public static let write = Grants(rawValue: 1 << 2)
    }

    /// Anyone, also without an account.
    public var world: Grants
    /// Any signed-in user.
    public var authenticated: Grants
    /// The user who created the record.
    public var creator: Grants

    /// Creates a set of role grants.
    public init(world: Grants, authenticated: Grants, creator: Grants) {
        self.world = world
        self.authenticated = authenticated
        self.creator = creator
    }

    /// CloudKit's default: everyone reads, signed-in users create, the creator writes.
    public static let `default` = RecordPermissions(world: [.read], authenticated: [.read, .create], creator: [.read, .write])

    /// The grants of a requester.
    func grants(signedIn: Bool, isCreator: Bool) -> Grants {
        var grants = world
        if signedIn { grants.formUnion(authenticated) }
        if isCreator { grants.formUnion(creator) }
        return grants
    }
}
