import Foundation
import StratusWire

extension CloudServer {
    /// A save that went through: the record as its sender sees it, and the records it
    /// references that exist only because the same request saves them.
    struct AppliedSave {
        var record: WireRecord
        var pendingTargets: Set<WireName>
        /// The record as it was just before this save, to put back if the save is undone.
        var replaced: StoredRecord?
    }

    /// Saves one record into a locked zone, following the save policy, or says why not.
    ///
    /// A share (type `cloudkit.share`) is saved only where shares may live, with the state
    /// ``shareInfo(saving:over:in:_:)`` works out and never a parent; any other record keeps
    /// the `share` ``rootShare(of:over:in:_:)`` gives it, and its `shareInfo` is dropped.
    ///
    /// - Parameter assetFailure: Why the save's assets were refused, found by
    ///   `admitAssets(of:scope:)` before the zone was locked.
    func apply(_ save: WireRecordSave, assetFailure: WireError?, to transaction: inout ZoneTransaction, _ context: SaveContext) -> Result<AppliedSave, WireError> {
        let incoming = save.record
        let name = incoming.recordID.recordName
        let existing = transaction.record(named: name)
        let isShare = WireShareRules.isShareType(incoming.recordType)

        if isShare, let error = ShareRules.checkLocation(ofShare: name, in: transaction.store.zone, database: context.database.scope) {
            return .failure(error)
        }
        if !isShare, name.hasSameUTF8Bytes(as: WireShareRules.zoneWideShareName) {
            return .failure(WireError(.invalidArguments, "record name '\(WireShareRules.zoneWideShareName)' is reserved for a zone's zone-wide share"))
        }
        if let error = checkPermission(toSave: incoming, over: existing, context) { return .failure(error) }
        if let error = userRecordRule(saving: incoming, over: existing?.record, user: context.user) { return .failure(error) }
        if let existing, existing.record.recordType != incoming.recordType {
            return .failure(WireError(.invalidArguments, "record '\(name)' has type '\(existing.record.recordType)' on the server, not '\(incoming.recordType)'"))
        }
        if context.policy == .ifServerRecordUnchanged {
            switch (incoming.changeTag, existing) {
            case (nil, let existing?):
                return .failure(WireError(.serverRecordChanged, "record to insert already exists: '\(name)' is on the server with change tag \(existing.record.changeTag ?? "nil")", serverRecord: present(existing.record, to: context.scope)))
            case (_?, nil):
                return .failure(WireError(.unknownItem, "record '\(name)' was deleted on the server; save it without a change tag to create it again"))
            case (let tag?, let existing?) where tag != existing.record.changeTag:
                return .failure(WireError(.serverRecordChanged, "client oplock error updating record: '\(name)' has change tag \(existing.record.changeTag ?? "nil") on the server, not \(tag)", serverRecord: present(existing.record, to: context.scope)))
            default:
                break
            }
        }

        var record: WireRecord
        if let existing {
            record = existing.record
            for (key, value) in incoming.fields { record.fields[key] = value }
            for (key, value) in incoming.encryptedFields { record.encryptedFields[key] = value }
        } else {
            // A new record takes the saved fields as they are, without copying them one by one.
            record = WireRecord(
                recordID: WireRecordID(recordName: name, zoneID: transaction.store.zoneID),
                recordType: incoming.recordType, fields: incoming.fields, encryptedFields: incoming.encryptedFields
            )
        }
        for key in save.removedKeys { record.fields[key] = nil }
        for key in save.removedEncryptedKeys { record.encryptedFields[key] = nil }
        let parentChanged = !isShare && (save.parentChanged || existing == nil)
        if parentChanged { record.parent = incoming.parent }
        if isShare {
            switch shareInfo(saving: save, over: existing, in: transaction.store, context) {
            case .success(let info): record.shareInfo = info
            case .failure(let error): return .failure(error)
            }
        } else {
            record.shareInfo = nil
            switch rootShare(of: incoming, over: existing, in: transaction.store, context) {
            case .success(let share): record.share = share
            case .failure(let error): return .failure(error)
            }
        }

        let pendingTargets: Set<WireName>
        switch checkReferences(incoming, parentChanged: parentChanged, in: transaction.store, context) {
        case .success(let targets): pendingTargets = targets
        case .failure(let error): return .failure(error)
        }
        let size = record.byteSize + (record.shareInfo?.byteSize ?? 0)
        if size > WireLimits.maximumRecordBytes {
            return .failure(WireError(.limitExceeded, "record '\(name)' would hold \(size) bytes of field data; the limit is \(WireLimits.maximumRecordBytes) bytes (1 MB), assets excluded"))
        }
        if let assetFailure { return .failure(assetFailure) }
        let storedAssetBytes = record.fields.values.reduce(0) { $0 + assetBytes(of: $1) }
        if let error = context.scope.container.schema.withLock({ $0.accept(record) }) { return .failure(error) }

        let date = context.database.nextDate(now: clock.now)
        record.changeTag = nextChangeTag()
        record.modificationDate = date
        record.lastModifiedUserRecordName = context.user
        if existing == nil {
            record.creationDate = date
            record.creatorUserRecordName = context.user
        }
        transaction.set(StoredRecord(record: record, assetBytes: storedAssetBytes), named: name)
        return .success(AppliedSave(record: present(record, to: context.scope, in: transaction.store), pendingTargets: pendingTargets, replaced: existing))
    }

