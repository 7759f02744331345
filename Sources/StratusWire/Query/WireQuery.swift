/// A query as it crosses the client/server boundary: the value twin of `CKQuery`.
public struct WireQuery: Hashable, Sendable {
    /// The record type to search.
    public var recordType: String
    /// Which records match.
    public var predicate: WirePredicate
    /// The order of the results; ties are broken by record name, then zone.
    public var sortDescriptors: [WireSortDescriptor]

    /// Creates a query.
    public init(recordType: String, predicate: WirePredicate, sortDescriptors: [WireSortDescriptor] = []) {
        self.recordType = recordType
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }
}

/// One key of a query's order.
public struct WireSortDescriptor: Hashable, Sendable {
    /// The field to sort on.
    public var field: WireQueryField
    /// Whether smaller values come first.
    public var ascending: Bool
    /// For a `CKLocationSortDescriptor`, the point whose distance to the field's location
    /// orders the records (nearest first when ascending); records without a location in the
    /// field come after every record with one.
    public var relativeLocation: WireLocation?

    /// Creates a sort key.
    public init(field: WireQueryField, ascending: Bool, relativeLocation: WireLocation? = nil) {
        self.field = field
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }
}
