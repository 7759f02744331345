/// The indexes of one kind a zone has made so far, with when each was last used: making one
/// more than `limit` drops the least recently used, so queries with ever-new shapes cannot
/// grow memory and write costs without end.
struct IndexCache<Key: Hashable, Index: AnyObject> {
    private var entries: [Key: (index: Index, lastUse: UInt64)] = [:]
    private var useCounter: UInt64 = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The index for `key`, made by `make` the first time.
    mutating func index(for key: Key, make: () -> Index) -> Index {
        useCounter += 1
        if let existing = entries[key]?.index {
            entries[key]?.lastUse = useCounter
            return existing
        }
        if entries.count >= limit, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
        let created = make()
        entries[key] = (created, useCounter)
        return created
    }

    /// The indexes made so far.
    var indexes: some Sequence<Index> { entries.values.lazy.map(\.index) }

    /// How many indexes there are.
    var count: Int { entries.count }

    /// Forgets every index; they are made again when next needed.
    mutating func removeAll() {
        entries = [:]
    }
}