    /// Deletes one record, and what its `deleteSelf` references tie to it, from a locked zone.
    func delete(_ recordID: WireRecordID, from transaction: inout ZoneTransaction, _ context: SaveContext) -> Result<Void, WireError> {
        guard let existing = transaction.record(named: recordID.recordName) else { return .success(()) }
        if let error = deleteRefusal(of: existing, context) { return .failure(error) }
        transaction.deleteCascading(recordID.recordName)
        return .success(())
    }

    private func checkPermission(toSave incoming: WireRecord, over existing: StoredRecord?, _ context: SaveContext) -> WireError? {
        guard context.scope.databaseScope == .public else { return nil }
        let type = existing?.record.recordType ?? incoming.recordType
        let grants = context.scope.container.permissions(for: type)
            .grants(signedIn: true, isCreator: existing.map { context.scope.isCreator(of: $0) } ?? true)
        if existing == nil, !grants.contains(.create) {
            return WireError(.permissionFailure, "creating records of type '\(type)' is not allowed for this user")
        }
        if existing != nil, !grants.contains(.write) {
            return WireError(.permissionFailure, "changing record '\(incoming.recordID.recordName)' of type '\(type)' is not allowed for this user")
        }
        return nil
    }

    /// The `deleteSelf` and parent references a save writes must target a record of the zone,
    /// or one saved in the same request, and no record may have more than 750 `deleteSelf`
    /// references pointing at it.
    ///
    /// - Returns: The targets that do not exist yet but are saved later in the same request;
    ///   the save stands only if theirs succeed.
    private func checkReferences(_ incoming: WireRecord, parentChanged: Bool, in store: ZoneStore, _ context: SaveContext) -> Result<Set<WireName>, WireError> {
        let name = WireName(incoming.recordID.recordName)
        let targets = StoredRecord(record: incoming, assetBytes: 0).deleteSelfTargets
        var required = targets
        if parentChanged, let parent = incoming.parent { required.insert(WireName(parent.recordID.recordName)) }
        var pending: Set<WireName> = []
        for target in required.sorted() where store.records[target] == nil && target != name {
            guard context.namesSaved.contains(target) else {
                return .failure(WireError(.referenceViolation, "record '\(name)' references '\(target)', which neither exists nor is saved in the same request"))
            }
            pending.insert(target)
        }
        for target in targets.sorted() {
            let sources = store.deleteSelfSources[target, default: []].union([name])
            if sources.count > WireLimits.maximumDeleteSelfReferencesPerTarget {
                return .failure(WireError(.limitExceeded, "record '\(target)' would have \(sources.count) deleteSelf references pointing at it; the limit is \(WireLimits.maximumDeleteSelfReferencesPerTarget)"))
            }
        }
        return .success(pending)
    }

    /// The bytes the asset files of a stored value take.
    private func assetBytes(of value: WireFieldValue) -> Int {
        switch value {
        case .asset(let asset): assets.size(of: asset)
        case .list(let values): values.reduce(0) { $0 + assetBytes(of: $1) }
        default: 0
        }
    }
}
