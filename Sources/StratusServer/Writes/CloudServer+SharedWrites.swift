import Foundation
import StratusWire

/// A write through a shared database into one owner's zones.
struct SharedWrite {
    /// The owner's account, whose storage the write is charged to.
    let ownerAccount: String
    /// The owner's user record name: the owner name of their zones in shared databases.
    let ownerUserRecordName: String

    /// The items of one zone that the participant may not write, and the deletes of the share
    /// itself, which take the participant out of it.
    struct Refusals {
        var saves: [Int: WireError] = [:]
        var deletes: [Int: WireError] = [:]
        var leaves: Set<Int> = []
    }
}

// Writes through the shared database. The records live in the owner's zone; the request names
// them with the owner's user record name as the zone's owner, and each item must be one the
// caller's shares let them write: `readWrite` permission, on a record the share covers after
// the save (a new record needs a covered parent, unless the zone is shared whole). A share
// record is the owner's to save; a participant deleting it leaves the share.

extension CloudServer {
    /// Applies a modify sent to the caller's shared database, owner by owner.
    func modifyShared(_ request: WireRecordsModifyRequest, scope: RequestScope) throws(WireError) -> WireRecordsModifyResponse {
        let user = try scope.requireAccount().userRecordName
        var saveResults: [Result<WireRecord, WireError>?] = Array(repeating: nil, count: request.saves.count)
        var deleteResults: [Result<Void, WireError>?] = Array(repeating: nil, count: request.deletes.count)
        var owners: [String] = []
        var groups: [String: (saves: [Int], deletes: [Int])] = [:]
        func group(_ zoneID: WireZoneID) -> String? {
            let owner = zoneID.ownerName
            guard !owner.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName), !owner.hasSameUTF8Bytes(as: user), !zoneID.isDefaultZone,
                  scope.container.account(forUserRecordName: owner) != nil else { return nil }
            if groups[owner] == nil {
                groups[owner] = ([], [])
                owners.append(owner)
            }
            return owner
        }
        // A zone no shared database holds, or one this caller's does not.
        let unreachable = { (zoneID: WireZoneID) in scope.refusalInSharedDatabase(of: zoneID) ?? Self.notShared(zoneID) }
        for (index, save) in request.saves.enumerated() {
            if let owner = group(save.record.recordID.zoneID) { groups[owner]?.saves.append(index) } else { saveResults[index] = .failure(unreachable(save.record.recordID.zoneID)) }
        }
        for (index, recordID) in request.deletes.enumerated() {
            if let owner = group(recordID.zoneID) { groups[owner]?.deletes.append(index) } else { deleteResults[index] = .failure(unreachable(recordID.zoneID)) }
        }

