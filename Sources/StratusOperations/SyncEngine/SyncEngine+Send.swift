import Foundation
import StratusCore

// A send: the pending zone changes in batches, then the delegate's record batches, one
// request each, back to zone changes whenever the delegate added some, until the delegate
// has nothing more or a change fails.

extension CKSyncEngine {
    /// Sends, delivering `willSendChanges` … `didSendChanges`; does nothing (no event) when
    /// nothing in scope is pending.
    ///
    /// - Throws: a `partialFailure` naming every change that failed, or the error that
    ///   stopped the send, after `didSendChanges`.
    func send(_ context: SendChangesContext, in run: SyncRun) async throws {
        try await prepare(run)
        let scope = context.options.scope
        let hasWork = state.read { storage in
            storage.hasPendingUntrackedChanges
                || storage.records.ordered.contains(where: scope.contains)
                || storage.zones.ordered.contains { scope.containsZone($0.zoneID) }
        }
        guard hasWork else { return }
        await deliver(.willSendChanges(.init(context: context)))
        var outcome = SendOutcome()
        sending: while true {
            if run.isCancelled {
                outcome.stop = CKError(.operationCancelled, message: "the sync engine's operations were cancelled")
                break
            }
            if let zoneChanges = nextZoneChanges(scope: scope) {
                await sendZoneChanges(zoneChanges, context: context, in: run, outcome: &outcome)
                if outcome.shouldStop { break sending }
                continue
            }
            guard let batch = await nextBatch(context), !(batch.recordsToSave.isEmpty && batch.recordIDsToDelete.isEmpty) else {
                // Only a real change is marked, so no stateUpdate repeats an unchanged state.
                if outcome.failures.isEmpty, state.hasPendingUntrackedChanges { state.update { $0.hasPendingUntrackedChanges = false } }
                break
            }
            let ids = batch.recordsToSave.map(\.recordID) + batch.recordIDsToDelete
            if !ids.isEmpty, ids.allSatisfy(outcome.sentRecordIDs.contains) {
                // The delegate hands back only what this send already sent: stop rather than loop.
                break
            }
            await sendRecordChanges(batch, context: context, in: run, outcome: &outcome)
            if outcome.shouldStop { break sending }
        }
        await deliver(.didSendChanges(.init(context: context)))
        if let error = outcome.error { throw error }
    }

    /// The pending zone changes in scope, up to one request's worth, or nil when none.
    private func nextZoneChanges(scope: SendChangesOptions.Scope) -> [PendingDatabaseChange]? {
        let changes = state.read { storage in
            storage.zones.ordered.filter { scope.containsZone($0.zoneID) }.prefix(Self.zoneChangesPerRequest)
        }
        return changes.isEmpty ? nil : Array(changes)
    }

