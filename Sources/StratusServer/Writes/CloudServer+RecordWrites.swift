import Foundation
import StratusWire

// The record write path: one modify request, zone by zone, through the write pipeline.

extension CloudServer {
    /// Applies `request` to `database`: the caller's own database, or, for a write through a
    /// shared database (`sharing`), an owner's private database whose zones the request names
    /// as the owner does, every item checked against what the caller's shares let them write.
    func modify(_ request: WireRecordsModifyRequest, in database: DatabaseStore, scope: RequestScope, sharing: SharedWrite?) throws(WireError) -> WireRecordsModifyResponse {
        let user = try scope.requireAccount().userRecordName

        // Checked with the zones as the server names them, so the same record spelled with the
        // caller's user record name as owner and with `__defaultOwner__` is one record.
        var normalizedSaves = request.saves
        for index in normalizedSaves.indices {
            let zoneID = normalizedSaves[index].record.recordID.zoneID
            let normalized = scope.normalized(zoneID)
            // Only a record that names its owner is rewritten: a rewrite copies the record.
            if normalized != zoneID { normalizedSaves[index].record.recordID.zoneID = normalized }
        }
        let normalizedDeletes = request.deletes.map { WireRecordID(recordName: $0.recordName, zoneID: scope.normalized($0.zoneID)) }
        let checks = WireModifyChecks(saves: normalizedSaves, deletes: normalizedDeletes, isAtomic: request.isAtomic)
        var saveResults: [Result<WireRecord, WireError>?] = checks.saveErrors.map { $0.map { .failure($0) } }
        var deleteResults: [Result<Void, WireError>?] = checks.deleteErrors.map { $0.map { .failure($0) } }

        // Find each remaining item's zone; items of missing zones fail now.
        var batches: [WireZoneID: ZoneBatch] = [:]
        var zoneOrder: [WireZoneID] = []
        func batch(for zoneID: WireZoneID) -> WireZoneID? {
            let normalized = scope.normalized(zoneID)
            if batches[normalized] != nil { return normalized }
            guard let store = database.zone(normalized) else { return nil }
            batches[normalized] = ZoneBatch(store: store)
            zoneOrder.append(normalized)
            return normalized
        }
        for (index, save) in request.saves.enumerated() where saveResults[index] == nil {
            if let zoneID = batch(for: save.record.recordID.zoneID) {
                batches[zoneID]?.saveIndices.append(index)
            } else {
                saveResults[index] = .failure(database.missingZoneError(scope.normalized(save.record.recordID.zoneID)))
            }
        }
        for (index, recordID) in request.deletes.enumerated() where deleteResults[index] == nil {
            if let zoneID = batch(for: recordID.zoneID) {
                batches[zoneID]?.deleteIndices.append(index)
            } else {
                deleteResults[index] = .failure(database.missingZoneError(scope.normalized(recordID.zoneID)))
            }
        }

        // Check the saves' asset receipts before any zone is locked; an asset refused fails
        // its save at its turn below. The request holds the uploaded bytes until the records
        // that keep them are committed.
        var prepared: [Int: Result<WireRecordSave, WireError>] = [:]
        for (index, save) in request.saves.enumerated()
        where saveResults[index] == nil && save.record.fields.values.contains(where: \.holdsAsset) {
            prepared[index] = Result(catching: { () throws(WireError) -> WireRecordSave in try admitAssets(of: save, scope: scope) })
        }
        defer {
            for case .success(let save) in prepared.values { assets.release(save.record) }
        }
        let owner = request.saves.contains(where: { WireShareRules.isShareType($0.record.recordType) })
            ? shareOwnerIdentity(scope) : nil

        // Lock every zone the request touches and apply zone by zone, through the pipeline.
        let write = Write(
            to: database, in: scope.container, by: WriteOrigin(scope, operationID: request.context.operationID),
            owner: sharing?.ownerUserRecordName ?? scope.userRecordName,
            ledger: StorageLedger(scope, account: sharing?.ownerAccount),
            clientChangeToken: request.clientChangeTokenData.map { ClientChangeToken(data: $0, deviceID: scope.deviceID) }
        )
        try perform(write, locking: batches.values.map(\.store)) { (write: inout Write) throws(WireError) in
            for zoneID in zoneOrder {
                guard var zoneBatch = batches[zoneID] else { continue }
                if let data = request.clientChangeTokenData, zoneBatch.store.changeLog.isRepeat(of: data, from: scope.deviceID) {
                    if database.scope == .public {
                        answerPublicRepeat(of: &zoneBatch, request, prepared: prepared, scope: scope, saveResults: &saveResults)
                    } else if sharing != nil {
                        answerSharedRepeat(of: &zoneBatch, request, user: user, scope: scope, saveResults: &saveResults, deleteResults: &deleteResults)
                    } else {
                        answerRepeat(of: zoneBatch, request, scope: scope, saveResults: &saveResults, deleteResults: &deleteResults)
                        continue
                    }
                }
                var context = SaveContext(
                    scope: scope, database: database, user: user, policy: request.savePolicy,
                    namesSaved: Set(zoneBatch.saveIndices.map { WireName(request.saves[$0].record.recordID.recordName) }),
                    owner: owner
                )
                var failed = false
                let refusals = sharing.map { checkSharedWrite(of: zoneBatch, request, user: user, sharing: $0) } ?? SharedWrite.Refusals()
                let orphaning = zoneBatch.store.isDeleted ? [:] : orphaningDeletes(
                    deleteCandidates(of: zoneBatch, request, refusals: refusals, context),
                    in: zoneBatch.store,
                    readable: readableNames(in: zoneBatch.store, context, sharing: sharing)
                )
                for index in zoneBatch.deleteIndices {
                    let result: Result<Void, WireError>
                    if zoneBatch.store.isDeleted {
                        result = .failure(database.missingZoneError(zoneID))
                    } else if let refusal = refusals.deletes[index] ?? orphaning[index] {
                        result = .failure(refusal)
                    } else if let sharing, refusals.leaves.contains(index) {
                        result = leaveShare(request.deletes[index], in: &zoneBatch.transaction, user: user, sharing: sharing, database: database)
                    } else {
                        result = delete(request.deletes[index], from: &zoneBatch.transaction, context)
                    }
                    if case .failure = result { failed = true }
                    deleteResults[index] = result
                }
                if owner != nil, !zoneBatch.store.isDeleted {
                    context.shares = SharePlan(saves: request.saves, indices: zoneBatch.saveIndices, store: zoneBatch.store, scope: scope)
                }
                var applied: [Int: AppliedSave] = [:]
                for index in zoneBatch.saveIndices {
                    if let refusal = refusals.saves[index] ?? context.shares.refusals[index] {
                        failed = true
                        saveResults[index] = .failure(refusal)
                        continue
                    }
                    let save = (try? prepared[index]?.get()) ?? request.saves[index]
                    var assetFailure: WireError?
                    if case .failure(let error)? = prepared[index] { assetFailure = error }
                    let result = zoneBatch.store.isDeleted
                        ? .failure(database.missingZoneError(zoneID))
                        : apply(save, assetFailure: assetFailure, to: &zoneBatch.transaction, context)
                    switch result {
                    case .success(let save):
                        applied[index] = save
                        saveResults[index] = .success(save.record)
                    case .failure(let error):
                        failed = true
                        saveResults[index] = .failure(error)
                    }
                }
                // A save that stands on another save of the request stands only if that one does.
                let uncovered = { [self] (store: ZoneStore, applied: [Int: AppliedSave]) -> [Int: WireError] in
                    sharing == nil ? [:] : uncoveredSharedSaves(in: store, applied: applied, saves: request.saves, user: user)
                }
                if settle(&zoneBatch.transaction, applied: &applied, saves: request.saves, shares: context.shares, saveResults: &saveResults, uncovered: uncovered) {
                    failed = true
                }
                if !zoneBatch.store.isDeleted {
                    if !zoneBatch.deleteIndices.isEmpty { releaseRootsOfDeletedShares(in: &zoneBatch.transaction, context) }
                    let children = applied.filter { $0.value.record.parent != nil }.keys.sorted()
                    touchParents(of: children.map { WireName(request.saves[$0].record.recordID.recordName) }, in: &zoneBatch.transaction, context)
                }
                let zoneIsAtomic = zoneBatch.store.zone.capabilities.contains(.atomic)
                if failed, WireAtomicBatch.failureSpreads(isAtomic: request.isAtomic, zoneIsAtomic: zoneIsAtomic, brokeStatelessRule: false) {
                    zoneBatch.transaction.rollBack()
                    let blocked = WireAtomicBatch.blocked(inZone: zoneID.zoneName)
                    for index in zoneBatch.saveIndices where (try? saveResults[index]?.get()) != nil { saveResults[index] = .failure(blocked) }
                    for index in zoneBatch.deleteIndices where (try? deleteResults[index]?.get()) != nil { deleteResults[index] = .failure(blocked) }
                }
                batches[zoneID] = zoneBatch
            }
            for zoneID in zoneOrder {
                if let transaction = batches[zoneID]?.transaction { write.stage(transaction, for: zoneID) }
            }
        }

        return WireRecordsModifyResponse(
            saveResults: zip(request.saves, saveResults).map { save, result in
                WireItemResult(id: save.record.recordID, result: result ?? .failure(WireError(.internalError, "no result")))
            },
            deleteResults: zip(request.deletes, deleteResults).map { recordID, result in
                WireItemResult(id: recordID, result: result ?? .failure(WireError(.internalError, "no result")))
            }
        )
    }
}

