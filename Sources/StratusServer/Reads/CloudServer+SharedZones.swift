import StratusWire

extension RequestScope {
    /// The owner's zone that `zoneID` names in a shared database: its owner name is the
    /// owner's user record name (never `__defaultOwner__`: the caller's own zones are not in
    /// their shared database), and the owner has such a custom zone. Whether the caller may
    /// see it is for the caller to decide, with the zone locked (``ZoneStore/grants(for:)``).
    func sharedZone(_ zoneID: WireZoneID) -> SharedZone? {
        guard !zoneID.ownerName.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName),
              userRecordName.map({ !zoneID.ownerName.hasSameUTF8Bytes(as: $0) }) ?? true,
              !zoneID.isDefaultZone,
              let ownerAccount = container.account(forUserRecordName: zoneID.ownerName)
        else { return nil }
        let database = container.database(.private, account: ownerAccount)
        guard let store = database.zone(WireZoneID(zoneName: zoneID.zoneName)) else { return nil }
        return SharedZone(ownerAccount: ownerAccount, ownerUserRecordName: zoneID.ownerName, database: database, store: store)
    }

    /// The zones of other users that this caller's shared database shows: every owner's zone
    /// in which the caller accepted a share.
    func sharedZones() -> [SharedZone] {
        guard let user = userRecordName else { return [] }
        return container.owners().flatMap { owner -> [SharedZone] in
            let database = container.database(.private, account: owner.account)
            return database.allZones.compactMap { store in
                guard !store.zoneID.isDefaultZone else { return nil }
                store.acquire()
                defer { store.release() }
                guard !store.isDeleted, !store.grants(for: user).isEmpty else { return nil }
                return SharedZone(ownerAccount: owner.account, ownerUserRecordName: owner.userRecordName, database: database, store: store)
            }
        }
    }
}
