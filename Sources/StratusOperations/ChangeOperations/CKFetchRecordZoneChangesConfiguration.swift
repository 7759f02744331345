import Foundation
import StratusCore

/// How to fetch one zone's changes: where to start, how many changes a request returns, and
/// which fields of changed records to fetch. `CKFetchRecordZoneChangesOperation.ZoneConfiguration`
/// in Swift.
///
/// CloudKit document: *CKFetchRecordZoneChangesOperation.ZoneConfiguration*.
public final class CKFetchRecordZoneChangesConfiguration: NSObject, NSCopying, @unchecked Sendable {
    private let lock = NSLock()
    private var token: CKServerChangeToken?
    private var limit: Int?
    private var keys: [CKRecord.FieldKey]?

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - previousServerChangeToken: Where to start; nil fetches the zone from the beginning.
    ///   - resultsLimit: The most changes one request returns; nil lets the server choose.
    ///   - desiredKeys: The fields of changed records to fetch; nil for all, empty for none.
    public init(previousServerChangeToken: CKServerChangeToken? = nil, resultsLimit: Int? = nil, desiredKeys: [CKRecord.FieldKey]? = nil) {
        token = previousServerChangeToken
        limit = resultsLimit
        keys = desiredKeys
    }

    /// Where to start: a token from an earlier fetch of this zone, or nil for everything.
    public var previousServerChangeToken: CKServerChangeToken? {
        get { lock.withLock { token } }
        set { lock.withLock { token = newValue } }
    }

    /// The most changes one request returns; nil (or 0) lets the server choose.
    public var resultsLimit: Int? {
        get { lock.withLock { limit } }
        set { lock.withLock { limit = newValue } }
    }

    /// The fields of changed records to fetch: nil for every field, empty for system fields only.
    public var desiredKeys: [CKRecord.FieldKey]? {
        get { lock.withLock { keys } }
        set { lock.withLock { keys = newValue } }
    }

    /// A configuration with the same values.
    public func copy(with zone: NSZone? = nil) -> Any {
        CKFetchRecordZoneChangesConfiguration(previousServerChangeToken: previousServerChangeToken, resultsLimit: resultsLimit, desiredKeys: desiredKeys)
    }
}

/// The iOS 10–11 spelling of a zone's fetch settings, without a results limit.
@available(*, deprecated, message: "Use CKFetchRecordZoneChangesConfiguration")
public final class CKFetchRecordZoneChangesOptions: NSObject, NSCopying, @unchecked Sendable {
    private let lock = NSLock()
    private var token: CKServerChangeToken?
    private var keys: [CKRecord.FieldKey]?

    /// Creates options that fetch the zone from the beginning, every field.
    public override init() {}

    /// Where to start: a token from an earlier fetch of this zone, or nil for everything.
    public var previousServerChangeToken: CKServerChangeToken? {
        get { lock.withLock { token } }
        set { lock.withLock { token = newValue } }
    }

    /// The fields of changed records to fetch: nil for every field, empty for system fields only.
    public var desiredKeys: [CKRecord.FieldKey]? {
        get { lock.withLock { keys } }
        set { lock.withLock { keys = newValue } }
    }

    /// Options with the same values.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKFetchRecordZoneChangesOptions()
        copy.previousServerChangeToken = previousServerChangeToken
        copy.desiredKeys = desiredKeys
        return copy
    }
}
