import Foundation
import StratusWire

/// What one request changed in one database, as subscriptions see it.
struct DatabaseEvents {
    /// Each zone's committed record changes, in the order the request committed the zones.
    var recordChanges: [(zoneID: WireZoneID, changes: [RecordChange])] = []
    /// Zones created or deleted.
    var zoneChanges: [WireZoneID] = []

    var isEmpty: Bool { recordChanges.allSatisfy(\.changes.isEmpty) && zoneChanges.isEmpty }
}
