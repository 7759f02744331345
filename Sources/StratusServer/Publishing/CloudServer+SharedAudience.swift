import StratusWire

// Keeping participants' shared databases up to date: a write to an owner's shared zone is a
// change of that zone in the shared database of everyone who sees it, and a zone that an
// account no longer sees (its share deleted, the account removed, the zone deleted) is a
// deletion there. Each is logged in the participant's shared database and fires the
// subscriptions the participant keeps there.

extension CloudServer {
    /// Logs, in the shared databases of `owner`'s participants, what a request did to the
    /// owner's zones, and fires their subscriptions there: each zone whose records changed
    /// (`changes`, with `stores` still locked) is a change for every account that sees it
    /// after the request; each zone an account saw before (`before`) and no longer sees
    /// (`after`) is a deletion there, and one it sees only now an addition.
    func noteSharedAudience(
        owner: String,
        before: [WireZoneID: Set<String>],
        after: [WireZoneID: Set<String>],
        changes: [(zoneID: WireZoneID, changes: [RecordChange])] = [],
        stores: [ZoneStore] = [],
        container: ContainerStore,
        originator: String?
    ) {
        var events: [String: DatabaseEvents] = [:]
        for zoneID in Set(before.keys).union(after.keys).sorted(by: { $0.zoneName < $1.zoneName }) {
            let sharedZoneID = WireZoneID(zoneName: zoneID.zoneName, ownerName: owner)
            let now = after[zoneID] ?? []
            let earlier = before[zoneID] ?? []
            let zoneChanges = changes.first { $0.zoneID == zoneID }?.changes ?? []
            let store = stores.first { $0.zone.zoneID == zoneID }
            for user in now.sorted() {
                let visible = store.map { visibleChanges(zoneChanges, in: $0, to: user, owner: owner) } ?? []
                guard !earlier.contains(user) || !visible.isEmpty else { continue }
                sharedDatabase(of: user, in: container)?.noteSharedZone(sharedZoneID, deletion: nil)
                if earlier.contains(user) {
                    events[user, default: DatabaseEvents()].recordChanges.append((sharedZoneID, visible))
                } else {
                    events[user, default: DatabaseEvents()].zoneChanges.append(sharedZoneID)
                }
            }
            for user in earlier.subtracting(now).sorted() {
                sharedDatabase(of: user, in: container)?.noteSharedZone(sharedZoneID, deletion: .deleted)
                events[user, default: DatabaseEvents()].zoneChanges.append(sharedZoneID)
            }
        }
        for (user, userEvents) in events.sorted(by: { $0.key < $1.key }) {
            guard let database = sharedDatabase(of: user, in: container) else { continue }
            fireSubscriptions(for: userEvents, in: database, container: container, originator: originator)
        }
    }

    /// The changes of `store` that `user`'s shares cover, with the zone named as in their
    /// shared database: saves of records covered now, deletions of records covered before,
    /// and, as deletions, saves that took a record out of their share.
    /// Call with the zone locked.
    private func visibleChanges(_ changes: [RecordChange], in store: ZoneStore, to user: String, owner: String) -> [RecordChange] {
        let grants = store.grants(for: user)
        let relabel = { (record: WireRecord?) in record?.relabelingOwner(WireZoneID.currentUserOwnerName, as: owner) }
        return changes.compactMap { change -> RecordChange? in
            if let new = change.new {
                let name = WireName(new.recordID.recordName)
                guard store.permission(on: name, grants: grants) != nil else {
                    // A record moved out of the user's share is a deletion for them.
                    guard let old = change.old, store.leftShareInLatestChange(name, grants: grants) else { return nil }
                    return RecordChange(old: relabel(old), new: nil)
                }
            } else if let old = change.old {
                let parentName = old.parent.map { WireName($0.recordID.recordName) }
                let tombstone = ZoneChangeLog.Change(sequence: 0, recordName: WireName(old.recordID.recordName), recordType: old.recordType, isDeletion: true, parentName: parentName)
                // A record cannot leave a share and be deleted in one change: one that left before
                // was pushed as deleted then, so only the parent chain counts here.
                guard store.coveredDeletion(tombstone, grants: grants, after: .max) else { return nil }
            }
            return RecordChange(old: relabel(change.old), new: relabel(change.new))
        }
    }

    private func sharedDatabase(of user: String, in container: ContainerStore) -> DatabaseStore? {
        container.account(forUserRecordName: user).map { container.database(.shared, account: $0) }
    }
}
