import StratusWire
import Synchronization

/// Where a share lives: the owner's zone that holds it, and its record name there.
struct ShareLocation {
    /// The container the share belongs to.
    let container: ContainerStore
    /// The owner's zone, as a participant reaches it through their shared database.
    let zone: SharedZone
    /// The share record's name in the zone.
    let shareName: WireName

    /// The zone that holds the share.
    var store: ZoneStore { zone.store }
}

/// Finds shares by their URL, for the metadata and accept endpoints: a share URL is the only
/// thing a user who was not yet given the share holds.
///
/// The modify path does not keep an index of URLs (it is not this directory's to change), so
/// a URL is found by a scan: every account of the container that has used it, each custom zone
/// of that account's private database, under the zone's lock, each share record of the zone.
/// The scan's cost grows with the number of zones in the container. What it finds is kept in
/// a small cache (URL → owner, zone, share name), and a cached place is used only after it is
/// checked again under the zone's lock, so a share deleted, or a zone deleted and created again,
/// since is never answered from the cache: the lookup falls back to the scan.
final class ShareDirectory: Sendable {
    /// A place a URL was found, to be checked again before it is used.
    private struct Entry: Sendable {
        let ownerAccount: String
        let ownerUserRecordName: String
        let zoneID: WireZoneID
        let shareName: WireName
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// How many places the cache keeps; past that it starts again empty.
    static let maximumEntries = 10_000

    /// Calls `body` with the share whose URL is `url` in `container`, its zone locked for the
    /// length of the call, and returns what `body` returns; nil when no share of the container
    /// has that URL.
    func withShare<T>(url: String, in container: ContainerStore, _ body: (ShareLocation, StoredRecord) -> T) -> T? {
        guard url.hasPrefix(ShareRules.urlPrefix) else { return nil }
        if let entry = entries.withLock({ $0[url] }) {
            let database = container.database(.private, account: entry.ownerAccount)
            if let store = database.zone(entry.zoneID) {
                let zone = SharedZone(ownerAccount: entry.ownerAccount, ownerUserRecordName: entry.ownerUserRecordName, database: database, store: store)
                if let answer = visit(zone, shareName: entry.shareName, url: url, container: container, body) { return answer }
            }
            entries.withLock { _ = $0.removeValue(forKey: url) }
        }
        for owner in container.owners() {
            let database = container.database(.private, account: owner.account)
            for store in database.allZones where !store.zoneID.isDefaultZone {
                let zone = SharedZone(ownerAccount: owner.account, ownerUserRecordName: owner.userRecordName, database: database, store: store)
                if let answer = visit(zone, shareName: nil, url: url, container: container, body) { return answer }
            }
        }
        return nil
    }

    /// Locks `zone` and, when it holds the share with `url` (named `shareName`, or any of its
    /// shares when nil), remembers the place and calls `body`.
    private func visit<T>(_ zone: SharedZone, shareName: WireName?, url: String, container: ContainerStore, _ body: (ShareLocation, StoredRecord) -> T) -> T? {
        let store = zone.store
        store.acquire()
        defer { store.release() }
        guard !store.isDeleted else { return nil }
        let candidates = shareName.map { [$0] } ?? store.shareNames.sorted()
        for name in candidates {
            // A share's URL ends in a truncated HMAC and works as a password: compared in
            // constant time, so that timing does not reveal how much of a guessed one was right.
            guard let stored = store.records[name], stored.isShare, let storedURL = stored.record.shareInfo?.url,
                  ConstantTime.equal(storedURL.utf8, url.utf8) else { continue }
            let entry = Entry(ownerAccount: zone.ownerAccount, ownerUserRecordName: zone.ownerUserRecordName, zoneID: zone.ownerZoneID, shareName: name)
            entries.withLock { entries in
                if entries.count >= Self.maximumEntries { entries = [:] }
                entries[url] = entry
            }
            return body(ShareLocation(container: container, zone: zone, shareName: name), stored)
        }
        return nil
    }
}
