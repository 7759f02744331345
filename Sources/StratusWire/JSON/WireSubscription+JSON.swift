import Foundation

/// A subscription's type as CloudKit Web Services names it in `subscriptionType`: `query`,
/// `zone`, and, as a Stratus extension (CKWS has no database subscriptions), `database`.
extension WireSubscription.Kind: Codable {
    private static let names: [(Self, String)] = [(.query, "query"), (.recordZone, "zone"), (.database, "database")]

    public func encode(to encoder: any Encoder) throws {
        try JSONEnumeration.encode(self, Self.names, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "a subscription type")
    }
}

/// A subscription as CloudKit Web Services writes it (§9.1 of the reference):
///
/// ```
/// {"subscriptionID": …, "subscriptionType": "query" | "zone" | "database",
///  "query": {"recordType": …, "filterBy": […]},        // or "stratusPredicate" (see WireQuery)
///  "zoneID": {…}, "zoneWide": true,
///  "firesOn": ["create", "update", "delete"], "firesOnce": false,
///  "notificationInfo": {…}}
/// ```
///
/// - `subscriptionType` `database` (`CKDatabaseSubscription`) is a Stratus extension: CKWS has
///   only `query` and `zone`.
/// - `query` is written when the subscription has a predicate: its record type and its
///   predicate as a query writes them (CKWS's `filterBy`, or the extension `stratusPredicate`
///   when `filterBy` cannot say it exactly). A `query` without either is `TRUEPREDICATE`.
/// - A record type without a predicate (a zone or database subscription limited to one type)
///   is written as the Stratus extension `recordType`, beside the other keys.
/// - `zoneID` is the zone watched, or the zone a query subscription is limited to; a query
///   subscription without one says `"zoneWide": true`, which decoding reads but does not need.
/// - `firesOn` (`create`, `update`, `delete`) and `firesOnce` are written for every query
///   subscription, and for the other types only when set; missing, they are empty and `false`.
///   Bits of ``WireSubscription/QueryOptions`` that CloudKit does not define are not written.
/// - `notificationInfo` is ``WireNotificationInfo``'s JSON.
extension WireSubscription: Codable {
    private enum CodingKeys: String, CodingKey {
        case subscriptionID, subscriptionType, query, recordType, zoneID, zoneWide, firesOn, firesOnce, notificationInfo
    }

    /// CKWS's `firesOn` names.
    private static let firesOnNames: [(QueryOptions, String)] = [
        (.firesOnRecordCreation, "create"), (.firesOnRecordUpdate, "update"), (.firesOnRecordDeletion, "delete"),
    ]

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subscriptionID, forKey: .subscriptionID)
        try container.encode(kind, forKey: .subscriptionType)
        if let predicate {
            var query = container.nestedContainer(keyedBy: JSONQueryKeys.self, forKey: .query)
            try query.encodeIfPresent(recordType, forKey: .recordType)
            try JSONPredicate.encodeFilters(predicate, into: &query)
        } else {
            try container.encodeIfPresent(recordType, forKey: .recordType)
        }
        try container.encodeIfPresent(zoneID, forKey: .zoneID)
        if kind == .query, zoneID == nil { try container.encode(true, forKey: .zoneWide) }
        let firesOn = Self.firesOnNames.filter { queryOptions.contains($0.0) }.map(\.1)
        if kind == .query || !firesOn.isEmpty { try container.encode(firesOn, forKey: .firesOn) }
        if kind == .query || queryOptions.contains(.firesOnce) {
            try container.encode(queryOptions.contains(.firesOnce), forKey: .firesOnce)
        }
        try container.encodeIfPresent(notificationInfo, forKey: .notificationInfo)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var recordType: String?
        var predicate: WirePredicate?
        if container.contains(.query), try !container.decodeNil(forKey: .query) {
            let query = try container.nestedContainer(keyedBy: JSONQueryKeys.self, forKey: .query)
            recordType = try query.decodeIfPresent(String.self, forKey: .recordType)
            predicate = try JSONPredicate.decodeFilters(from: query) ?? .constant(true)
        } else {
            recordType = try container.decodeIfPresent(String.self, forKey: .recordType)
        }
        var options: QueryOptions = []
        for name in try container.decodeIfPresent([String].self, forKey: .firesOn) ?? [] {
            guard let option = Self.firesOnNames.first(where: { $0.1 == name })?.0 else {
                throw DecodingError.invalid(CodingKeys.firesOn, in: container, "'\(name)' is not a firesOn value (create, update, delete)")
            }
            options.insert(option)
        }
        if try container.decodeIfPresent(Bool.self, forKey: .firesOnce) == true { options.insert(.firesOnce) }
        _ = try container.decodeIfPresent(Bool.self, forKey: .zoneWide)
        self.init(
            subscriptionID: try container.decode(String.self, forKey: .subscriptionID),
            kind: try container.decode(Kind.self, forKey: .subscriptionType),
            recordType: recordType,
            predicate: predicate,
            zoneID: try container.decodeIfPresent(WireZoneID.self, forKey: .zoneID),
            queryOptions: options,
            notificationInfo: try container.decodeIfPresent(WireNotificationInfo.self, forKey: .notificationInfo)
        )
    }
}