extension CloudServer {
    /// The deletes of one zone's batch that remove records if nothing else fails them, by
    /// index, with the names of their records: those the zone holds, that the shared write's
    /// checks (`refusals`) neither refuse nor turn into leaving a share, and that the user may
    /// delete. What ``orphaningDeletes(_:in:)`` judges.
    fileprivate func deleteCandidates(of batch: ZoneBatch, _ request: WireRecordsModifyRequest, refusals: SharedWrite.Refusals, _ context: SaveContext) -> [Int: WireName] {
        var candidates: [Int: WireName] = [:]
        for index in batch.deleteIndices where refusals.deletes[index] == nil && !refusals.leaves.contains(index) {
            let name = WireName(request.deletes[index].recordName)
            guard let stored = batch.store.records[name], deleteRefusal(of: stored, context) == nil else { continue }
            candidates[index] = name
        }
        return candidates
    }

    /// Answers the items of a zone whose modify repeats the device's last applied one there
    /// (the same `clientChangeTokenData`): nothing is applied again; a save gets the record as
    /// the server has it (`unknownItem` when it is gone since), a delete succeeds. Only in the
    /// owner's private database, where every record of the zone is the caller's; the shared and
    /// public databases answer a repeat item by item
    /// (``answerSharedRepeat(of:_:user:scope:saveResults:deleteResults:)``,
    /// ``answerPublicRepeat(of:_:prepared:scope:saveResults:)``).
    fileprivate func answerRepeat(
        of batch: ZoneBatch,
        _ request: WireRecordsModifyRequest,
        scope: RequestScope,
        saveResults: inout [Result<WireRecord, WireError>?],
        deleteResults: inout [Result<Void, WireError>?]
    ) {
        for index in batch.saveIndices {
            let name = request.saves[index].record.recordID.recordName
            saveResults[index] = batch.store.record(named: name).map { .success(present($0.record, to: scope)) }
                ?? .failure(WireError(.unknownItem, "record '\(name)' is gone since the request this one repeats"))
        }
        for index in batch.deleteIndices { deleteResults[index] = .success(()) }
    }

