import Foundation
import StratusWire
import Synchronization

/// One zone's records, behind the zone's own lock, so requests on different zones never wait
/// for each other.
///
/// Records change only through a ``ZoneTransaction``, the server's one write path: it keeps
/// the `deleteSelf` index and the query indexes in step, can be rolled back, and on commit logs
/// every change in the zone's ``ZoneChangeLog`` and its database's change log, counts the
/// references to asset files, and gives back memory that deletes freed. Nothing else can change
/// a record: the mutating members are private to this file.
final class ZoneStore: @unchecked Sendable {
    /// The zone as it was created.
    private let created: WireZone
    /// The zone's ID, readable without a lock.
    var zoneID: WireZoneID { created.zoneID }
    /// The zone-wide share as last committed, readable without the zone's lock.
    private let committedShare = Mutex<WireReference?>(nil)
    private let lock = NSLock()

    /// The zone as clients see it: its ID and capabilities, and its zone-wide share while it
    /// has one (as of the last committed transaction).
    var zone: WireZone {
        var zone = created
        zone.share = committedShare.withLock { $0 }
        return zone
    }

    /// The zone-wide share as last committed.
    var committedZoneWideShare: WireReference? { committedShare.withLock { $0 } }

    // Guarded by `lock`.
    private(set) var records: [WireName: StoredRecord] = [:]
    /// For each record name, the records holding a `deleteSelf` reference to it.
    private(set) var deleteSelfSources: [WireName: Set<WireName>] = [:]
    /// For each record name, the records whose `parent` names it (whether or not it exists).
    private(set) var children: [WireName: Set<WireName>] = [:]
    /// For each share name, the records whose `share` names it: a record share's root.
    private(set) var shareHolders: [WireName: Set<WireName>] = [:]
    /// The names of the zone's share records (type `cloudkit.share`), zone-wide share included.
    private(set) var shareNames: Set<WireName> = []
    /// Every change committed to the zone's records.
    private(set) var changeLog = ZoneChangeLog()
    /// For each record that left a record share (``CoverageShift``), the roots of the shares it
    /// left and is not back in, each with the sequence of the change that took it out: for a
    /// participant of one whose token is older than that change, the record's latest change is
    /// a deletion. Dropped once every token that old has expired (below the history floor).
    private(set) var formerRoots: [WireName: [WireName: UInt64]] = [:]
    /// Set once the zone is deleted; requests that raced the deletion then see `zoneNotFound`.
    private(set) var isDeleted = false
    /// Whether a transaction changed records and has not yet committed or rolled back; false
    /// whenever the zone is unlocked.
    private(set) var hasUncommittedChanges = false
    /// The query indexes and spatial indexes made so far, kept up to date by
    /// ``setRecord(_:named:)``.
    private var indexes = IndexCache<QueryIndexKey, QueryIndex>(limit: maximumIndexes)
    private var locationIndexes = IndexCache<LocationIndexKey, LocationIndex>(limit: maximumLocationIndexes)

    /// How many query indexes a zone keeps; making one more drops the least recently used.
    static let maximumIndexes = 32
    /// How many spatial indexes a zone keeps; making one more drops the least recently used.
    static let maximumLocationIndexes = 8

    /// Which zone of this ID this is: a zone deleted and created again under the same ID is
    /// another incarnation, and change tokens of the earlier one expire.
    let incarnation: UInt64

    init(zone: WireZone, incarnation: UInt64) {
        self.created = WireZone(zoneID: zone.zoneID, capabilities: zone.capabilities)
        self.incarnation = incarnation
    }

    /// The order in which a request locks several zones: by the bytes of the zone's name, then
    /// of its owner's, a total order even for canonically equivalent names.
    static func lockOrder(_ lhs: ZoneStore, _ rhs: ZoneStore) -> Bool {
        let left = (WireName(lhs.created.zoneID.zoneName), WireName(lhs.created.zoneID.ownerName))
        let right = (WireName(rhs.created.zoneID.zoneName), WireName(rhs.created.zoneID.ownerName))
        return left < right
    }

    func acquire() { lock.lock() }
    func release() { lock.unlock() }

    /// The record named `name`. Call only with the lock held.
    func record(named name: String) -> StoredRecord? {
        records[WireName(name)]
    }

    /// Puts `stored` under `name`, or removes the record when nil, keeping the reference index
    /// and the query indexes in step. Only a transaction calls it, with the lock held.
    ///
    /// - Returns: The record `name` had before.
    @discardableResult
    fileprivate func setRecord(_ stored: StoredRecord?, named name: WireName) -> StoredRecord? {
        let old = if let stored { records.updateValue(stored, forKey: name) } else { records.removeValue(forKey: name) }
        let oldTargets = old?.deleteSelfTargets ?? []
        let newTargets = stored?.deleteSelfTargets ?? []
        for target in oldTargets.subtracting(newTargets) { deleteSelfSources.move(name, from: target, to: nil) }
        for target in newTargets.subtracting(oldTargets) { deleteSelfSources.move(name, from: nil, to: target) }
        children.move(name, from: old?.parentName, to: stored?.parentName)
        shareHolders.move(name, from: old?.shareTarget, to: stored?.shareTarget)
        if stored?.isShare == true { shareNames.insert(name) } else if old?.isShare == true { shareNames.remove(name) }
        for index in indexes.indexes {
            if let old = old?.record, old.recordType == index.key.recordType { index.remove(old) }
            if let new = stored?.record, new.recordType == index.key.recordType { index.insert(new) }
        }
        for index in locationIndexes.indexes {
            if let old = old?.record, old.recordType == index.key.recordType { index.remove(old) }
            if let new = stored?.record, new.recordType == index.key.recordType { index.insert(new) }
        }
        hasUncommittedChanges = true
        return old
    }

