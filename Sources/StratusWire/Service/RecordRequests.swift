import Foundation

/// `records/lookup`: fetch records by ID.
public struct WireRecordsLookupRequest: Sendable {
    /// Where the request goes.
    public var context: WireRequestContext
    /// The records to fetch, in the order results come back.
    public var recordIDs: [WireRecordID]
    /// The field keys to return; nil returns every field, an empty array only system fields.
    public var desiredKeys: [String]?

    /// Creates a lookup request.
    public init(context: WireRequestContext, recordIDs: [WireRecordID], desiredKeys: [String]? = nil) {
        self.context = context
        self.recordIDs = recordIDs
        self.desiredKeys = desiredKeys
    }
}

/// The `records/*` endpoints' per-item results: records, named by their IDs.
public enum WireRecordsEndpoint: WireItemEndpoint {
    /// A record is named by its ID.
    public typealias ID = WireRecordID
    /// A found or saved record, as the server now has it.
    public typealias Value = WireRecord
}

/// The answer to a ``WireRecordsLookupRequest``: one result per requested ID, in request order.
public typealias WireRecordsLookupResponse = WireItemsResponse<WireRecordsEndpoint>

/// How a save treats the server's copy of a record: `CKModifyRecordsOperation.RecordSavePolicy`.
public enum WireSavePolicy: Int, Hashable, Sendable, CaseIterable {
    /// Save only if the client's change tag is the server's; send the changed keys.
    case ifServerRecordUnchanged = 0
    /// Overwrite the changed keys without comparing change tags.
    case changedKeys = 1
    /// Overwrite every key the client has without comparing change tags.
    case allKeys = 2
}

/// One record to save: the keys to write and the keys to remove.
public struct WireRecordSave: Sendable {
    /// The record's system fields (the change tag the client holds, the parent) and the field
    /// values to write. Keys not present here are left as the server has them.
    public var record: WireRecord
    /// Plain keys the client set to nil: the server deletes these fields under every policy.
    public var removedKeys: [String]
    /// Encrypted keys the client set to nil.
    public var removedEncryptedKeys: [String]
    /// Whether the client changed the record's parent.
    public var parentChanged: Bool

    /// Creates a save item.
    public init(record: WireRecord, removedKeys: [String] = [], removedEncryptedKeys: [String] = [], parentChanged: Bool = false) {
        self.record = record
        self.removedKeys = removedKeys
        self.removedEncryptedKeys = removedEncryptedKeys
        self.parentChanged = parentChanged
    }
}

/// `records/modify`: save and delete records in one request.
public struct WireRecordsModifyRequest: Sendable {
    /// Where the request goes.
    public var context: WireRequestContext
    /// Records to save, in order.
    public var saves: [WireRecordSave]
    /// Records to delete, in order.
    public var deletes: [WireRecordID]
    /// How saves treat the server's copies.
    public var savePolicy: WireSavePolicy
    /// Whether each atomic zone applies its part of the batch all or nothing.
    public var isAtomic: Bool
    /// Opaque bytes the server stores with the zone and echoes in change fetches.
    public var clientChangeTokenData: Data?

    /// Creates a modify request.
    public init(
        context: WireRequestContext,
        saves: [WireRecordSave] = [],
        deletes: [WireRecordID] = [],
        savePolicy: WireSavePolicy = .ifServerRecordUnchanged,
        isAtomic: Bool = true,
        clientChangeTokenData: Data? = nil
    ) {
        self.context = context
        self.saves = saves
        self.deletes = deletes
        self.savePolicy = savePolicy
        self.isAtomic = isAtomic
        self.clientChangeTokenData = clientChangeTokenData
    }
}

/// The answer to a ``WireRecordsModifyRequest``: one result per item, in request order.
public typealias WireRecordsModifyResponse = WireModifyResponse<WireRecordsEndpoint>
