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
        let results: ItemResults<CKRecordZone.ID, CKRecordZone> = await run.modify(operation, group: context.options.operationGroup) { operation, save, delete, final in
            operation.perRecordZoneSaveBlock = save
            operation.perRecordZoneDeleteBlock = delete
            operation.modifyRecordZonesResultBlock = final
        }
        let sent = results.sort(saves: zonesToSave, id: \.zoneID, deletes: zoneIDsToDelete, outcome: &outcome)
        let ordered = zonesToSave.map(PendingDatabaseChange.saveZone) + zoneIDsToDelete.map(PendingDatabaseChange.deleteZone)
        let generationsByChange = Dictionary(zip(changes, generations), uniquingKeysWith: { first, _ in first })
        let event = Event.SentDatabaseChanges(
            savedZones: sent.saved,
            failedZoneSaves: sent.failedSaves.map { .init(zone: $0.item, error: $0.error) },
            deletedZoneIDs: sent.deleted,
            failedZoneDeletes: sent.failedDeletes
        )
        await deliver(.sentDatabaseChanges(event), before: {
            state.update { storage in
                for (index, change) in ordered.enumerated() where !sent.kept.contains(index) {
                    storage.zones.removeSent(change, key: change.zoneID, generation: generationsByChange[change] ?? nil)
                }
                for zoneID in sent.deleted { storage.forgetZone(zoneID) }
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
        let results: ItemResults<CKRecord.ID, CKRecord> = await run.modify(operation, group: context.options.operationGroup) { operation, save, delete, final in
            operation.perRecordSaveBlock = save
            operation.perRecordDeleteBlock = delete
            operation.modifyRecordsResultBlock = final
        }
        outcome.sentRecordIDs.formUnion(sentChanges.map(\.recordID))
        let sent = results.sort(saves: saves, id: \.recordID, deletes: deletes, outcome: &outcome)
        let event = Event.SentRecordZoneChanges(
            savedRecords: sent.saved,
            failedRecordSaves: sent.failedSaves.map { .init(record: $0.item, error: $0.error) },
            deletedRecordIDs: sent.deleted,
            failedRecordDeletes: sent.failedDeletes
        )
        await deliver(.sentRecordZoneChanges(event), before: {
            state.update { storage in
                for (index, change) in sentChanges.enumerated() where !sent.kept.contains(index) {
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

    /// Sorts the items of the request, `saves` (each named by `id`) then `deletes`, by what
    /// happened to them, noting each failure and the request's error in `outcome`. An item
    /// without a result gets the request's error.
    func sort<Item>(saves: [Item], id: (Item) -> ID, deletes: [ID], outcome: inout SendOutcome) -> SentItems<Item, ID, Value> {
        let saveResults = Dictionary(self.saves, uniquingKeysWith: { _, last in last })
        let deleteResults = Dictionary(self.deletes, uniquingKeysWith: { _, last in last })
        let fallback = requestError ?? CKError(.internalError, message: "the server returned no result for this item")
        var sent = SentItems<Item, ID, Value>()
        for (index, item) in saves.enumerated() {
            switch saveResults[id(item)] ?? .failure(fallback) {
            case .success(let saved): sent.saved.append(saved)
            case .failure(let error):
                sent.failedSaves.append((item, error))
                if outcome.record(error, for: id(item)) { sent.kept.insert(index) }
            }
        }
        for (offset, itemID) in deletes.enumerated() {
            switch deleteResults[itemID] ?? .failure(fallback) {
            case .success: sent.deleted.append(itemID)
            case .failure(let error):
                sent.failedDeletes[itemID] = error
                if outcome.record(error, for: itemID) { sent.kept.insert(saves.count + offset) }
            }
        }
        outcome.noteRequest(requestError)
        return sent
    }
}

/// The items of one modify request, sorted by what happened to them.
struct SentItems<Item, ID: Hashable, Saved> {
    /// What the server saved, in request order.
    var saved: [Saved] = []
    /// The saves that failed, with their errors.
    var failedSaves: [(item: Item, error: CKError)] = []
    /// The IDs deleted.
    var deleted: [ID] = []
    /// The deletes that failed, with their errors.
    var failedDeletes: [ID: CKError] = [:]
    /// The indexes (saves first, then deletes) of the items that stay pending.
    var kept: Set<Int> = []
}

extension SyncRun {
    /// Runs `operation`, a modify operation, in this run and collects its results; `connect`
    /// sets its per-save, per-delete and final blocks to the three it is given.
    func modify<Operation: CKDatabaseOperation, ID: Hashable, Value>(
        _ operation: Operation,
        group: CKOperationGroup,
        _ connect: ModifyConnector<Operation, ID, Value>
    ) async -> ItemResults<ID, Value> {
        let results = Locked(ItemResults<ID, Value>())
        connect(
            operation,
            { id, result in results.withValue { $0.saves.append((id, result.mapError(\.asCKError))) } },
            { id, result in results.withValue { $0.deletes.append((id, result.mapError(\.asCKError))) } },
            { result in results.withValue { $0.finish(result) } }
        )
        await execute(operation, group: group)
        return results.value
    }
}
