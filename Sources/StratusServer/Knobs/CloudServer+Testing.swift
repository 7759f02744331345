import StratusWire

extension CloudServer {
    /// How many stored records the last query read before it had its page: the records it
    /// returned plus those its conditions rejected. With an index for the query's equality
    /// and order this stays near `resultsLimit`, however many records the zone holds.
    @_spi(Testing)
    public var lastQueryExaminedCount: Int {
        registry.withLock { $0.examinedByLastQuery }
    }
}

extension CloudServer {
    /// One record change as a zone's change log keeps it: the record's latest change.
    @_spi(Testing)
    public struct LoggedChange: Hashable, Sendable {
        /// The record changed.
        public var recordName: String
        /// Its type (for a deletion, the type it had).
        public var recordType: String
        /// Whether the record was deleted.
        public var isDeletion: Bool
        /// Where the change falls in the database's change sequence.
        public var sequence: UInt64
    }

    /// Runs `body` on a zone of a database, with the zone locked; nil when there is no such
    /// zone. `account` is ignored for the public database.
    private func withZone<T>(_ zoneID: WireZoneID, _ scope: WireDatabaseScope, _ containerIdentifier: String, _ account: String, _ body: (ZoneStore) -> T) -> T? {
        guard let zone = containerStore(containerIdentifier).database(scope, account: account).zone(zoneID) else { return nil }
        zone.acquire()
        defer { zone.release() }
        return body(zone)
    }

    /// How many query indexes a zone of an account's private database keeps.
    @_spi(Testing)
    public func indexCount(ofZone zoneID: WireZoneID, containerIdentifier: String, account: String) -> Int {
        withZone(zoneID, .private, containerIdentifier, account) { $0.indexCount } ?? 0
    }

    /// How many records the record table of a zone has room for; it shrinks when deletes
    /// leave it mostly empty.
    @_spi(Testing)
    public func recordCapacity(ofZone zoneID: WireZoneID, in scope: WireDatabaseScope = .private, containerIdentifier: String, account: String) -> Int {
        withZone(zoneID, scope, containerIdentifier, account) { $0.recordCapacity } ?? 0
    }

    /// The latest change of each record of a zone changed after `sequence`, in sequence order,
    /// as the zone's change log has them.
    @_spi(Testing)
    public func loggedChanges(ofZone zoneID: WireZoneID, in scope: WireDatabaseScope = .private, containerIdentifier: String, account: String, after sequence: UInt64 = 0) -> [LoggedChange] {
        withZone(zoneID, scope, containerIdentifier, account) { zone in
            zone.changeLog.changes(after: sequence).changes.map {
                LoggedChange(recordName: $0.recordName.string, recordType: $0.recordType, isDeletion: $0.isDeletion, sequence: $0.sequence)
            }
        } ?? []
    }

    /// Each zone's latest change in a database's change log: the sequence, and whether the
    /// zone was deleted.
    @_spi(Testing)
    public func loggedZoneChanges(in scope: WireDatabaseScope = .private, containerIdentifier: String, account: String) -> [WireZoneID: (sequence: UInt64, isDeletion: Bool)] {
        containerStore(containerIdentifier).database(scope, account: account).changeLog.zones.mapValues { ($0.sequence, $0.deletion != nil) }
    }
}

extension CloudServer {
    /// How many devices the server knows: each container object's device until the last
    /// container object of that device goes away.
    @_spi(Testing)
    public var registeredDeviceCount: Int {
        registry.withLock { $0.devices.count }
    }
}