        for owner in owners {
            guard let indices = groups[owner], let account = scope.container.account(forUserRecordName: owner) else { continue }
            let ownerView = { (record: WireRecord) in record.relabelingOwner(owner, as: WireZoneID.currentUserOwnerName) }
            var part = request
            part.saves = indices.saves.map { index in
                var save = request.saves[index]
                save.record = ownerView(save.record)
                return save
            }
            part.deletes = indices.deletes.map { request.deletes[$0].relabelingOwner(owner, as: WireZoneID.currentUserOwnerName) }
            let database = scope.container.database(.private, account: account)
            let response = try modify(part, in: database, scope: scope, sharing: SharedWrite(ownerAccount: account, ownerUserRecordName: owner))
            for (offset, index) in indices.saves.enumerated() {
                let zoneID = request.saves[index].record.recordID.zoneID
                saveResults[index] = response.saveResults[offset].result.map { $0.relabelingOwner(WireZoneID.currentUserOwnerName, as: owner) }
                    .mapError { Self.sharedView(of: $0, owner: owner, zoneID: zoneID) }
            }
            for (offset, index) in indices.deletes.enumerated() {
                let zoneID = request.deletes[index].zoneID
                deleteResults[index] = response.deleteResults[offset].result.mapError { Self.sharedView(of: $0, owner: owner, zoneID: zoneID) }
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

    /// What the caller may not do among one zone's items of a write through the shared
    /// database. Call with the zone locked.
    ///
    /// - A delete needs `readWrite` on a record the caller sees (`unknownItem` for one they do
    ///   not); deleting a share of theirs leaves it; a share's root is the owner's to delete,
    ///   as Apple's `CKShare.Participant` documentation says, since it takes the share with it.
    /// - A save needs `readWrite` on the record as it is now (a new record has no "now") and
    ///   after the save: its `parent` chain, followed as it will be once the request is
    ///   applied (a record saved in the same request counts with its new parent, unless its own
    ///   save is refused; a save that leaves the parent alone keeps the stored one), must reach
    ///   a root of a share that lets the caller write. The chain never runs through a share
    ///   record, which is nobody's parent. A share record and a root's parent are the owner's
    ///   to change. A new `deleteSelf` reference must name a record the caller sees.
    ///
    /// Saves that fail later, when applied, can still change what a chain runs through; the
    /// request checks the records it applied once more (``uncoveredSharedSaves(in:applied:saves:user:)``).
    func checkSharedWrite(of batch: ZoneBatch, _ request: WireRecordsModifyRequest, user: String, sharing: SharedWrite) -> SharedWrite.Refusals {
        let store = batch.store
        var refusals = SharedWrite.Refusals()
        let grants = store.isDeleted ? [] : store.grants(for: user)
        let sharedZoneID = WireZoneID(zoneName: store.zoneID.zoneName, ownerName: sharing.ownerUserRecordName)
        guard !grants.isEmpty else {
            for index in batch.saveIndices { refusals.saves[index] = Self.notShared(sharedZoneID) }
            for index in batch.deleteIndices { refusals.deletes[index] = Self.notShared(sharedZoneID) }
            return refusals
        }
        let notWritable = { (name: String) in
            WireError(.permissionFailure, "record '\(name)' is not in a share that lets you write it")
        }
        for index in batch.deleteIndices {
            let name = WireName(request.deletes[index].recordName)
            guard let stored = store.records[name], let permission = store.permission(on: name, grants: grants) else {
                refusals.deletes[index] = WireError(.unknownItem, "record '\(name)' does not exist")
                continue
            }
            if store.shareNames.contains(name) {
                if grants.contains(where: { $0.shareName == name }) { refusals.leaves.insert(index) } else { refusals.deletes[index] = notWritable(name.string) }
            } else if permission != .readWrite {
                refusals.deletes[index] = notWritable(name.string)
            } else if let share = store.currentShare(of: stored) {
                refusals.deletes[index] = WireError(.permissionFailure, "record '\(name)' is the root of share '\(share)'; only the share's owner can delete it")
            }
        }

        // Each save's parent once saved: the one it sends when it sets one or creates the
        // record, else the stored one, which the server keeps.
        var parents: [WireName: WireReference?] = [:]
        for index in batch.saveIndices {
            let save = request.saves[index]
            let name = WireName(save.record.recordID.recordName)
            let stored = store.records[name]
            parents[name] = save.parentChanged || stored == nil ? save.record.parent : stored?.record.parent
        }
        var standing: [Int] = []
        for index in batch.saveIndices {
            let record = request.saves[index].record
            let name = WireName(record.recordID.recordName)
            if WireShareRules.isShareType(record.recordType) || store.shareNames.contains(name) {
                refusals.saves[index] = WireError(.permissionFailure, "only the owner of share '\(name)' can save it")
            } else if store.records[name] != nil, store.permission(on: name, grants: grants) != .readWrite {
                refusals.saves[index] = notWritable(name.string)
            } else if let stored = store.records[name], let share = store.currentShare(of: stored),
                      parents[name] ?? nil != stored.record.parent {
                refusals.saves[index] = WireError(.permissionFailure, "record '\(name)' is the root of share '\(share)'; only the share's owner can change its parent")
            } else {
                standing.append(index)
            }
        }
        for index in batch.saveIndices where refusals.saves[index] != nil {
            parents[WireName(request.saves[index].record.recordID.recordName)] = nil
        }
        // A refused save leaves its record's parent as stored, which may take others out of
        // the share in turn, and takes away a target of others' `deleteSelf` references:
        // refuse until nothing changes.
        var refusedMore = true
        while refusedMore {
            refusedMore = false
            let saved = Set(standing.filter { refusals.saves[$0] == nil }.map { WireName(request.saves[$0].record.recordID.recordName) })
            for index in standing where refusals.saves[index] == nil {
                let record = request.saves[index].record
                let name = WireName(record.recordID.recordName)
                if permissionAfterSave(of: name, parents: parents, store: store, grants: grants) != .readWrite {
                    refusals.saves[index] = notWritable(name.string)
                } else if let target = hiddenTarget(of: record, saved: saved, store: store, grants: grants) {
                    refusals.saves[index] = WireError(.referenceViolation, "record '\(name)' references '\(target)', which neither exists nor is saved in the same request")
                } else {
                    continue
                }
                parents[name] = nil
                refusedMore = true
            }
        }
        return refusals
    }

    /// A record that a new `deleteSelf` reference of `record` names and the caller does not
    /// see (nor saves in the request, `saved`), if any. Such a reference holds only if its
    /// target exists; answering a participant differently for a record that exists outside
    /// their share and one that does not would tell them which records the owner has, so
    /// both are refused alike, as a reference to a record that does not exist. A reference
    /// the stored record already holds (the owner's) stays allowed.
    private func hiddenTarget(of record: WireRecord, saved: Set<WireName>, store: ZoneStore, grants: [ShareGrant]) -> WireName? {
        let name = WireName(record.recordID.recordName)
        let held = store.records[name]?.deleteSelfTargets ?? []
        return StoredRecord(record: record, assetBytes: 0).deleteSelfTargets.sorted().first { target in
            target != name && !held.contains(target) && !saved.contains(target)
                && (store.records[target] == nil || store.permission(on: target, grants: grants) == nil)
        }
    }

    /// What `grants` let their holder do with the record `name` once the request's standing
    /// saves are applied (`parents`: each one's parent after the save): through the zone-wide
    /// share, or as a share's root or under one, following `parent` links where no link
    /// leads to a share record.
    private func permissionAfterSave(of name: WireName, parents: [WireName: WireReference?], store: ZoneStore, grants: [ShareGrant]) -> WireParticipantPermission? {
        let zoneName = store.zoneID.zoneName
        // The parent of `name` after the request: a standing save's, else the stored one; nil
        // for a record that has none, or that neither exists nor is saved.
        let parentName = { (name: WireName) -> WireName? in
            let reference = parents[name] ?? store.records[name]?.record.parent
            guard let reference, reference.recordID.zoneID.zoneName.hasSameUTF8Bytes(as: zoneName) else { return nil }
            return WireName(reference.recordID.recordName)
        }
        let isShare = { (name: WireName) in store.shareNames.contains(name) || store.records[name]?.isShare == true }
        if let zoneWide = grants.first(where: { $0.rootName == nil }) {
            if let parent = parentName(name), isShare(parent) { return nil }
            return zoneWide.permission
        }
        var current = name
        var visited: Set<WireName> = []
        while visited.count <= ShareRules.maximumHierarchyDepth, visited.insert(current).inserted, !isShare(current) {
            if let grant = grants.first(where: { $0.rootName == current }) { return grant.permission }
            guard let next = parentName(current) else { return nil }
            current = next
        }
        return nil
    }

    /// The saves of a write through the shared database that, as applied (`applied`, the zone
    /// `store` locked, the request's other changes in place), left a record the caller's
    /// shares do not let them write: a save of the request that failed when applied left a
    /// parent where it was, or a delete of the request took a parent away. Each is undone with
    /// `permissionFailure`.
    func uncoveredSharedSaves(in store: ZoneStore, applied: [Int: AppliedSave], saves: [WireRecordSave], user: String) -> [Int: WireError] {
        let grants = store.grants(for: user)
        var errors: [Int: WireError] = [:]
        for index in applied.keys {
            let name = WireName(saves[index].record.recordID.recordName)
            guard store.permission(on: name, grants: grants) != .readWrite else { continue }
            errors[index] = WireError(.permissionFailure, "record '\(name)' would not be in a share that lets you write it once the saves of this request that failed are left out")
        }
        return errors
    }

    /// The participant leaves the share `recordID` names: they are taken off its participants
    /// (a write of the share by the server); the share's zone leaves their shared database
    /// once no other share of theirs is there.
    func leaveShare(_ recordID: WireRecordID, in transaction: inout ZoneTransaction, user: String, sharing: SharedWrite, database: DatabaseStore) -> Result<Void, WireError> {
        guard let stored = transaction.record(named: recordID.recordName), var info = stored.record.shareInfo else {
            return .failure(WireError(.unknownItem, "share '\(recordID.recordName)' does not exist"))
        }
        info.participants.removeAll { $0.role != .owner && $0.identity.userRecordName == user }
        var record = stored.record
        record.shareInfo = info
        record.changeTag = nextChangeTag()
        record.modificationDate = database.nextDate(now: clock.now)
        transaction.set(StoredRecord(record: record, assetBytes: stored.assetBytes), named: recordID.recordName)
        return .success(())
    }
}

extension CloudServer {
    /// An error of a write into the owner's zone `zoneID` (as the participant names it) as the
    /// participant may see it: a zone that is missing, however it went (deleted, purged by the
    /// owner from iCloud settings, lost in an encrypted data reset), reads as any zone not in
    /// their shared database, so the answer tells nothing of the owner's zones; any other
    /// error names the owner's zones as the participant does.
    static func sharedView(of error: WireError, owner: String, zoneID: WireZoneID) -> WireError {
        if error.code == .zoneNotFound || error.code == .userDeletedZone { return notShared(zoneID) }
        return error.relabelingZoneNames(owner: owner)
    }
}

extension WireError {
    /// The error with the owner's zones named as the participant names them (a conflict's
    /// server record, for one).
    func relabelingZoneNames(owner: String) -> WireError {
        var error = self
        error.serverRecord = serverRecord?.relabelingOwner(WireZoneID.currentUserOwnerName, as: owner)
        return error
    }
}
