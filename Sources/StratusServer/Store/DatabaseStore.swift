import Foundation
import StratusWire
import Synchronization

/// One database: its zones and its clock of strictly increasing server dates.
final class DatabaseStore: Sendable {
    let scope: WireDatabaseScope
    private let zones: Mutex<[WireZoneID: ZoneStore]>
    private let lastDate = Mutex<Date>(.distantPast)

    /// Creates a database. Public and private databases start with their default zone; the
    /// shared database starts empty.
    init(scope: WireDatabaseScope) {
        self.scope = scope
        var initial: [WireZoneID: ZoneStore] = [:]
        if scope != .shared {
            initial[.defaultZone] = ZoneStore(zone: WireZone(zoneID: .defaultZone, capabilities: []))
        }
        zones = Mutex(initial)
    }

    /// The zone with `zoneID` (owner already normalised), if it exists.
    func zone(_ zoneID: WireZoneID) -> ZoneStore? {
        zones.withLock { $0[zoneID] }
    }

    /// Every zone, the default zone first, then by name.
    var allZones: [ZoneStore] {
        zones.withLock { Array($0.values) }.sorted { lhs, rhs in
            if lhs.zone.zoneID.isDefaultZone != rhs.zone.zoneID.isDefaultZone { return lhs.zone.zoneID.isDefaultZone }
            return lhs.lockOrder < rhs.lockOrder
        }
    }

    /// Creates the zone if it does not exist; returns the zone as stored.
    func createZone(_ zoneID: WireZoneID, capabilities: WireZone.Capabilities) -> WireZone {
        zones.withLock { zones in
            if let existing = zones[zoneID] { return existing.zone }
            let store = ZoneStore(zone: WireZone(zoneID: zoneID, capabilities: capabilities))
            zones[zoneID] = store
            return store.zone
        }
    }

    /// Removes the zone and every record in it.
    ///
    /// - Returns: The removed zone, or nil when there was none.
    func removeZone(_ zoneID: WireZoneID) -> ZoneStore? {
        guard let store = zones.withLock({ $0.removeValue(forKey: zoneID) }) else { return nil }
        store.acquire()
        store.isDeleted = true
        store.release()
        return store
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
