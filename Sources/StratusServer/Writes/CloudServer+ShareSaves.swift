import Foundation
import StratusWire

extension CloudServer {
    /// The identity of the user `scope` runs under, as the owner of the shares it saves: the
    /// real user record name, looked up by it, with the name the account gave, if any. Read
    /// before any zone is locked.
    func shareOwnerIdentity(_ scope: RequestScope) -> WireUserIdentity? {
        guard let account = scope.account, let user = scope.userRecordName else { return nil }
        let name = registry.withLock { $0.people.profiles[account]?.name }
        return WireUserIdentity(userRecordName: user, lookupInfo: WireUserLookupInfo(userRecordID: WireRecordID(recordName: user)), nameComponents: name)
    }

    /// The state a share is stored with after `save` over `existing` (nil for a new share):
    /// ``ShareRules``' merge, with the URL and owner the server assigns.
    ///
    /// The participants are saved with `.ifServerRecordUnchanged` semantics whatever the save
    /// policy, as CloudKit's header says: under `.changedKeys` or `.allKeys`, a save whose
    /// change tag is not the server's (or missing) and that would change the participant list
    /// fails with `serverRecordChanged` and the server's record; one that leaves the list as
    /// it is goes through like any other save under that policy.
    func shareInfo(saving save: WireRecordSave, over existing: StoredRecord?, in store: ZoneStore, _ context: SaveContext) -> Result<WireShareInfo, WireError> {
        let name = save.record.recordID.recordName
        let zoneID = store.zoneID
        let container = context.scope.container.identifier
        let ownerIdentity = context.owner ?? WireUserIdentity(userRecordName: context.user, lookupInfo: WireUserLookupInfo(userRecordID: WireRecordID(recordName: context.user)), nameComponents: nil)
        let root = context.shares.roots[WireName(name)]?.name.string ?? (name.hasSameUTF8Bytes(as: WireShareRules.zoneWideShareName) ? "" : name)
        let key = sealingKey
        let owner = ShareRules.Owner(
            identity: ownerIdentity,
            participantID: ShareRules.token(["owner", container, context.user, zoneID.zoneName, name], key: key),
            url: ShareRules.urlPrefix + ShareRules.token(["url", container, context.user, zoneID.zoneName, root], key: key),
            newParticipantID: { identityKey in ShareRules.token(["participant", container, context.user, zoneID.zoneName, name, identityKey], key: key) }
        )
        let stored = existing?.record.shareInfo
        let merged: WireShareInfo
        switch ShareRules.merged(stored: stored, incoming: save.record.shareInfo, owner: owner, shareName: name) {
        case .success(let info): merged = info
        case .failure(let error): return .failure(error)
        }
        if context.policy != .ifServerRecordUnchanged, let existing, save.record.changeTag != existing.record.changeTag,
           merged.participants != (stored?.participants ?? []) {
            return .failure(WireError(
                .serverRecordChanged,
                "the participants of share '\(name)' are saved only over the server's version (change tag \(existing.record.changeTag ?? "nil"), not \(save.record.changeTag ?? "nil")), whatever the save policy; fetch the share and apply the change again",
                serverRecord: present(existing.record, to: context.scope)
            ))
        }
        return .success(merged)
    }

    /// The share reference a record other than a share is stored with after `incoming` is
    /// saved over `existing`.
    ///
    /// The server sets `share`; a client only proposes it for a new share's root. A record
    /// whose share still exists keeps it whatever the client sends (the server ignores edits
    /// of `share` on such a record; only deleting the share clears it). A record with no
    /// share becomes the root of the new share the request saves with it when its `share`
    /// names that share (``SharePlan``); naming a share that already exists (another record's,
    /// or the zone-wide share) changes nothing; naming one that neither exists nor is saved in
    /// the request is `referenceViolation`.
    func rootShare(of incoming: WireRecord, over existing: StoredRecord?, in store: ZoneStore, _ context: SaveContext) -> Result<WireReference?, WireError> {
        let name = incoming.recordID.recordName
        if let current = store.currentShare(of: existing) {
            return .success(WireReference(recordID: WireRecordID(recordName: current.string, zoneID: store.zoneID), action: .none))
        }
        guard let wanted = incoming.share else { return .success(nil) }
        guard context.scope.normalized(wanted.recordID.zoneID) == store.zoneID else {
            return .failure(WireError(.invalidArguments, "record '\(name)' names share '\(wanted.recordID.recordName)' of zone '\(wanted.recordID.zoneID.zoneName)'; a record's share is in the record's zone"))
        }
        let share = WireName(wanted.recordID.recordName)
        if context.shares.newShares[share] != nil {
            if let root = context.shares.roots[share] {
                guard root.name == WireName(name) else {
                    return .failure(WireError(.invalidArguments, "share '\(share)' is saved with root record '\(root.name)' in this request; a share has one root record"))
                }
                return .success(WireReference(recordID: WireRecordID(recordName: share.string, zoneID: store.zoneID), action: .none))
            }
            if share != WireName(WireShareRules.zoneWideShareName) {
                return .failure(WireError(.referenceViolation, "record '\(name)' names share '\(share)' as its share, whose save in the same request failed"))
            }
            return .success(nil)
        }
        if store.records[share] != nil { return .success(nil) }
        return .failure(WireError(.referenceViolation, "record '\(name)' names share '\(share)' as its share, which neither exists nor is saved in the same request"))
    }

    /// Clears the `share` of the roots whose share the request deleted, giving each a new
    /// change tag (a change in the zone's history); roots the request saved were stored
    /// without it already.
    func releaseRootsOfDeletedShares(in transaction: inout ZoneTransaction, _ context: SaveContext) {
        let store = transaction.store
        let orphaned = store.shareHolders.filter { store.records[$0.key]?.isShare != true }.values.flatMap { $0 }
        for name in orphaned.sorted() {
            guard var stored = store.records[name] else { continue }
            stored.record.share = nil
            stored.record.changeTag = nextChangeTag()
            stored.record.modificationDate = context.database.nextDate(now: clock.now)
            stored.record.lastModifiedUserRecordName = context.user
            transaction.set(stored, named: name.string)
        }
    }
}
