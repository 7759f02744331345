import Foundation
import StratusWire

/// An owner's zone as a participant reaches it through their shared database: the zone's ID
/// there names the owner by their user record name, and it leads to the owner's private
/// database, where the records live once for everyone.
struct SharedZone {
    /// The owner's account.
    let ownerAccount: String
    /// The owner's user record name in the container: the zone's owner name in shared databases.
    let ownerUserRecordName: String
    /// The owner's private database.
    let database: DatabaseStore
    /// The zone.
    let store: ZoneStore

    /// The zone's ID in the owner's database (`__defaultOwner__` as owner).
    var ownerZoneID: WireZoneID { store.zoneID }

    /// The zone's ID in a shared database.
    var sharedZoneID: WireZoneID {
        WireZoneID(zoneName: ownerZoneID.zoneName, ownerName: ownerUserRecordName)
    }
}
