import Foundation
import StratusCore

// A fetch: the database's zone changes from the engine's token, then the record changes of
// each zone with unfetched changes, one request at a time, each batch an event.

extension CKSyncEngine {
    /// Fetches, delivering `willFetchChanges` … `didFetchChanges`.
    ///
    /// - Throws: the first error that stopped a part of the fetch, after `didFetchChanges`.
    func fetch(_ context: FetchChangesContext, in run: SyncRun) async throws {
        try await prepare(run)
        control.withLock { $0.needsFetch = false }
        await deliver(.willFetchChanges(.init(context: context)))
        var failure: CKError?
        do {
            try await fetchDatabaseChanges(context, in: run)
            failure = await fetchZones(context, in: run)
        } catch {
            failure = error.asCKError
        }
        await deliver(.didFetchChanges(.init(context: context)))
        if let failure { throw failure }
    }

    /// Fetches the database's zone changes until no more come; a token the server refuses
    /// (``CKError/isRefusedChangeToken``) is dropped and the fetch starts over from the
    /// beginning, once.
    private func fetchDatabaseChanges(_ context: FetchChangesContext, in run: SyncRun) async throws {
        var restarted = false
        while true {
            try run.checkCancellation()
            let token = state.read(\.databaseToken)
            let operation = CKFetchDatabaseChangesOperation(previousServerChangeToken: token)
            operation.fetchAllChanges = false
            let batch = Locked(DatabaseBatch())
            operation.recordZoneWithIDChangedBlock = { zoneID in batch.withValue { $0.modifications.append(.init(zoneID: zoneID)) } }
            operation.recordZoneWithIDWasDeletedBlock = { zoneID in batch.withValue { $0.deletions.append(.init(zoneID: zoneID, reason: .deleted)) } }
            operation.recordZoneWithIDWasPurgedBlock = { zoneID in batch.withValue { $0.deletions.append(.init(zoneID: zoneID, reason: .purged)) } }
            operation.recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock = { zoneID in
                batch.withValue { $0.deletions.append(.init(zoneID: zoneID, reason: .encryptedDataReset)) }
            }
            operation.fetchDatabaseChangesResultBlock = { result in batch.value.result = result.map { ($0.serverChangeToken, $0.moreComing) }.mapError(\.asCKError) }
            await run.execute(operation, group: context.options.operationGroup)
            let fetched = batch.value
            switch fetched.result {
            case .success(let (newToken, moreComing)):
                if fetched.modifications.isEmpty, fetched.deletions.isEmpty {
                    if newToken != token { await commit { $0.databaseToken = newToken } }
                } else {
                    await deliver(.fetchedDatabaseChanges(.init(modifications: fetched.modifications, deletions: fetched.deletions)), after: {
                        state.update { $0.applyDatabaseChanges(fetched, token: newToken) }
                    })
                }
                if !moreComing { return }
            case .failure(let error) where error.isRefusedChangeToken && token != nil && !restarted:
                restarted = true
                await commit { $0.databaseToken = nil }
            case .failure(let error):
                throw error
            case nil:
                throw CKError(.internalError, message: "the database changes fetch finished without a result")
            }
        }
    }

    /// Fetches the record changes of every zone with unfetched changes that the options
    /// cover, prioritized zones first.
    ///
    /// - Returns: the first error that stopped a zone; a transient one stops the rest.
    private func fetchZones(_ context: FetchChangesContext, in run: SyncRun) async -> CKError? {
        var failure: CKError?
        var attempted: Set<CKRecordZone.ID> = []
        var options = context.options
        while true {
            if run.isCancelled { return failure ?? CKError(.operationCancelled, message: "the sync engine's operations were cancelled") }
            options = await nextFetchOptions(FetchChangesContext(reason: context.reason, options: options))
            let unfetched = state.zoneIDsWithUnfetchedServerChanges.filter { !attempted.contains($0) && options.scope.contains($0) }
            guard let zoneID = options.prioritizedZoneIDs.first(where: unfetched.contains) ?? unfetched.first else { return failure }
            attempted.insert(zoneID)
            let zoneContext = FetchChangesContext(reason: context.reason, options: options)
            if let error = await fetchZone(zoneID, context: zoneContext, in: run) {
                failure = failure ?? error
                if error.isTransientForSyncEngine || error.code == .operationCancelled { return failure }
            }
        }
    }

