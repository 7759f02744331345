import Foundation
import StratusCore

// The change-fetching convenience methods of CKDatabase and the values they return. Each
// runs one operation with `fetchAllChanges` false, so each costs one request and returns one
// batch: run again from the returned token while `moreComing` is true.

extension CKDatabase {
    /// What changed in one zone's records.
    public enum RecordZoneChange {
        /// A record saved since the token, in its latest version.
        public struct Modification: Hashable {
            /// The record as the server has it now.
            public let record: CKRecord
        }

        /// A record deleted since the token.
        public struct Deletion: Hashable, Sendable {
            /// The deleted record.
            public let recordID: CKRecord.ID
            /// The type the record had.
            public let recordType: CKRecord.RecordType
        }
    }

    /// What changed in a database's zones.
    public enum DatabaseChange {
        /// A zone created, or whose records changed, since the token.
        public struct Modification: Hashable, Sendable {
            /// The zone.
            public let zoneID: CKRecordZone.ID
        }

        /// A zone deleted since the token, and why.
        public struct Deletion: Hashable, Sendable {
            /// Why a zone was deleted: `.deleted`, `.purged` or `.encryptedDataReset`. Declared
            /// in C as `CKDatabaseChangeDeletionReason`, so that, like CloudKit's, it is not
            /// frozen and `switch`es over it end with `@unknown default`.
            public typealias Reason = CKDatabaseChangeDeletionReason

            /// The zone.
            public let zoneID: CKRecordZone.ID
            /// Why it was deleted.
            public let reason: Reason

            /// Whether the user purged the zone.
            @available(*, deprecated, message: "Use reason instead")
            public var purged: Bool { reason == .purged }
        }
    }

    /// Fetches one batch of what changed in a zone since `changeToken`, as one
    /// `CKFetchRecordZoneChangesOperation`.
    ///
    /// - Parameters:
    ///   - zoneID: The zone; it must support fetching changes (a custom zone).
    ///   - changeToken: The token of an earlier fetch, or nil for everything.
    ///   - desiredKeys: The fields of changed records to fetch; nil for all.
    ///   - resultsLimit: The most changes to return; nil lets the server choose.
    /// - Returns: The changed records by ID, the deletions, the token to keep, and whether
    ///   more changes wait.
    /// - Throws: `changeTokenExpired` (fetch again from nil), `zoneNotFound`,
    ///   `invalidArguments` for a zone without change fetching or a foreign token, or the
    ///   request's error.
    public func recordZoneChanges(
        inZoneWith zoneID: CKRecordZone.ID,
        since changeToken: CKServerChangeToken?,
        desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int? = nil
    ) async throws -> (modificationResultsByID: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>], deletions: [RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool) {
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(previousServerChangeToken: changeToken, resultsLimit: resultsLimit, desiredKeys: desiredKeys)
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        operation.fetchAllChanges = false
        let boxed = try await perform(operation) { operation, resume in
            var modifications: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>] = [:]
            var deletions: [RecordZoneChange.Deletion] = []
            operation.recordWasChangedBlock = { recordID, result in modifications[recordID] = result.map { RecordZoneChange.Modification(record: $0) } }
            operation.recordWithIDWasDeletedBlock = { recordID, recordType in deletions.append(RecordZoneChange.Deletion(recordID: recordID, recordType: recordType)) }
            operation.recordZoneFetchResultBlock = { _, result in
                switch result {
                case .success(let value): resume(.success(UncheckedBox(value: (modifications, deletions, value.serverChangeToken, value.moreComing))))
                case .failure(let error): resume(.failure(error))
                }
            }
        }
        return boxed.value
    }

    /// Fetches one batch of a zone's changes and passes it, or the error, to `completionHandler`.
    ///
    /// `@preconcurrency`, as CloudKit declares it, so a handler that changes local state builds
    /// without warnings in the Swift 5 language mode.
    @preconcurrency
    public func fetchRecordZoneChanges(
        inZoneWith zoneID: CKRecordZone.ID,
        since changeToken: CKServerChangeToken?,
        desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int? = nil,
        completionHandler: @escaping @Sendable (Result<(modificationResultsByID: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>], deletions: [RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void
    ) {
        let box = UncheckedBox(value: completionHandler)
        complete({ (result: Result<UncheckedBox<(modificationResultsByID: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>], deletions: [RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool)>, any Error>) in
            box.value(result.map(\.value))
        }) {
            UncheckedBox(value: try await self.recordZoneChanges(inZoneWith: zoneID, since: changeToken, desiredKeys: desiredKeys, resultsLimit: resultsLimit))
        }
    }

    /// Fetches one batch of which zones changed since `changeToken`, as one
    /// `CKFetchDatabaseChangesOperation`.
    ///
    /// - Parameters:
    ///   - changeToken: The token of an earlier fetch, or nil for everything.
    ///   - resultsLimit: The most zones to return; nil lets the server choose.
    /// - Returns: The zones created or changed, the zones deleted (with why), the token to
    ///   keep, and whether more changes wait.
    /// - Throws: `badDatabase` in the public database, `invalidArguments` for a foreign token,
    ///   or the request's error.
    public func databaseChanges(
        since changeToken: CKServerChangeToken?,
        resultsLimit: Int? = nil
    ) async throws -> (modifications: [DatabaseChange.Modification], deletions: [DatabaseChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool) {
        let operation = CKFetchDatabaseChangesOperation(previousServerChangeToken: changeToken)
        operation.resultsLimit = resultsLimit ?? 0
        operation.fetchAllChanges = false
        return try await perform(operation) { operation, resume in
            var modifications: [DatabaseChange.Modification] = []
            var deletions: [DatabaseChange.Deletion] = []
            operation.recordZoneWithIDChangedBlock = { modifications.append(DatabaseChange.Modification(zoneID: $0)) }
            operation.recordZoneWithIDWasDeletedBlock = { deletions.append(DatabaseChange.Deletion(zoneID: $0, reason: .deleted)) }
            operation.recordZoneWithIDWasPurgedBlock = { deletions.append(DatabaseChange.Deletion(zoneID: $0, reason: .purged)) }
            operation.recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock = { deletions.append(DatabaseChange.Deletion(zoneID: $0, reason: .encryptedDataReset)) }
            operation.fetchDatabaseChangesResultBlock = { result in
                resume(result.map { (modifications, deletions, $0.serverChangeToken, $0.moreComing) })
            }
        }
    }

    /// Fetches one batch of which zones changed and passes it, or the error, to
    /// `completionHandler`. `@preconcurrency`, as CloudKit declares it.
    @preconcurrency
    public func fetchDatabaseChanges(
        since changeToken: CKServerChangeToken?,
        resultsLimit: Int? = nil,
        completionHandler: @escaping @Sendable (Result<(modifications: [DatabaseChange.Modification], deletions: [DatabaseChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.databaseChanges(since: changeToken, resultsLimit: resultsLimit) }
    }
}