    /// Marks the zone deleted. Only ``DatabaseStore`` calls it, with the lock held.
    func markDeleted() {
        isDeleted = true
    }

    /// The index for `key`, made from the zone's records the first time. Call only with the
    /// lock held.
    func index(for key: QueryIndexKey) -> QueryIndex {
        indexes.index(for: key) { QueryIndex(key: key, records: records.values) }
    }

    /// The spatial index for `key`, made from the zone's records the first time. Call only
    /// with the lock held.
    func locationIndex(for key: LocationIndexKey) -> LocationIndex {
        locationIndexes.index(for: key) { LocationIndex(key: key, records: records.values) }
    }

    /// How many query indexes the zone keeps now.
    var indexCount: Int { indexes.count }

    /// How many records the zone's record table has room for: it shrinks when deletes leave
    /// it mostly empty.
    var recordCapacity: Int { records.capacity }

    /// The zone-wide share as the records now have it: a reference to the share record named
    /// `cloudkit.zoneshare`, if there is one. Call only with the lock held.
    var zoneWideShare: WireReference? {
        let name = WireName(WireShareRules.zoneWideShareName)
        guard shareNames.contains(name) else { return nil }
        return WireReference(recordID: WireRecordID(recordName: name.string, zoneID: created.zoneID), action: .none)
    }

    /// Ends a transaction: logs its changes, publishes the zone-wide share, and gives back
    /// memory deletes freed.
    fileprivate func commit(_ changes: [ZoneChangeLog.Change], clientChangeToken: ClientChangeToken?, tombstoneLimit: Int, shift: CoverageShift = CoverageShift()) {
        if !shift.left.isEmpty || !shift.entered.isEmpty {
            var sequences: [WireName: UInt64] = [:]
            for change in changes { sequences[change.recordName] = max(sequences[change.recordName] ?? 0, change.sequence) }
            for (name, root) in shift.left {
                if let sequence = sequences[name] { formerRoots[name, default: [:]][root] = sequence }
            }
            for (name, root) in shift.entered {
                formerRoots[name]?[root] = nil
                if formerRoots[name]?.isEmpty == true { formerRoots[name] = nil }
            }
        }
        let share = zoneWideShare
        committedShare.withLock { $0 = share }
        let floor = changeLog.historyFloor
        for change in changes { changeLog.append(change, tombstoneLimit: tombstoneLimit) }
        if changeLog.historyFloor != floor, !formerRoots.isEmpty {
            // No token at or below the floor is accepted any more: those moves are told.
            let floor = changeLog.historyFloor
            formerRoots = formerRoots.compactMapValues { roots in
                let kept = roots.filter { $0.value > floor }
                return kept.isEmpty ? nil : kept
            }
        }
        if let clientChangeToken { changeLog.keepClientChangeTokenData(clientChangeToken.data, from: clientChangeToken.deviceID) }
        hasUncommittedChanges = false
        if records.capacity > 4 * max(records.count, 64) {
            // Dictionaries keep their capacity after removals; copy into one sized for what
            // is left, and let the query indexes be made again when next needed.
            var compacted = [WireName: StoredRecord](minimumCapacity: records.count)
            for (name, stored) in records { compacted[name] = stored }
            records = compacted
            var sources = [WireName: Set<WireName>](minimumCapacity: deleteSelfSources.count)
            for (name, names) in deleteSelfSources { sources[name] = names }
            deleteSelfSources = sources
            var kids = [WireName: Set<WireName>](minimumCapacity: children.count)
            for (name, names) in children { kids[name] = names }
            children = kids
            var holders = [WireName: Set<WireName>](minimumCapacity: shareHolders.count)
            for (name, names) in shareHolders { holders[name] = names }
            shareHolders = holders
            indexes.removeAll()
            locationIndexes.removeAll()
        }
    }

    /// Ends a transaction whose changes were all put back.
    fileprivate func discardUncommitted() {
        hasUncommittedChanges = false
    }
}

