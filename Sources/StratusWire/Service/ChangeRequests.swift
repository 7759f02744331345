import Foundation

/// `records/changes`: what changed in one zone since a change token.
public struct WireRecordChangesRequest: Sendable {
    /// Where the request goes.
    public var context: WireRequestContext
    /// The zone whose changes to fetch.
    public var zoneID: WireZoneID
    /// The token of an earlier fetch of this zone; nil fetches from the beginning.
    public var sinceToken: [UInt8]?
    /// The most changes to return; 0 lets the server choose.
    public var resultsLimit: Int
    /// The fields of changed records to return; nil for every field, empty for system fields only.
    public var desiredKeys: [String]?

    /// Creates a request.
    public init(context: WireRequestContext, zoneID: WireZoneID, sinceToken: [UInt8]? = nil, resultsLimit: Int = 0, desiredKeys: [String]? = nil) {
        self.context = context
        self.zoneID = zoneID
        self.sinceToken = sinceToken
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
    }
}

/// A record that was deleted: its identity and the type it had.
public struct WireRecordDeletion: Hashable, Sendable {
    /// The deleted record.
    public var recordID: WireRecordID
    /// The type the record had.
    public var recordType: String

    /// Creates a deletion.
    public init(recordID: WireRecordID, recordType: String) {
        self.recordID = recordID
        self.recordType = recordType
    }
}

/// The answer to a ``WireRecordChangesRequest``: each record changed since the token, once, in
/// its latest version, and each record deleted, in the order of the changes.
public struct WireRecordChangesResponse: Sendable {
    /// Records saved since the token, as the server has them now.
    public var changed: [WireRecord]
    /// Records deleted since the token.
    public var deleted: [WireRecordDeletion]
    /// The token to fetch from next time.
    public var token: [UInt8]
    /// Whether more changes wait after this batch.
    public var moreComing: Bool
    /// The `clientChangeTokenData` of the last modify request that changed the zone.
    public var clientChangeTokenData: Data?

    /// Creates a response.
    public init(changed: [WireRecord], deleted: [WireRecordDeletion], token: [UInt8], moreComing: Bool, clientChangeTokenData: Data?) {
        self.changed = changed
        self.deleted = deleted
        self.token = token
        self.moreComing = moreComing
        self.clientChangeTokenData = clientChangeTokenData
    }
}

/// A change feed's request: what changed since a change token, in batches. `changes/database`
/// (``WireDatabaseChangesRequest``) and the notification collection
/// (``WireNotificationChangesRequest``) ask this way.
public struct WireChangeFeedRequest: Hashable, Sendable {
    /// Where the request goes and who sends it.
    public var context: WireRequestContext
    /// The token of an earlier fetch of this feed; nil fetches from the beginning.
    public var sinceToken: [UInt8]?
    /// The most changes to return; 0 lets the server choose.
    public var resultsLimit: Int

    /// Creates a request.
    public init(context: WireRequestContext, sinceToken: [UInt8]? = nil, resultsLimit: Int = 0) {
        self.context = context
        self.sinceToken = sinceToken
        self.resultsLimit = resultsLimit
    }
}

/// `changes/database`: which zones of a database changed since a change token; the most
/// changes are the most zones.
public typealias WireDatabaseChangesRequest = WireChangeFeedRequest

/// Why a zone went away: `CKDatabase.DatabaseChange.Deletion.Reason`.
public enum WireZoneDeletionReason: Int, Hashable, Sendable {
    /// The app deleted the zone.
    case deleted = 0
    /// The user deleted the app's data from the device's iCloud settings.
    case purged = 1
    /// The user reset their encrypted data (account recovery).
    case encryptedDataReset = 2
}

/// A zone that was deleted, and why.
public struct WireZoneDeletion: Hashable, Sendable {
    /// The zone.
    public var zoneID: WireZoneID
    /// Why it went away.
    public var reason: WireZoneDeletionReason

    /// Creates a deletion.
    public init(zoneID: WireZoneID, reason: WireZoneDeletionReason) {
        self.zoneID = zoneID
        self.reason = reason
    }
}

/// The answer to a ``WireDatabaseChangesRequest``: zones created or changed (their records
/// included) and zones deleted since the token, in the order of the changes.
public struct WireDatabaseChangesResponse: Sendable {
    /// Zones created, or whose records changed, since the token.
    public var changedZoneIDs: [WireZoneID]
    /// Zones deleted since the token.
    public var deleted: [WireZoneDeletion]
    /// The token to fetch from next time.
    public var token: [UInt8]
    /// Whether more changes wait after this batch.
    public var moreComing: Bool

    /// Creates a response.
    public init(changedZoneIDs: [WireZoneID], deleted: [WireZoneDeletion], token: [UInt8], moreComing: Bool) {
        self.changedZoneIDs = changedZoneIDs
        self.deleted = deleted
        self.token = token
        self.moreComing = moreComing
    }
}
