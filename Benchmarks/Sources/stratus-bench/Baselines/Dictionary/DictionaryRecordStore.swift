/// The dictionary baseline: the same bookkeeping as the SQLite baseline in plain Swift, the
/// practical limit of an in-process store.
///
/// One zone's records in a `[String: BaselineRecord]` keyed by name; a version check on every
/// write (a new record must not exist, an update must carry the stored version); two index
/// dictionaries, by party and by type, each keeping its records' positions (creation date,
/// then name) in order; and a change log, an array with one record name per write.
struct DictionaryRecordStore: Sendable {
    /// The records by name.
    private(set) var records: [String: BaselineRecord] = [:]
    /// For each party, its records' positions in creation order.
    private var byParty: [String: [BaselinePosition]] = [:]
    /// For each record type, its records' positions in creation order.
    private var byType: [String: [BaselinePosition]] = [:]
    /// One record name per write; a change's sequence is its index plus one.
    private(set) var log: [String] = []

    /// An empty store.
    init() {}

    // MARK: - Writes

    /// Saves `batch` as new records (the writer read no version) at `now`.
    ///
    /// - Returns: How many were saved; a record that already exists is a version conflict and
    ///   is not saved.
    @discardableResult
    mutating func save(_ batch: some Sequence<SampleRecord>, now: Double) -> Int {
        var saved = 0
        for sample in batch where upsert(BaselineRecord(sample, now: now), expectedVersion: nil) {
            saved += 1
        }
        return saved
    }

    /// Saves `samples` as new records in batches of 400, the batch's number standing for the
    /// time.
    ///
    /// - Throws: ``Miscount`` when a record was not saved.
    mutating func saveInBatches(_ samples: [SampleRecord]) throws {
        var saved = 0
        for (batch, start) in stride(from: 0, to: samples.count, by: 400).enumerated() {
            saved += save(samples[start..<min(start + 400, samples.count)], now: Double(batch))
        }
        guard saved == samples.count else { throw Miscount(what: "the dictionary's saves", counted: saved, expected: samples.count) }
    }

    /// Writes `record` when the stored version is `expectedVersion` (nil: no stored record):
    /// a new record gets version 1, an update the next version and keeps its creation date.
    ///
    /// - Returns: Whether it was written.
    mutating func upsert(_ record: BaselineRecord, expectedVersion: Int64?) -> Bool {
        var record = record
        if let old = records[record.name] {
            guard old.version == expectedVersion else { return false }
            record.version = old.version + 1
            record.created = old.created
            if old.party != record.party {
                let position = BaselinePosition(created: old.created, name: old.name)
                Self.remove(position, from: &byParty[old.party, default: []])
                Self.insert(position, into: &byParty[record.party, default: []])
            }
        } else {
            guard expectedVersion == nil else { return false }
            record.version = 1
            let position = BaselinePosition(created: record.created, name: record.name)
            Self.insert(position, into: &byParty[record.party, default: []])
            Self.insert(position, into: &byType[record.type, default: []])
        }
        records[record.name] = record
        log.append(record.name)
        return true
    }

    private static func insert(_ position: BaselinePosition, into index: inout [BaselinePosition]) {
        if let last = index.last, !(last < position) {
            index.insert(position, at: firstIndex(after: position, in: index))
        } else {
            index.append(position)
        }
    }

    private static func remove(_ position: BaselinePosition, from index: inout [BaselinePosition]) {
        let at = firstIndex(notBefore: position, in: index)
        if at < index.count, index[at] == position { index.remove(at: at) }
    }

    /// The index of the first position after `position`.
    private static func firstIndex(after position: BaselinePosition, in index: [BaselinePosition]) -> Int {
        var low = 0
        var high = index.count
        while low < high {
            let middle = (low + high) / 2
            if position < index[middle] { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The index of the first position not before `position`.
    private static func firstIndex(notBefore position: BaselinePosition, in index: [BaselinePosition]) -> Int {
        var low = 0
        var high = index.count
        while low < high {
            let middle = (low + high) / 2
            if index[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: - Reads

    /// The `limit` newest records of `party`, newest first.
    func newest(_ limit: Int, ofParty party: String) -> [BaselineRecord] {
        guard let index = byParty[party] else { return [] }
        return index.suffix(limit).reversed().compactMap { records[$0.name] }
    }

    /// Up to `limit` records of `type` in creation order, after `position` (from the start
    /// when nil): one page of a keyset scan.
    func page(ofType type: String, after position: BaselinePosition?, limit: Int) -> [BaselineRecord] {
        guard let index = byType[type] else { return [] }
        let start = position.map { Self.firstIndex(after: $0, in: index) } ?? 0
        return index[start..<min(start + limit, index.count)].compactMap { records[$0.name] }
    }

    /// Up to `limit` changed records after change `sequence`, in change order, with the last
    /// change's sequence.
    func changes(after sequence: Int, limit: Int) -> (records: [BaselineRecord], last: Int) {
        let end = min(sequence + limit, log.count)
        guard sequence < end else { return ([], sequence) }
        return (log[sequence..<end].compactMap { records[$0] }, end)
    }

    /// The record named `name`, if there is one.
    func record(named name: String) -> BaselineRecord? {
        records[name]
    }
}