/// The changes one request makes to one zone: the server's one way to change a record.
///
/// Changes apply at once, so later items of the same request see them, and are remembered
/// with what they replaced, so the transaction can be rolled back (an atomic batch that
/// failed, a quota that would be exceeded) and a quota charged for the difference. Only
/// ``commit(in:assets:clientChangeToken:)`` makes them final: it logs each record's change
/// in the zone's and the database's change logs with the next number of the database's change
/// sequence, and moves the references to asset files from the old records to the new ones.
/// Call it or ``rollBack()`` before the zone is unlocked.
struct ZoneTransaction {
    let store: ZoneStore
    /// The record each touched name had before the request's first change to it.
    private(set) var previous: [WireName: StoredRecord?] = [:]
    private var touchOrder: [WireName] = []

    init(store: ZoneStore) {
        self.store = store
    }

    /// The record named `name` as the transaction sees it now.
    func record(named name: String) -> StoredRecord? {
        store.record(named: name)
    }

    /// Changes a record, remembering its first previous value.
    mutating func set(_ stored: StoredRecord?, named name: String) {
        let key = WireName(name)
        let old = store.setRecord(stored, named: key)
        if previous.index(forKey: key) == nil {
            previous[key] = .some(old)
            touchOrder.append(key)
        }
    }

    /// Puts back every record this transaction changed.
    mutating func rollBack() {
        for name in touchOrder.reversed() {
            if let old = previous[name] { store.setRecord(old, named: name) }
        }
        previous = [:]
        touchOrder = []
        store.discardUncommitted()
    }

    /// Storage bytes added (positive) or freed (negative) by the changes.
    var storageDelta: Int {
        previous.reduce(0) { total, entry in
            total + (store.records[entry.key]?.storageBytes ?? 0) - (entry.value?.storageBytes ?? 0)
        }
    }

    /// Deletes `name` and, transitively, every record holding a `deleteSelf` reference to a
    /// deleted record, and the share of every deleted share root (a share goes with its root
    /// record). Cycles end, as each record is deleted once.
    mutating func deleteCascading(_ name: String) {
        for removed in store.deletionCascade(from: WireName(name)) { set(nil, named: removed.string) }
    }

    /// Makes the changes final: each record whose stored version changed gets the next number
    /// of `database`'s change sequence in the zone's change log (a save, or a deletion with
    /// the type the record had), and so does each record below a moved one whose share
    /// changed (``CoverageShift``: logged again, itself unchanged); the zone is noted as
    /// changed in the database's log, the new records take references to their asset files
    /// before the old ones give theirs up, and `clientChangeToken`, when given and something
    /// changed, is kept with the zone.
    ///
    /// - Returns: Each record whose stored version changed, before and after, in the order
    ///   of the changes: what subscriptions react to.
    @discardableResult
    mutating func commit(in database: DatabaseStore, assets: AssetStore, clientChangeToken: ClientChangeToken? = nil) -> [RecordChange] {
        var changes: [ZoneChangeLog.Change] = []
        var committed: [RecordChange] = []
        var released: [StoredRecord] = []
        for name in touchOrder {
            guard let old = previous[name] else { continue }
            let new = store.records[name]
            if new?.record.changeTag == old?.record.changeTag, new != nil || old == nil { continue }
            guard let type = new?.record.recordType ?? old?.record.recordType else { continue }
            if let new { assets.retain(new.record) }
            if let old { released.append(old) }
            let parentName = new == nil ? old?.parentName : nil
            changes.append(ZoneChangeLog.Change(sequence: 0, recordName: name, recordType: type, isDeletion: new == nil, parentName: parentName))
            committed.append(RecordChange(old: old?.record, new: new?.record))
        }
        let shift = changes.isEmpty ? CoverageShift() : store.coverageShift(previous: previous)
        for name in shift.relogged {
            guard let stored = store.records[name] else { continue }
            changes.append(ZoneChangeLog.Change(sequence: 0, recordName: name, recordType: stored.record.recordType, isDeletion: false))
        }
        if !changes.isEmpty {
            let first = database.takeSequences(changes.count, forChangesIn: store.zoneID)
            for index in changes.indices { changes[index].sequence = first + UInt64(index) }
        }
        for old in released { assets.release(old.record) }
        store.commit(changes, clientChangeToken: changes.isEmpty ? nil : clientChangeToken, tombstoneLimit: database.settings.tombstoneLimit, shift: shift)
        previous = [:]
        touchOrder = []
        return committed
    }
}

/// One record's committed change: the record before (nil for a creation) and after (nil for a
/// deletion).
struct RecordChange {
    var old: WireRecord?
    var new: WireRecord?
}

/// The `clientChangeTokenData` a modify request carried, and the device that sent it.
struct ClientChangeToken {
    var data: Data
    var deviceID: String
}

extension Dictionary {
    /// Moves `member` from the set under `old` to the set under `new`, either of which may be
    /// nil (nothing to leave, or nothing to join); a set left empty is removed, so the
    /// dictionary holds no empty sets. The same key on both sides changes nothing.
    fileprivate mutating func move<Member>(_ member: Member, from old: Key?, to new: Key?) where Value == Set<Member> {
        guard old != new else { return }
        if let old {
            self[old]?.remove(member)
            if self[old]?.isEmpty == true { self[old] = nil }
        }
        if let new { self[new, default: []].insert(member) }
    }
}
