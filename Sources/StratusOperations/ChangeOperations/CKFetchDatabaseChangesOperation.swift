import Foundation
import StratusCore
import StratusWire

/// Fetches which record zones of a database were created, changed or deleted since a change
/// token you kept: the first step of a sync, before fetching the changed zones' records with
/// `CKFetchRecordZoneChangesOperation`.
///
/// ```swift
/// let operation = CKFetchDatabaseChangesOperation(previousServerChangeToken: storedToken)
/// operation.recordZoneWithIDChangedBlock = { zoneID in … }     // fetch its record changes
/// operation.recordZoneWithIDWasDeletedBlock = { zoneID in … }  // drop its cache
/// operation.fetchDatabaseChangesResultBlock = { result in … }   // keep the new token
/// database.add(operation)
/// ```
///
/// Each zone comes once per fetch. A zone the user purged from iCloud settings comes through
/// ``recordZoneWithIDWasPurgedBlock`` (do not upload its data again), a zone lost to an
/// encrypted-data reset through ``recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock``
/// (upload it again); when those blocks are not set, ``recordZoneWithIDWasDeletedBlock`` gets
/// them. The default zone never comes: it has no changes to fetch. Only the private and the
/// shared database have changes; the public one fails with `badDatabase`.
///
/// CloudKit document: *CKFetchDatabaseChangesOperation*.
public final class CKFetchDatabaseChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    // MARK: - Properties

    /// Where to start: a token from an earlier fetch of this database, or nil for everything.
    @_Locked public var previousServerChangeToken: CKServerChangeToken? = nil

    /// The most zones one request returns; 0 lets the server choose.
    @_Locked public var resultsLimit: Int = 0

    /// Whether the operation fetches until nothing more is waiting: true unless set.
    @_Locked public var fetchAllChanges: Bool = true

    /// Creates an operation that fetches what changed since `previousServerChangeToken`.
    public convenience init(previousServerChangeToken: CKServerChangeToken?) {
        self.init()
        self.previousServerChangeToken = previousServerChangeToken
    }

    // MARK: - Per-item callbacks

    /// Called once per zone created, or whose records changed, since the token.
    @_OperationBlock public var recordZoneWithIDChangedBlock: ((CKRecordZone.ID) -> Void)?

    /// Called once per zone deleted since the token (and for purged or reset zones when their
    /// own blocks are not set).
    @_OperationBlock public var recordZoneWithIDWasDeletedBlock: ((CKRecordZone.ID) -> Void)?

    /// Called once per zone the user purged from iCloud settings since the token: delete the
    /// local data and do not upload it again.
    @_OperationBlock public var recordZoneWithIDWasPurgedBlock: ((CKRecordZone.ID) -> Void)?

    /// Called once per zone deleted because the user reset their encrypted data: create the
    /// zone again and upload the local data.
    @_OperationBlock public var recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock: ((CKRecordZone.ID) -> Void)?

    /// Called after each batch but the last, when ``fetchAllChanges`` is true: a checkpoint to
    /// store, so a fetch that fails later resumes from there.
    @_OperationBlock public var changeTokenUpdatedBlock: ((CKServerChangeToken) -> Void)?

    // MARK: - Completion

    /// Called once, last: the token to keep and whether more changes wait, or the error.
    @_OperationBlock public var fetchDatabaseChangesResultBlock: ((Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void)?

    /// The legacy final block; ignored when ``fetchDatabaseChangesResultBlock`` is set.
    @available(*, deprecated, message: "Use fetchDatabaseChangesResultBlock instead")
    @_OperationBlock public var fetchDatabaseChangesCompletionBlock: ((CKServerChangeToken?, Bool, (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let limit = max(0, resultsLimit)
        let fetchAll = fetchAllChanges
        let result = await readChanges(from: previousServerChangeToken, fetchAll: fetchAll) { since in
            await send(to: runDatabase) { service, context async throws(WireError) in
                try await service.databaseChanges(WireDatabaseChangesRequest(context: context, sinceToken: since, resultsLimit: limit))
            }
        } page: { batch, token, continues in
            deliver {
                self.deliverBatch(batch)
                if continues { self.changeTokenUpdatedBlock?(token) }
            }
        }
        switch result {
        case .failure(let error):
            finish(with: error) { self.deliverFinal(.failure(error)) }
        case .success(let (last, token)):
            finish(with: nil) { self.deliverFinal(.success((token, fetchAll ? false : last.moreComing))) }
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverFinal(.failure(error))
    }

    // MARK: - Result mapping

    /// Calls the per-zone blocks of one batch. Runs on the callback queue.
    private func deliverBatch(_ batch: WireDatabaseChangesResponse) {
        if let changed = recordZoneWithIDChangedBlock {
            for zoneID in batch.changedZoneIDs { changed(CKRecordZone.ID(wire: zoneID)) }
        }
        let deleted = recordZoneWithIDWasDeletedBlock
        for deletion in batch.deleted {
            let zoneID = CKRecordZone.ID(wire: deletion.zoneID)
            switch deletion.reason {
            case .purged: (recordZoneWithIDWasPurgedBlock ?? deleted)?(zoneID)
            case .encryptedDataReset: (recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock ?? deleted)?(zoneID)
            case .deleted: deleted?(zoneID)
            }
        }
    }

    /// Calls the final block, or its legacy twin. Runs on the callback queue.
    private func deliverFinal(_ result: Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), CKError>) {
        if let final = fetchDatabaseChangesResultBlock {
            final(result.mapError { $0 as any Error })
        } else if let legacy: (CKServerChangeToken?, Bool, (any Error)?) -> Void = blocks[\CKFetchDatabaseChangesOperation._fetchDatabaseChangesCompletionBlock] {
            switch result {
            case .success(let value): legacy(value.serverChangeToken, value.moreComing, nil)
            case .failure(let error): legacy(nil, false, error)
            }
        }
    }
}
