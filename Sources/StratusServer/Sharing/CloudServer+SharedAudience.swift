import StratusWire

// Keeping participants' shared databases up to date: a write to an owner's shared zone is a
// change of that zone in the shared database of everyone who sees it, and a zone that an
// account no longer sees (its share deleted, the account removed, the zone deleted) is a
// deletion there.

extension CloudServer {
    /// Who sees each of `stores` in their shared database now, by zone ID (owner's view).
    /// Call with the zones locked.
    func sharedAudience(of stores: [ZoneStore]) -> [WireZoneID: Set<String>] {
        var audience: [WireZoneID: Set<String>] = [:]
        for store in stores where !store.shareNames.isEmpty && !store.isDeleted {
            audience[store.zone.zoneID] = store.acceptedParticipants
        }
        return audience
    }

    /// Who sees the zone `zoneID` of `database` in their shared database now; locks the zone.
    func sharedAudience(ofZone zoneID: WireZoneID, in database: DatabaseStore) -> [WireZoneID: Set<String>] {
        guard let store = database.zone(zoneID) else { return [:] }
        store.acquire()
        defer { store.release() }
        return sharedAudience(of: [store])
    }

    /// Logs, in the shared databases of `owner`'s participants, what a request did to the
    /// owner's zones: each zone in `changed` that an account sees after the request is a
    /// change there; each zone an account saw before (`before`) and no longer sees (`after`)
    /// is a deletion there.
    func noteSharedAudience(owner: String, before: [WireZoneID: Set<String>], after: [WireZoneID: Set<String>], changed: Set<WireZoneID>, container: ContainerStore) {
        for zoneID in Set(before.keys).union(after.keys) {
            let sharedZoneID = WireZoneID(zoneName: zoneID.zoneName, ownerName: owner)
            let now = after[zoneID] ?? []
            let earlier = before[zoneID] ?? []
            for user in now.sorted() where changed.contains(zoneID) || !earlier.contains(user) {
                sharedDatabase(of: user, in: container)?.noteSharedZone(sharedZoneID, deletion: nil)
            }
            for user in earlier.subtracting(now).sorted() {
                sharedDatabase(of: user, in: container)?.noteSharedZone(sharedZoneID, deletion: .deleted)
            }
        }
    }

    private func sharedDatabase(of user: String, in container: ContainerStore) -> DatabaseStore? {
        container.account(forUserRecordName: user).map { container.database(.shared, account: $0) }
    }
}
