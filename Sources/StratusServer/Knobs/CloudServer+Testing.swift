import StratusWire

extension CloudServer {
    /// How many stored records the last query read before it had its page: the records it
    /// returned plus those its conditions rejected. With an index for the query's equality
    /// and order this stays near `resultsLimit`, however many records the zone holds.
    @_spi(Testing)
    public var lastQueryExaminedCount: Int {
        registry.withLock { $0.lastQueryExaminedCount }
    }
}

extension CloudServer {
    /// How many query indexes a zone of an account's private database keeps.
    @_spi(Testing)
    public func indexCount(ofZone zoneID: WireZoneID, containerIdentifier: String, account: String) -> Int {
        guard let zone = containerStore(containerIdentifier).database(.private, account: account).zone(zoneID) else { return 0 }
        zone.acquire()
        defer { zone.release() }
        return zone.indexCount
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
