import StratusWire

// A record's `parent` must exist: CloudKit checks it when a record is saved (the target of the
// parent reference "exists in the database or is part of the same operation", as
// `CKModifyRecordsOperation`'s documentation says), and iCloud keeps it true when records are
// deleted. Deleting a record that is the parent of a record that stays is refused with
// `referenceViolation`, and deletes nothing. The evidence for the delete side is a report of
// iCloud's answer, not a document: Apple's text for `CKRecord.ReferenceAction.none` says only
// that deleting a parent does not delete its children. Stratus follows the report, so no
// record ever points at a parent that is gone, and a participant's copy never keeps a record
// whose parent left it.


extension CloudServer {
    /// Why the user of `context` may not delete `stored` (a record of a locked zone), or nil:
    /// the user record rule, and in the public database the record type's security roles.
    func deleteRefusal(of stored: StoredRecord, _ context: SaveContext) -> WireError? {
        if let error = userRecordRule(saving: nil, over: stored.record, user: context.user) { return error }
        let scope = context.scope
        if scope.databaseScope == .public {
            let grants = scope.container.permissions(for: stored.record.recordType)
                .grants(signedIn: true, isCreator: scope.isCreator(of: stored))
            guard grants.contains(.write) else {
                return WireError(.permissionFailure, "deleting record '\(stored.record.recordID.recordName)' of type '\(stored.record.recordType)' is not allowed for this user")
            }
        }
        return nil
    }

    /// Whether the user of `context` may read the record `name` of `store` (locked): in the
    /// shared database, one their shares cover; in the public database, one whose type's
    /// security roles let them read it; in their own private database, any. A refusal names
    /// only records the caller may read.
    func readableNames(in store: ZoneStore, _ context: SaveContext, sharing: SharedWrite?) -> (WireName) -> Bool {
        if sharing != nil {
            let grants = store.grants(for: context.user)
            return { name in store.permission(on: name, grants: grants) != nil }
        }
        guard context.scope.databaseScope == .public else { return { _ in true } }
        return { name in
            guard let stored = store.records[name] else { return false }
            return context.scope.container.permissions(for: stored.record.recordType)
                .grants(signedIn: true, isCreator: context.scope.isCreator(of: stored)).contains(.read)
        }
    }

    /// The deletes among `candidates` (index in the request → record name) of one zone
    /// (`store`, locked, nothing of the request applied yet) that would leave a record under
    /// a parent that is gone, each with its `referenceViolation`, naming only the records
    /// `readable` says the caller may read.
    ///
    /// The rule counts every child, whoever wrote it: in the public database another user's
    /// record under the caller's keeps it from being deleted until that user moves or deletes
    /// theirs, as a `deleteSelf` reference ties records of different users together; no record
    /// is ever left under a parent that is gone.
    ///
    /// A delete removes its record's whole cascade (``ZoneStore/deletionCascade(from:)``). It
    /// stands when every child of every record it removes is removed too: by its own cascade,
    /// or by another delete of the request that stands. A delete that fails for another reason
    /// (it is not among `candidates`) removes nothing, so deletes that relied on it fail in
    /// turn; the check repeats until no more fail. So a parent is deleted with its children in
    /// one request (in any order), or after them, or through a `deleteSelf` cascade that
    /// reaches them. The children are those stored before the request: its deletes apply
    /// before its saves, so a child moved away in the same request still counts (move it in
    /// an earlier request).
    func orphaningDeletes(_ candidates: [Int: WireName], in store: ZoneStore, readable: (WireName) -> Bool) -> [Int: WireError] {
        var cascades: [Int: [WireName]] = [:]
        for (index, name) in candidates { cascades[index] = store.deletionCascade(from: name) }
        // How many standing deletes remove each record, kept as deletes fail.
        var removers: [WireName: Int] = [:]
        for name in cascades.values.joined() { removers[name, default: 0] += 1 }
        var errors: [Int: WireError] = [:]
        while true {
            var failing: [Int: WireError] = [:]
            for (index, removed) in cascades {
                for name in removed {
                    guard let staying = store.children[name]?.sorted().first(where: { removers[$0] == nil }) else { continue }
                    let deleted = candidates[index] ?? name
                    let parent = switch (deleted == name, readable(name)) {
                    case (true, _): "record '\(name)'"
                    case (false, true): "record '\(name)' (deleting '\(deleted)' deletes it)"
                    case (false, false): "deleting record '\(deleted)' deletes a record that"
                    }
                    let child = readable(staying) ? "record '\(staying)'" : "another record"
                    failing[index] = WireError(.referenceViolation, "\(parent) is the parent of \(child), which would stay without its parent; delete the children first, or in the same request")
                    break
                }
            }
            if failing.isEmpty { return errors }
            for (index, error) in failing {
                for name in cascades[index] ?? [] {
                    removers[name, default: 1] -= 1
                    if removers[name] == 0 { removers[name] = nil }
                }
                cascades[index] = nil
                errors[index] = error
            }
        }
    }
}