    private func sendZoneChanges(_ changes: [PendingDatabaseChange], context: SendChangesContext, in run: SyncRun, outcome: inout SendOutcome) async {
        var zonesToSave: [CKRecordZone] = []
        var zoneIDsToDelete: [CKRecordZone.ID] = []
        for change in changes {
            switch change {
            case .saveZone(let zone): zonesToSave.append(zone)
            case .deleteZone(let zoneID): zoneIDsToDelete.append(zoneID)
            }
        }
        let generations = state.read { storage in changes.map { storage.zones.generation(of: $0, key: $0.zoneID) } }
        let operation = CKModifyRecordZonesOperation(recordZonesToSave: zonesToSave, recordZoneIDsToDelete: zoneIDsToDelete)
        let results = Locked(ItemResults<CKRecordZone.ID, CKRecordZone>())
        operation.perRecordZoneSaveBlock = { zoneID, result in results.withValue { $0.saves.append((zoneID, result.mapError(\.asCKError))) } }
        operation.perRecordZoneDeleteBlock = { zoneID, result in results.withValue { $0.deletes.append((zoneID, result.mapError(\.asCKError))) } }
        operation.modifyRecordZonesResultBlock = { result in results.value.finish(result) }
        await run.execute(operation, group: context.options.operationGroup)
        let sent = results.value.completed(saves: zonesToSave.map(\.zoneID), deletes: zoneIDsToDelete)

        var savedZones: [CKRecordZone] = []
        var failedZoneSaves: [Event.SentDatabaseChanges.FailedZoneSave] = []
        var deletedZoneIDs: [CKRecordZone.ID] = []
        var failedZoneDeletes: [CKRecordZone.ID: CKError] = [:]
        var kept: Set<Int> = []
        for (index, zone) in zonesToSave.enumerated() {
            switch sent.saves[zone.zoneID] {
            case .success(let saved)?: savedZones.append(saved)
            case .failure(let error)?:
                failedZoneSaves.append(.init(zone: zone, error: error))
                if outcome.record(error, for: zone.zoneID) { kept.insert(index) }
            case nil: break
            }
        }
        for (offset, zoneID) in zoneIDsToDelete.enumerated() {
            switch sent.deletes[zoneID] {
            case .success?: deletedZoneIDs.append(zoneID)
            case .failure(let error)?:
                failedZoneDeletes[zoneID] = error
                if outcome.record(error, for: zoneID) { kept.insert(zonesToSave.count + offset) }
            case nil: break
            }
        }
        outcome.noteRequest(sent.requestError)
        let ordered = zonesToSave.map(PendingDatabaseChange.saveZone) + zoneIDsToDelete.map(PendingDatabaseChange.deleteZone)
        let generationsByChange = Dictionary(zip(changes, generations), uniquingKeysWith: { first, _ in first })
        await deliver(.sentDatabaseChanges(.init(savedZones: savedZones, failedZoneSaves: failedZoneSaves, deletedZoneIDs: deletedZoneIDs, failedZoneDeletes: failedZoneDeletes)), before: {
            state.update { storage in
                for (index, change) in ordered.enumerated() where !kept.contains(index) {
                    storage.zones.removeSent(change, key: change.zoneID, generation: generationsByChange[change] ?? nil)
                }
                for zoneID in deletedZoneIDs { storage.forgetZone(zoneID) }
            }
        })
    }

    private func sendRecordChanges(_ batch: RecordZoneChangeBatch, context: SendChangesContext, in run: SyncRun, outcome: inout SendOutcome) async {
        let saves = batch.recordsToSave
        let deletes = batch.recordIDsToDelete
        let sentChanges = saves.map { PendingRecordZoneChange.saveRecord($0.recordID) } + deletes.map(PendingRecordZoneChange.deleteRecord)
        let generations = state.read { storage in sentChanges.map { storage.records.generation(of: $0, key: $0.recordID) } }
        let operation = CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
        operation.savePolicy = .ifServerRecordUnchanged
        operation.isAtomic = batch.atomicByZone
        let results = Locked(ItemResults<CKRecord.ID, CKRecord>())
        operation.perRecordSaveBlock = { recordID, result in results.withValue { $0.saves.append((recordID, result.mapError(\.asCKError))) } }
        operation.perRecordDeleteBlock = { recordID, result in results.withValue { $0.deletes.append((recordID, result.mapError(\.asCKError))) } }
        operation.modifyRecordsResultBlock = { result in results.value.finish(result) }
        await run.execute(operation, group: context.options.operationGroup)
        let sent = results.value.completed(saves: saves.map(\.recordID), deletes: deletes)

        var savedRecords: [CKRecord] = []
        var failedRecordSaves: [Event.SentRecordZoneChanges.FailedRecordSave] = []
        var deletedRecordIDs: [CKRecord.ID] = []
        var failedRecordDeletes: [CKRecord.ID: CKError] = [:]
        var kept: Set<Int> = []
        for (index, record) in saves.enumerated() {
            outcome.sentRecordIDs.insert(record.recordID)
            switch sent.saves[record.recordID] {
            case .success(let saved)?: savedRecords.append(saved)
            case .failure(let error)?:
                failedRecordSaves.append(.init(record: record, error: error))
                if outcome.record(error, for: record.recordID) { kept.insert(index) }
            case nil: break
            }
        }
        for (offset, recordID) in deletes.enumerated() {
            outcome.sentRecordIDs.insert(recordID)
            switch sent.deletes[recordID] {
            case .success?: deletedRecordIDs.append(recordID)
            case .failure(let error)?:
                failedRecordDeletes[recordID] = error
                if outcome.record(error, for: recordID) { kept.insert(saves.count + offset) }
            case nil: break
            }
        }
        outcome.noteRequest(sent.requestError)
        await deliver(.sentRecordZoneChanges(.init(savedRecords: savedRecords, failedRecordSaves: failedRecordSaves, deletedRecordIDs: deletedRecordIDs, failedRecordDeletes: failedRecordDeletes)), before: {
            state.update { storage in
                for (index, change) in sentChanges.enumerated() where !kept.contains(index) {
                    storage.records.removeSent(change, key: change.recordID, generation: generations[index])
                }
            }
        })
    }