    /// Answers the items of a shared-database modify that repeats the device's last applied one
    /// in the owner's zone, for the records the caller's shares cover now: a save gets the
    /// record as the server has it, a delete succeeds without deleting again (the record seen
    /// is one created since). Each is taken out of `batch`.
    ///
    /// Every other item (a record outside the caller's shares, one gone since, any item of a
    /// caller who is no longer a participant) is applied as a new request, under the sharing
    /// rules (``checkSharedWrite(of:_:user:sharing:)``): the zone holds records of the owner's
    /// the caller may not see, so a resend answers nothing a first send would not.
    fileprivate func answerSharedRepeat(
        of batch: inout ZoneBatch,
        _ request: WireRecordsModifyRequest,
        user: String,
        scope: RequestScope,
        saveResults: inout [Result<WireRecord, WireError>?],
        deleteResults: inout [Result<Void, WireError>?]
    ) {
        let store = batch.store
        let grants = store.isDeleted ? [] : store.grants(for: user)
        guard !grants.isEmpty else { return }
        func covered(_ name: String) -> StoredRecord? {
            guard let stored = store.record(named: name), store.permission(on: WireName(name), grants: grants) != nil else { return nil }
            return stored
        }
        batch.saveIndices.removeAll { index in
            guard let stored = covered(request.saves[index].record.recordID.recordName) else { return false }
            saveResults[index] = .success(present(stored.record, to: scope, in: store))
            return true
        }
        batch.deleteIndices.removeAll { index in
            guard covered(request.deletes[index].recordName) != nil else { return false }
            deleteResults[index] = .success(())
            return true
        }
    }

