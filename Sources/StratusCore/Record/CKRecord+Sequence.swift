import StratusWire

extension CKRecord: Sequence {
    /// The record's plain fields as `(key, value)` pairs, in key order, with Swift values
    /// (`String`, `Int64`, `Double`, `Date`, `Data`, references, assets, typed arrays).
    ///
    /// The iterator works on a snapshot taken when it is made; later edits do not show.
    public func makeIterator() -> CKRecordKeyValueIterator {
        CKRecordKeyValueIterator(fields: state.withLock { $0.snapshot.fields })
    }
}

/// Iterates a record's fields: see ``CKRecord/makeIterator()``.
public struct CKRecordKeyValueIterator: IteratorProtocol {
    private var remaining: IndexingIterator<[(String, WireFieldValue)]>

    init(fields: [String: WireFieldValue]) {
        remaining = fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }.makeIterator()
    }

    /// The next `(key, value)` pair, or nil at the end.
    public mutating func next() -> (CKRecord.FieldKey, any CKRecordValueProtocol)? {
        remaining.next().map { ($0.0, FieldValueConversion.swiftValue(for: $0.1)) }
    }
}
