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
            guard !owner.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName), !owner.hasSameUTF8Bytes(as: user),
                  scope.container.account(forUserRecordName: owner) != nil else { return nil }
            if groups[owner] == nil {
                groups[owner] = ([], [])
                owners.append(owner)
            }
            return owner
        }
        for (index, save) in request.saves.enumerated() {
            if let owner = group(save.record.recordID.zoneID) { groups[owner]?.saves.append(index) } else { saveResults[index] = .failure(Self.notShared(save.record.recordID.zoneID)) }
        }
        for (index, recordID) in request.deletes.enumerated() {
            if let owner = group(recordID.zoneID) { groups[owner]?.deletes.append(index) } else { deleteResults[index] = .failure(Self.notShared(recordID.zoneID)) }
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
                saveResults[index] = response.saveResults[offset].result.map { $0.relabelingOwner(WireZoneID.currentUserOwnerName, as: owner) }
                    .mapError { $0.relabelingZoneNames(owner: owner) }
            }
            for (offset, index) in indices.deletes.enumerated() {
                deleteResults[index] = response.deleteResults[offset].result.mapError { $0.relabelingZoneNames(owner: owner) }
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
    func checkSharedWrite(of batch: ZoneBatch, _ request: WireRecordsModifyRequest, user: String, sharing: SharedWrite) -> SharedWrite.Refusals {
        let store = batch.store
        var refusals = SharedWrite.Refusals()
        let grants = store.isDeleted ? [] : store.grants(for: user)
        let sharedZoneID = WireZoneID(zoneName: store.zone.zoneID.zoneName, ownerName: sharing.ownerUserRecordName)
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
            guard store.records[name] != nil, let permission = store.permission(on: name, grants: grants) else {
                refusals.deletes[index] = WireError(.unknownItem, "record '\(name)' does not exist")
                continue
            }
            if store.shareNames.contains(name) {
                if grants.contains(where: { $0.shareName == name }) { refusals.leaves.insert(index) } else { refusals.deletes[index] = notWritable(name.string) }
            } else if permission != .readWrite {
                refusals.deletes[index] = notWritable(name.string)
            }
        }
        var saved: [WireName: WireRecord] = [:]
        for index in batch.saveIndices { saved[WireName(request.saves[index].record.recordID.recordName)] = request.saves[index].record }
        for index in batch.saveIndices {
            let record = request.saves[index].record
            let name = WireName(record.recordID.recordName)
            if WireShareRules.isShareType(record.recordType) || store.shareNames.contains(name) {
                refusals.saves[index] = WireError(.permissionFailure, "only the owner of share '\(name)' can save it")
                continue
            }
            let writableNow = store.records[name] == nil || store.permission(on: name, grants: grants) == .readWrite
            guard writableNow, permissionAfterSave(of: record, saved: saved, store: store, grants: grants) == .readWrite else {
                refusals.saves[index] = notWritable(name.string)
                continue
            }
        }
        return refusals
    }

    /// What `grants` let their holder do with `record` once saved: through the zone-wide
    /// share, as a share's root, or through its parent (saved in the same request, or stored).
    private func permissionAfterSave(of record: WireRecord, saved: [WireName: WireRecord], store: ZoneStore, grants: [ShareGrant]) -> WireParticipantPermission? {
        if let zoneWide = grants.first(where: { $0.rootName == nil }) { return zoneWide.permission }
        var current = record
        var visited: Set<WireName> = []
        while visited.count <= ShareRules.maximumHierarchyDepth {
            let name = WireName(current.recordID.recordName)
            guard visited.insert(name).inserted else { return nil }
            if let grant = grants.first(where: { $0.rootName == name }) { return grant.permission }
            guard let parent = current.parent, parent.recordID.zoneID.zoneName.hasSameUTF8Bytes(as: store.zone.zoneID.zoneName) else { return nil }
            let parentName = WireName(parent.recordID.recordName)
            if let next = saved[parentName] {
                current = next
            } else {
                return store.records[parentName] == nil ? nil : store.permission(on: parentName, grants: grants)
            }
        }
        return nil
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

extension WireError {
    /// The error with the owner's zones named as the participant names them (a conflict's
    /// server record, for one).
    func relabelingZoneNames(owner: String) -> WireError {
        var error = self
        error.serverRecord = serverRecord?.relabelingOwner(WireZoneID.currentUserOwnerName, as: owner)
        return error
    }
}