    /// Answers the saves of a public-database modify that repeats the device's last applied
    /// one in the zone (the same `clientChangeTokenData`, resent because its answer was lost)
    /// and that the server still holds exactly as sent: the record was last written by the
    /// caller, has the type sent, every field sent with the value sent, none of the fields
    /// removed, and the parent sent when the save set one, and the caller may read it. Each is
    /// answered with the record as the server holds it and taken out of `batch`, so it is not
    /// written again and does not fail as a conflict with its own first landing.
    ///
    /// The other items are applied as any request is, under the security roles: a record
    /// someone changed since is a conflict, as CloudKit answers, and a record of another user
    /// is never answered as a repeat, so guessing its fields reveals nothing. Deletes need no
    /// answer of their own: deleting a record that is gone succeeds.
    ///
    /// CloudKit documents that the server ignores duplicate requests with the same
    /// `clientChangeTokenData` without naming the databases where it does; Stratus honours it
    /// in the public database too, item by item, because there the zone's records belong to
    /// many users.
    fileprivate func answerPublicRepeat(
        of batch: inout ZoneBatch,
        _ request: WireRecordsModifyRequest,
        prepared: [Int: Result<WireRecordSave, WireError>],
        scope: RequestScope,
        saveResults: inout [Result<WireRecord, WireError>?]
    ) {
        guard let user = scope.userRecordName else { return }
        let store = batch.store
        batch.saveIndices.removeAll { index in
            // The save as the server stored it: assets as their stored dictionaries.
            let save = (try? prepared[index]?.get()) ?? request.saves[index]
            guard let stored = store.record(named: save.record.recordID.recordName),
                  stored.record.lastModifiedUserRecordName == user,
                  stored.record.holds(save)
            else { return false }
            let grants = scope.container.permissions(for: stored.record.recordType).grants(signedIn: true, isCreator: scope.isCreator(of: stored))
            guard grants.contains(.read) else { return false }
            saveResults[index] = .success(present(stored.record, to: scope))
            return true
        }
    }
}

extension WireRecord {
    /// Whether this record, as stored, holds everything `save` writes: the type sent, every
    /// field sent with the value sent (plain and encrypted), none of the fields it removes,
    /// and, when the save sets the parent, that parent. Fields the save does not name are not
    /// compared: a save leaves them as they are.
    fileprivate func holds(_ save: WireRecordSave) -> Bool {
        guard recordType == save.record.recordType else { return false }
        if save.record.fields.contains(where: { fields[$0.key] != $0.value }) { return false }
        if save.record.encryptedFields.contains(where: { encryptedFields[$0.key] != $0.value }) { return false }
        if save.removedKeys.contains(where: { fields[$0] != nil }) { return false }
        if save.removedEncryptedKeys.contains(where: { encryptedFields[$0] != nil }) { return false }
        if save.parentChanged, parent != save.record.parent { return false }
        return true
    }
}

/// The items of one request in one zone, and the changes made to the zone for them.
struct ZoneBatch {
    var transaction: ZoneTransaction
    var saveIndices: [Int] = []
    var deleteIndices: [Int] = []

    var store: ZoneStore { transaction.store }

    init(store: ZoneStore) {
        transaction = ZoneTransaction(store: store)
    }
}

/// What a save needs to know about its request.
struct SaveContext {
    let scope: RequestScope
    let database: DatabaseStore
    let user: String
    let policy: WireSavePolicy
    /// The names of the records the request saves in this zone, which references may target.
    let namesSaved: Set<WireName>
    /// The identity of the user saving, for the owner of the shares the request creates; nil
    /// when the request saves no share.
    let owner: WireUserIdentity?
    /// What the request does to the zone's shares.
    var shares = SharePlan()
}
