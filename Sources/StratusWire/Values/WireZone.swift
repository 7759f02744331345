/// A record zone as it crosses the client/server boundary: the value twin of `CKRecordZone`.
public struct WireZone: Hashable, Sendable {
    /// What a zone supports: CloudKit's `CKRecordZone.Capabilities`, which Stratus's
    /// `CKRecordZone.Capabilities` is, bit for bit.
    public struct Capabilities: OptionSet, Hashable, Sendable {
        /// The raw bit mask.
        public let rawValue: UInt
        /// Creates a capability set from its bit mask.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The zone's changes can be fetched with a change token.
        public static let fetchChanges = Capabilities(rawValue: 1 << 0)
        /// The zone applies atomic batches all or nothing.
        public static let atomic = Capabilities(rawValue: 1 << 1)
        /// Hierarchies of the zone's records can be shared, each with a `CKShare` created for
        /// its root record.
        public static let sharing = Capabilities(rawValue: 1 << 2)
        /// The zone can be shared as a whole, with one `CKShare` created by
        /// `CKShare(recordZoneID:)`.
        public static let zoneWideSharing = Capabilities(rawValue: 1 << 3)
    }

    /// The zone's identity.
    public var zoneID: WireZoneID
    /// What the server lets the zone do; empty for a zone the client has not saved yet.
    public var capabilities: Capabilities
    /// The zone-wide share, set by the server while the zone is shared as a whole.
    public var share: WireReference?

    /// Creates a zone value.
    public init(zoneID: WireZoneID, capabilities: Capabilities = [], share: WireReference? = nil) {
        self.zoneID = zoneID
        self.capabilities = capabilities
        self.share = share
    }
}
