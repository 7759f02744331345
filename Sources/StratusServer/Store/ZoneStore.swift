import Foundation
import StratusWire

/// One zone's records, behind the zone's own lock, so requests on different zones never wait
/// for each other.
///
/// A request locks every zone it touches (in ``lockOrder``, so two requests cannot deadlock),
/// changes them through ``ZoneTransaction``s, and unlocks them when it is done.
final class ZoneStore: @unchecked Sendable {
    let zone: WireZone
    private let lock = NSLock()

    // Guarded by `lock`.
    private(set) var records: [String: StoredRecord] = [:]
    /// For each record name, the records holding a `deleteSelf` reference to it.
    private(set) var deleteSelfSources: [String: Set<String>] = [:]
    /// Set once the zone is deleted; requests that raced the deletion then see `zoneNotFound`.
    var isDeleted = false
    /// The query indexes made so far, kept up to date by ``setRecord(_:named:)``, with when
    /// each was last used.
    private var indexes: [QueryIndexKey: QueryIndex] = [:]
    private var indexUses: [QueryIndexKey: UInt64] = [:]
    private var useCounter: UInt64 = 0

    /// How many query indexes a zone keeps; making one more drops the least recently used, so
    /// queries with ever-new shapes cannot grow memory and write costs without end.
    static let maximumIndexes = 32

    init(zone: WireZone) {
        self.zone = zone
    }

    /// The order in which a request locks several zones.
    var lockOrder: (String, String) { (zone.zoneID.zoneName, zone.zoneID.ownerName) }

    func acquire() { lock.lock() }
    func release() { lock.unlock() }

    /// Puts `stored` under `name`, or removes the record when nil, keeping the reference index
    /// in step. Call only with the lock held.
    func setRecord(_ stored: StoredRecord?, named name: String) {
        let oldTargets = records[name]?.deleteSelfTargets ?? []
        let newTargets = stored?.deleteSelfTargets ?? []
        for target in oldTargets.subtracting(newTargets) {
            deleteSelfSources[target]?.remove(name)
            if deleteSelfSources[target]?.isEmpty == true { deleteSelfSources[target] = nil }
        }
        for target in newTargets.subtracting(oldTargets) {
            deleteSelfSources[target, default: []].insert(name)
        }
        if !indexes.isEmpty {
            let old = records[name]?.record
            for index in indexes.values {
                if let old, old.recordType == index.key.recordType { index.remove(old) }
                if let new = stored?.record, new.recordType == index.key.recordType { index.insert(new) }
            }
        }
        records[name] = stored
    }

    /// The index for `key`, made from the zone's records the first time. Call only with the
    /// lock held.
    func index(for key: QueryIndexKey) -> QueryIndex {
        useCounter += 1
        indexUses[key] = useCounter
        if let existing = indexes[key] { return existing }
        if indexes.count >= Self.maximumIndexes,
           let oldest = indexUses.filter({ indexes[$0.key] != nil }).min(by: { $0.value < $1.value })?.key {
            indexes[oldest] = nil
            indexUses[oldest] = nil
        }
        let created = QueryIndex(key: key, records: records.values)
        indexes[key] = created
        return created
    }

    /// How many query indexes the zone keeps now.
    var indexCount: Int { indexes.count }
}

/// The changes one request makes to one zone, with what they replaced, so that an atomic batch
/// can be undone and a quota can be charged for the difference.
struct ZoneTransaction {
    let store: ZoneStore
    /// The record each touched name had before the request's first change to it.
    private(set) var previous: [String: StoredRecord?] = [:]
    private var touchOrder: [String] = []

    init(store: ZoneStore) {
        self.store = store
    }

    /// Changes a record, remembering its first previous value.
    mutating func set(_ stored: StoredRecord?, named name: String) {
        if previous[name] == nil {
            previous[name] = .some(store.records[name])
            touchOrder.append(name)
        }
        store.setRecord(stored, named: name)
    }

    /// Puts back every record this transaction changed.
    mutating func rollBack() {
        for name in touchOrder.reversed() {
            if let old = previous[name] { store.setRecord(old, named: name) }
        }
        previous = [:]
        touchOrder = []
    }

    /// Storage bytes added (positive) or freed (negative) by the changes.
    var storageDelta: Int {
        previous.reduce(0) { total, entry in
            total + (store.records[entry.key]?.storageBytes ?? 0) - (entry.value?.storageBytes ?? 0)
        }
    }

    /// Deletes `name` and, transitively, every record holding a `deleteSelf` reference to a
    /// deleted record. Cycles end, as each record is deleted once.
    mutating func deleteCascading(_ name: String) {
        var pending = [name]
        while let next = pending.popLast() {
            guard store.records[next] != nil else { continue }
            let sources = store.deleteSelfSources[next] ?? []
            set(nil, named: next)
            pending.append(contentsOf: sources.sorted())
        }
    }
}