    /// Zone saves and deletes sent in one request.
    static let zoneChangesPerRequest = 100
}

/// What a send has met so far.
struct SendOutcome {
    /// Every item that failed, keyed by record or zone ID.
    var failures: [AnyHashable: any Error] = [:]
    /// The error that stopped the send: a whole request's, a transient item's, or a cancellation.
    var stop: CKError?
    /// Whether an item failed with an error the engine does not retry.
    var hasFatalFailure = false
    /// The records this send has already sent.
    var sentRecordIDs: Set<CKRecord.ID> = []

    var shouldStop: Bool { stop != nil || hasFatalFailure || !failures.isEmpty }

    /// Notes an item's failure; returns whether the item stays pending: a transient error
    /// (retried later), a cancellation before the request left, or `batchRequestFailed`
    /// (the item did not fail itself: another of its atomic zone did).
    mutating func record(_ error: CKError, for id: AnyHashable) -> Bool {
        failures[id] = error
        switch error.code {
        case .batchRequestFailed, .operationCancelled:
            return true
        default:
            if error.isTransientForSyncEngine { return true }
            hasFatalFailure = true
            return false
        }
    }

    /// Notes the request-wide error, if the request failed as a whole.
    mutating func noteRequest(_ error: CKError?) {
        if let error, stop == nil { stop = error }
    }

    /// The error the send throws: the request's, or a `partialFailure` of the failed items.
    var error: CKError? {
        if let stop, stop.code != .partialFailure { return stop }
        guard !failures.isEmpty else { return nil }
        return CKError(.partialFailure, message: "\(failures.count) changes failed to send; see partialErrorsByItemID", extra: [CKPartialErrorsByItemIDKey: failures])
    }

    /// The error a retry should wait for, when the send stopped on a transient one.
    var transientError: CKError? {
        if let stop, stop.isTransientForSyncEngine { return stop }
        return failures.values.lazy.compactMap { $0 as? CKError }.first(where: \.isTransientForSyncEngine)
    }
}

/// The per-item results of one modify request.
struct ItemResults<ID: Hashable, Value> {
    var saves: [(ID, Result<Value, CKError>)] = []
    var deletes: [(ID, Result<Void, CKError>)] = []
    var requestError: CKError?

    /// Takes the final result: a request-wide error (anything but `partialFailure`).
    mutating func finish(_ result: Result<Void, any Error>) {
        if case .failure(let error) = result, !error.isPartialFailure { requestError = error.asCKError }
    }

    /// The results by ID; an item without a result gets the request's error.
    func completed(saves saveIDs: [ID], deletes deleteIDs: [ID]) -> (saves: [ID: Result<Value, CKError>], deletes: [ID: Result<Void, CKError>], requestError: CKError?) {
        var saveResults = Dictionary(saves, uniquingKeysWith: { _, last in last })
        var deleteResults = Dictionary(deletes, uniquingKeysWith: { _, last in last })
        let fallback = requestError ?? CKError(.internalError, message: "the server returned no result for this item")
        for id in saveIDs where saveResults[id] == nil { saveResults[id] = .failure(fallback) }
        for id in deleteIDs where deleteResults[id] == nil { deleteResults[id] = .failure(fallback) }
        return (saveResults, deleteResults, requestError)
    }
}