    /// Fetches one zone's record changes until no more come, between
    /// `willFetchRecordZoneChanges` and `didFetchRecordZoneChanges`.
    ///
    /// - Returns: the error the zone's fetch ended with. A zone that no longer exists is
    ///   forgotten; any other failed zone stays unfetched. A zone token the server refuses
    ///   (``CKError/isRefusedChangeToken``) is dropped and the zone fetched from the
    ///   beginning, once, without an error.
    private func fetchZone(_ zoneID: CKRecordZone.ID, context: FetchChangesContext, in run: SyncRun) async -> CKError? {
        await deliver(.willFetchRecordZoneChanges(.init(zoneID: zoneID)))
        var restarted = false
        var options = context.options
        var outcome: CKError?
        fetching: while true {
            if run.isCancelled {
                outcome = CKError(.operationCancelled, message: "the sync engine's operations were cancelled")
                break
            }
            let token = state.read { $0.zoneTokens[zoneID] }
            let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(previousServerChangeToken: token)
            let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
            operation.fetchAllChanges = false
            let batch = Locked(RecordBatch())
            operation.recordWasChangedBlock = { _, result in
                if case .success(let record) = result { batch.withValue { $0.modifications.append(.init(record: record)) } }
            }
            operation.recordWithIDWasDeletedBlock = { recordID, recordType in
                batch.withValue { $0.deletions.append(.init(recordID: recordID, recordType: recordType)) }
            }
            operation.recordZoneFetchResultBlock = { _, result in
                batch.value.result = result.map { ($0.serverChangeToken, $0.moreComing) }.mapError(\.asCKError)
            }
            operation.fetchRecordZoneChangesResultBlock = { result in
                if case .failure(let error) = result, batch.value.result == nil { batch.value.result = .failure(error.asCKError) }
            }
            await run.execute(operation, group: options.operationGroup)
            let fetched = batch.value
            switch fetched.result {
            case .success(let (newToken, moreComing)):
                let apply = { (storage: inout StateStorage) in
                    storage.zoneTokens[zoneID] = newToken
                    if !moreComing { storage.unfetchedZoneIDs.removeAll { $0 == zoneID } }
                }
                if fetched.modifications.isEmpty, fetched.deletions.isEmpty {
                    await commit(apply)
                } else {
                    await deliver(.fetchedRecordZoneChanges(.init(modifications: fetched.modifications, deletions: fetched.deletions)), after: {
                        state.update(apply)
                    })
                }
                if !moreComing { break fetching }
                options = await nextFetchOptions(FetchChangesContext(reason: context.reason, options: options))
            case .failure(let error) where error.isRefusedChangeToken && token != nil && !restarted:
                restarted = true
                await commit { $0.zoneTokens[zoneID] = nil }
            case .failure(let error):
                outcome = error
                break fetching
            case nil:
                outcome = CKError(.internalError, message: "the zone changes fetch finished without a result")
                break fetching
            }
        }
        let zoneIsGone = outcome.map { $0.code == .zoneNotFound || $0.code == .userDeletedZone } ?? false
        await deliver(.didFetchRecordZoneChanges(.init(zoneID: zoneID, error: outcome)), before: {
            if zoneIsGone { state.update { $0.forgetZone(zoneID) } }
        })
        return outcome
    }
}

/// One response of a database changes fetch.
struct DatabaseBatch {
    var modifications: [CKDatabase.DatabaseChange.Modification] = []
    var deletions: [CKDatabase.DatabaseChange.Deletion] = []
    var result: Result<(CKServerChangeToken, Bool), CKError>?
}

/// One response of a zone changes fetch.
struct RecordBatch {
    var modifications: [CKDatabase.RecordZoneChange.Modification] = []
    var deletions: [CKDatabase.RecordZoneChange.Deletion] = []
    var result: Result<(CKServerChangeToken, Bool), CKError>?
}

extension CKError {
    /// Whether the server refused the change token a fetch sent: `changeTokenExpired` (older
    /// than the history it keeps) or `invalidArguments` (another container's, database's,
    /// user's or server's, or damaged). Either way the token is useless, and CloudKit's
    /// advice for an expired one holds for both: drop it and fetch from the beginning. Retried
    /// once per scope, so an `invalidArguments` with another cause still reaches the app.
    var isRefusedChangeToken: Bool {
        code == .changeTokenExpired || code == .invalidArguments
    }
}

extension StateStorage {
    /// Takes in a batch of database changes: the new token, changed zones to fetch, deleted
    /// zones forgotten.
    mutating func applyDatabaseChanges(_ batch: DatabaseBatch, token: CKServerChangeToken) {
        databaseToken = token
        markUnfetched(batch.modifications.map(\.zoneID))
        for deletion in batch.deletions { forgetZone(deletion.zoneID) }
    }
}
