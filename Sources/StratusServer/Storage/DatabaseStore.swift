import Foundation
import StratusWire
import Synchronization

/// One database: its zones, its clock of strictly increasing server dates, and its change log.
///
/// Zones are created and deleted only here, and each creation and deletion is logged; record
/// changes are logged by ``ZoneTransaction/commit(in:assets:clientChangeToken:)``.
final class DatabaseStore: Sendable {
    let scope: WireDatabaseScope
    /// The server's store settings, read when the database changes.
    let settings: StoreSettings
    private let zones: Mutex<[WireZoneID: ZoneStore]>
    private let lastDate = Mutex<Date>(.distantPast)
    private let changes = Mutex(DatabaseChangeLog())
    /// Zones the user purged or lost to an encrypted-data reset, until they are created again.
    private let lostZones = Mutex<[WireZoneID: WireZoneDeletionReason]>([:])
    /// The database's subscriptions, per owner.
    let subscriptions = SubscriptionStore()

    /// Creates a database. Public and private databases start with their default zone; the
    /// shared database starts empty.
    init(scope: WireDatabaseScope, settings: StoreSettings) {
        self.scope = scope
        self.settings = settings
        var initial: [WireZoneID: ZoneStore] = [:]
        if scope != .shared {
            initial[.defaultZone] = ZoneStore(zone: WireZone(zoneID: .defaultZone, capabilities: []), incarnation: 0)
        }
        zones = Mutex(initial)
    }

    /// The zone with `zoneID` (owner already normalised), if it exists.
    func zone(_ zoneID: WireZoneID) -> ZoneStore? {
        zones.withLock { $0[zoneID] }
    }

    /// Every zone, the default zone first, then by the bytes of their names.
    var allZones: [ZoneStore] {
        zones.withLock { Array($0.values) }.sorted { lhs, rhs in
            if lhs.zone.zoneID.isDefaultZone != rhs.zone.zoneID.isDefaultZone { return lhs.zone.zoneID.isDefaultZone }
            return ZoneStore.lockOrder(lhs, rhs)
        }
    }

    /// Creates the zone if it does not exist, logging the creation.
    ///
    /// - Returns: The zone as stored, and whether this call created it.
    func createZone(_ zoneID: WireZoneID, capabilities: WireZone.Capabilities) -> (zone: WireZone, created: Bool) {
        zones.withLock { zones in
            if let existing = zones[zoneID] { return (existing.zone, false) }
            let sequence = changes.withLock { log in
                let sequence = log.nextSequence()
                log.note(zoneID, sequence: sequence, deletion: nil)
                return sequence
            }
            let store = ZoneStore(zone: WireZone(zoneID: zoneID, capabilities: capabilities), incarnation: sequence)
            zones[zoneID] = store
            lostZones.withLock { _ = $0.removeValue(forKey: zoneID) }
            return (store.zone, true)
        }
    }

    /// Removes the zone and every record in it, logging the deletion, and gives up the
    /// records' references to their asset files.
    ///
    /// - Returns: The storage bytes the zone's records took, or nil when there was no zone.
    func removeZone(_ zoneID: WireZoneID, reason: WireZoneDeletionReason = .deleted, assets: AssetStore) -> Int? {
        guard let store = zone(zoneID) else { return nil }
        // Hold the zone while it is taken out, so a request already writing to it commits
        // before the deletion is logged, and none starts after it without seeing it deleted.
        store.acquire()
        let removed = zones.withLock { zones -> Bool in
            guard zones[zoneID] === store else { return false }
            zones[zoneID] = nil
            changes.withLock { log in log.note(zoneID, sequence: log.nextSequence(), deletion: reason) }
            if reason != .deleted { lostZones.withLock { $0[zoneID] = reason } }
            return true
        }
        guard removed else {
            store.release()
            return nil
        }
        store.markDeleted()
        let records = Array(store.records.values)
        store.release()
        for stored in records { assets.release(stored.record) }
        return records.reduce(0) { $0 + $1.storageBytes }
    }

    /// The error for a request that names `zoneID` (owner normalised), which does not exist:
    /// `userDeletedZone` after the user purged it, `zoneNotFound` with
    /// `userDidResetEncryptedData` after an encrypted-data reset, `zoneNotFound` otherwise.
    func missingZoneError(_ zoneID: WireZoneID) -> WireError {
        switch lostZones.withLock({ $0[zoneID] }) {
        case .purged?:
            WireError(.userDeletedZone, "the user deleted zone '\(zoneID.zoneName)' from iCloud settings; delete the local data and do not upload it again")
        case .encryptedDataReset?:
            WireError(.zoneNotFound, "zone '\(zoneID.zoneName)' was deleted when the user reset their encrypted data; create it again and upload the local data", userDidResetEncryptedData: true)
        case .deleted?, nil:
            WireError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist")
        }
    }

    /// The custom zones, for knobs that act on all of them.
    var customZoneIDs: [WireZoneID] {
        zones.withLock { Array($0.keys) }.filter { !$0.isDefaultZone }
    }

    /// Takes `count` consecutive numbers of the change sequence for record changes in `zoneID`
    /// and notes the zone as changed at the last of them.
    ///
    /// - Returns: The first of the numbers.
    func takeSequences(_ count: Int, forChangesIn zoneID: WireZoneID) -> UInt64 {
        changes.withLock { log in
            let first = log.nextSequence()
            for _ in 1..<max(1, count) { _ = log.nextSequence() }
            log.note(zoneID, sequence: log.lastSequence, deletion: nil)
            return first
        }
    }

    /// Logs a change of `zoneID` that happened elsewhere: in a shared database, an owner's
    /// zone that appeared (`deletion` nil: the account accepted a share, or the zone's shared
    /// records changed) or went away for the account (`deletion` set).
    func noteSharedZone(_ zoneID: WireZoneID, deletion: WireZoneDeletionReason?) {
        changes.withLock { log in log.note(zoneID, sequence: log.nextSequence(), deletion: deletion) }
    }

    /// The database's change log as it is now.
    var changeLog: DatabaseChangeLog {
        changes.withLock { $0 }
    }

    /// The next server date: the clock's time, but always at least 1 µs after the previous
    /// date this database handed out, even when the clock has not moved.
    func nextDate(now: Date) -> Date {
        lastDate.withLock { last in
            let next = max(now, last.addingTimeInterval(0.000_001))
            last = next
            return next
        }
    }
}
