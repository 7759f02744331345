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
