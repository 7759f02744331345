/// A record as the baselines store it and read it back: the columns of the SQLite table, the
/// fields of the dictionary's rows.
struct BaselineRecord: Sendable {
    /// The record's name, unique in its zone.
    var name: String
    /// The record type.
    var type: String
    /// The change tag: 1 when created, one more on every write.
    var version: Int64
    /// When the record was created, in seconds since 1970.
    var created: Double
    /// When the record was last written.
    var modified: Double
    /// The `party` reference field: the party record's name.
    var party: String
    /// The `title` field.
    var title: String
    /// The `order` field.
    var order: Int64
    /// The `taken` date field, in seconds since 1970.
    var taken: Double
    /// The `pinned` flag.
    var pinned: Bool

    /// A record as a new save of `sample` at `now` makes it.
    init(_ sample: SampleRecord, now: Double) {
        self.init(
            name: sample.name, type: SampleRecord.recordType, version: 1, created: now, modified: now,
            party: sample.party, title: sample.title, order: sample.order, taken: sample.taken, pinned: sample.pinned
        )
    }

    /// A record with every column given.
    init(name: String, type: String, version: Int64, created: Double, modified: Double, party: String, title: String, order: Int64, taken: Double, pinned: Bool) {
        self.name = name
        self.type = type
        self.version = version
        self.created = created
        self.modified = modified
        self.party = party
        self.title = title
        self.order = order
        self.taken = taken
        self.pinned = pinned
    }
}

/// Where a sorted scan stands: the creation date and name of the last record it returned,
/// the keyset a query cursor holds.
struct BaselinePosition: Sendable, Comparable {
    /// The record's creation date.
    var created: Double
    /// The record's name, which breaks ties.
    var name: String

    static func < (lhs: BaselinePosition, rhs: BaselinePosition) -> Bool {
        lhs.created != rhs.created ? lhs.created < rhs.created : lhs.name < rhs.name
    }
}
