import StratusWire

/// Which index a query uses: the record type, the field of an equality it can narrow by, and
/// its order.
struct QueryIndexKey: Hashable {
    var recordType: String
    var equalityField: WireQueryField?
    var sortDescriptors: [WireSortDescriptor]
}

/// An index of one zone's records of one type: for each value of the equality field (or for
/// all records), the records in the query's order. A query reads only the records it returns,
/// plus the ones its other conditions reject, instead of the whole zone.
///
/// Indexes are made the first time a query needs them and kept up to date on every write
/// after that; they live under their zone's lock.
final class QueryIndex {
    let key: QueryIndexKey
    private let order: QueryOrder
    private var buckets: [WireFieldValue?: SortedIndex<QueryOrder.Key>] = [:]

    init(key: QueryIndexKey, records: some Sequence<StoredRecord>) {
        self.key = key
        self.order = QueryOrder(descriptors: key.sortDescriptors)
        for stored in records where stored.record.recordType == key.recordType {
            insert(stored.record)
        }
    }

    /// The bucket a value of the equality field files under: numbers that are equal file
    /// together, and references by record ID alone.
    static func bucket(for value: WireFieldValue?) -> WireFieldValue? {
        switch value {
        case .double(let double)?: Int64(exactly: double).map { .int64($0) } ?? value
        case .reference(let reference)?: .reference(WireReference(recordID: reference.recordID, action: .none))
        default: value
        }
    }

    private func bucketKey(of record: WireRecord) -> WireFieldValue? {
        key.equalityField.flatMap { Self.bucket(for: record.value(for: $0)) }
    }

    func insert(_ record: WireRecord) {
        let bucket = bucketKey(of: record)
        let order = self.order
        buckets[bucket, default: SortedIndex(precedes: order.precedes)].insert(order.key(of: record))
    }

    func remove(_ record: WireRecord) {
        let bucket = bucketKey(of: record)
        let recordID = record.recordID
        buckets[bucket]?.remove(order.key(of: record)) { $0.recordID == recordID }
        if buckets[bucket]?.count == 0 { buckets[bucket] = nil }
    }

    /// Calls `body` with the keys of the records whose equality field holds `value` (all
    /// records when the index has no equality field), in order, starting at `start` and
    /// skipping the record of `start` itself (a cursor's last record), until `body` returns
    /// false.
    func scan(equalTo value: WireFieldValue?, from start: QueryOrder.Key?, _ body: (QueryOrder.Key) -> Bool) {
        guard let index = buckets[Self.bucket(for: value)] else { return }
        index.forEach(from: start) { candidate in
            if let start, candidate.recordID == start.recordID { return true }
            return body(candidate)
        }
    }
}

extension WirePredicate {
    /// An equality of a field with a value that must hold for the predicate to hold: the
    /// predicate itself, or one part of its top-level AND. An index on that field narrows the
    /// query to the records with that value.
    var indexableEquality: (field: WireQueryField, value: WireFieldValue)? {
        switch self {
        case .compare(let field, .equal, .value(let value)):
            return (field, value)
        case .and(let parts):
            for part in parts {
                if let equality = part.indexableEquality { return equality }
            }
            return nil
        default:
            return nil
        }
    }
}
