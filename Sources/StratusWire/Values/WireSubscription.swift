/// A subscription as it crosses the client/server boundary: the value twin of
/// `CKQuerySubscription`, `CKRecordZoneSubscription` and `CKDatabaseSubscription`.
public struct WireSubscription: Hashable, Sendable {
    /// Which changes a subscription watches; the raw values are CloudKit's
    /// `CKSubscriptionType`.
    public enum Kind: Int, Hashable, Sendable, CaseIterable {
        /// Changes to records that match a predicate.
        case query = 1
        /// Every change in one zone.
        case recordZone = 2
        /// Every change in the database's custom zones.
        case database = 3
    }

    /// When a query subscription fires: CloudKit's `CKQuerySubscription.Options`, which
    /// Stratus's `CKQuerySubscription.Options` is, bit for bit.
    public struct QueryOptions: OptionSet, Hashable, Sendable {
        /// The raw bit mask, CloudKit's `CKQuerySubscriptionOptions`.
        public let rawValue: UInt
        /// Creates options from their bit mask.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Fires when a matching record is created.
        public static let firesOnRecordCreation = QueryOptions(rawValue: 1 << 0)
        /// Fires when a record that matches after the change is updated.
        public static let firesOnRecordUpdate = QueryOptions(rawValue: 1 << 1)
        /// Fires when a matching record is deleted.
        public static let firesOnRecordDeletion = QueryOptions(rawValue: 1 << 2)
        /// Fires once, after which the server deletes the subscription.
        public static let firesOnce = QueryOptions(rawValue: 1 << 3)
    }

    /// The subscription's ID, unique among the owner's subscriptions in the database.
    public var subscriptionID: String
    /// Which changes it watches.
    public var kind: Kind
    /// The record type a query subscription watches, or the type a zone or database
    /// subscription is limited to (nil: every type).
    public var recordType: String?
    /// A query subscription's predicate; nil for the other kinds.
    public var predicate: WirePredicate?
    /// A zone subscription's zone, or the zone a query subscription is limited to (nil: every
    /// zone).
    public var zoneID: WireZoneID?
    /// When a query subscription fires; empty for the other kinds.
    public var queryOptions: QueryOptions
    /// What the push says; the server refuses a subscription without it.
    public var notificationInfo: WireNotificationInfo?

    /// Creates a subscription value.
    public init(
        subscriptionID: String,
        kind: Kind,
        recordType: String? = nil,
        predicate: WirePredicate? = nil,
        zoneID: WireZoneID? = nil,
        queryOptions: QueryOptions = [],
        notificationInfo: WireNotificationInfo? = nil
    ) {
        self.subscriptionID = subscriptionID
        self.kind = kind
        self.recordType = recordType
        self.predicate = predicate
        self.zoneID = zoneID
        self.queryOptions = queryOptions
        self.notificationInfo = notificationInfo
    }
}

extension WireSubscription.QueryOptions {
    /// Every option CloudKit defines.
    package static let all: Self = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion, .firesOnce]
}
