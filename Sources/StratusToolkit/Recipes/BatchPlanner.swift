import Foundation
import StratusCore
import StratusOperations
import StratusWire

/// The items of one request of a modify recipe, each with its index in the caller's arrays.
struct ModifyBatch {
    var saves: [(index: Int, record: CKRecord)] = []
    var deletes: [(index: Int, recordID: CKRecord.ID)] = []
    /// Whether the items are an atomic batch: an atomic request's items in an atomic zone.
    var isAtomic = false

    var count: Int { saves.count + deletes.count }
    var isEmpty: Bool { saves.isEmpty && deletes.isEmpty }
    var recordIDs: [CKRecord.ID] { saves.map(\.record.recordID) + deletes.map(\.recordID) }
}

/// Splits a modification into requests: by zone first, then into groups of records that
/// reference each other, packed into requests within the limits, targets before the records
/// that reference them.
///
/// Sizes are the server's own measure (``WireRecord/byteSize`` of what a save sends under the
/// save policy, ``WireRecordID/byteSize`` of a delete), so a pre-split request passes the
/// server's 400-item and 2 MB checks.
struct BatchPlanner {
    let splitting: BatchSplitting
    let savePolicy: CKRecordSavePolicy
    let isAtomic: Bool

    /// An item the planner fails without a request.
    struct Refusal {
        var batch: ModifyBatch
        var error: CKError
    }

    private var itemLimit: Int { max(1, splitting.maximumItemsPerRequest) }
    private var byteLimit: Int { max(0, splitting.maximumBytesPerRequest) }

    /// The requests for `batch`'s items, in order, and the items refused outright.
    func plan(_ batch: ModifyBatch) -> (batches: [ModifyBatch], refusals: [Refusal]) {
        var batches: [ModifyBatch] = []
        var refusals: [Refusal] = []
        for var zone in zones(of: batch) {
            let zoneID = zone.recordIDs.first?.zoneID ?? CKRecordZone.ID()
            zone.isAtomic = isAtomic && zoneID.zoneName != CKRecordZone.ID.defaultZoneName
            if zone.isAtomic {
                if fits(zone) || !splitting.allowsSplittingAtomicBatches {
                    if fits(zone) { batches.append(zone) } else { refusals.append(Refusal(batch: zone, error: refusal(of: zone))) }
                    continue
                }
            } else {
                // A record over the 1 MB record limit can never be sent; it fails alone, with its
                // own limitExceeded, so it does not fail the records it would share a request with.
                let (oversized, rest) = splitOversized(zone)
                for item in oversized.saves {
                    refusals.append(Refusal(batch: ModifyBatch(saves: [item]), error: tooLarge(item.record)))
                }
                zone = rest
            }
            batches += pack(zone)
        }
        return (batches, refusals)
    }

    /// `batch` split in two, along groups of records that reference each other where possible;
    /// nil for a batch of one item.
    func halve(_ batch: ModifyBatch) -> (ModifyBatch, ModifyBatch)? {
        guard batch.count > 1 else { return nil }
        let units = self.units(of: batch)
        var first = ModifyBatch(isAtomic: batch.isAtomic)
        var second = ModifyBatch(isAtomic: batch.isAtomic)
        let half = (batch.count + 1) / 2
        if units.count == 1, let only = units.first {
            for (offset, item) in only.saves.enumerated() {
                if offset < half { first.saves.append(item) } else { second.saves.append(item) }
            }
            for (offset, item) in only.deletes.enumerated() {
                if only.saves.count + offset < half { first.deletes.append(item) } else { second.deletes.append(item) }
            }
        } else {
            for unit in units {
                if first.count < half {
                    first.saves += unit.saves
                    first.deletes += unit.deletes
                } else {
                    second.saves += unit.saves
                    second.deletes += unit.deletes
                }
            }
        }
        guard !first.isEmpty, !second.isEmpty else { return nil }
        return (first, second)
    }

    // MARK: - Zones, groups, packing

    private func zones(of batch: ModifyBatch) -> [ModifyBatch] {
        var order: [CKRecordZone.ID] = []
        var byZone: [CKRecordZone.ID: ModifyBatch] = [:]
        func add(_ zoneID: CKRecordZone.ID, _ body: (inout ModifyBatch) -> Void) {
            if byZone[zoneID] == nil {
                order.append(zoneID)
                byZone[zoneID] = ModifyBatch()
            }
            body(&byZone[zoneID, default: ModifyBatch()])
        }
        for item in batch.saves { add(item.record.recordID.zoneID) { $0.saves.append(item) } }
        for item in batch.deletes { add(item.recordID.zoneID) { $0.deletes.append(item) } }
        return order.compactMap { byZone[$0] }
    }

    /// The batch's groups: records linked by references or `parent` to records saved in the
    /// same batch, each ordered with targets first; then each delete alone.
    private func units(of batch: ModifyBatch) -> [ModifyBatch] {
        let saves = batch.saves
        var position: [CKRecord.ID: Int] = [:]
        for (offset, item) in saves.enumerated() where position[item.record.recordID] == nil {
            position[item.record.recordID] = offset
        }
        let targets = saves.map { item in referencedIDs(of: item.record).compactMap { position[$0] } }
        var parent = Array(saves.indices)
        func root(_ node: Int) -> Int {
            var node = node
            while parent[node] != node {
                parent[node] = parent[parent[node]]
                node = parent[node]
            }
            return node
        }
        for (source, linked) in targets.enumerated() {
            for target in linked { parent[root(source)] = root(target) }
        }
        // Targets before sources: a depth-first walk that emits a record after its targets.
        var emitted = Array(repeating: false, count: saves.count)
        var ordered: [Int] = []
        for start in saves.indices where !emitted[start] {
            var stack: [(node: Int, next: Int)] = [(start, 0)]
            emitted[start] = true
            while let top = stack.last {
                if top.next < targets[top.node].count {
                    stack[stack.count - 1].next += 1
                    let target = targets[top.node][top.next]
                    if !emitted[target] {
                        emitted[target] = true
                        stack.append((target, 0))
                    }
                } else {
                    ordered.append(top.node)
                    stack.removeLast()
                }
            }
        }
        var groupOrder: [Int] = []
        var groups: [Int: ModifyBatch] = [:]
        for offset in ordered {
            let group = root(offset)
            if groups[group] == nil {
                groupOrder.append(group)
                groups[group] = ModifyBatch(isAtomic: batch.isAtomic)
            }
            groups[group]?.saves.append(saves[offset])
        }
        // Groups in the order their first record was given.
        let firstSeen = Dictionary(saves.indices.map { (root($0), $0) }, uniquingKeysWith: min)
        groupOrder.sort { (firstSeen[$0] ?? 0) < (firstSeen[$1] ?? 0) }
        return groupOrder.compactMap { groups[$0] } + batch.deletes.map { ModifyBatch(deletes: [$0], isAtomic: batch.isAtomic) }
    }

    /// Packs the zone's groups into requests within the limits, first fit in order; a group
    /// too large for one request is cut, in its order, over as few requests as it needs.
    private func pack(_ zone: ModifyBatch) -> [ModifyBatch] {
        var batches: [ModifyBatch] = []
        var current = ModifyBatch(isAtomic: zone.isAtomic)
        var currentBytes = 0
        func close() {
            if !current.isEmpty { batches.append(current) }
            current = ModifyBatch(isAtomic: zone.isAtomic)
            currentBytes = 0
        }
        for unit in units(of: zone) {
            let unitBytes = bytes(of: unit)
            if unit.count <= itemLimit, unitBytes <= byteLimit {
                if current.count + unit.count > itemLimit || currentBytes + unitBytes > byteLimit { close() }
                current.saves += unit.saves
                current.deletes += unit.deletes
                currentBytes += unitBytes
                continue
            }
            for item in unit.saves {
                let size = bytes(of: item.record)
                if current.count + 1 > itemLimit || (currentBytes + size > byteLimit && !current.isEmpty) { close() }
                current.saves.append(item)
                currentBytes += size
            }
            for item in unit.deletes {
                let size = item.recordID.wireValue.byteSize
                if current.count + 1 > itemLimit || (currentBytes + size > byteLimit && !current.isEmpty) { close() }
                current.deletes.append(item)
                currentBytes += size
            }
        }
        close()
        return batches
    }

    private func fits(_ batch: ModifyBatch) -> Bool {
        batch.count <= itemLimit && bytes(of: batch) <= byteLimit
    }

    private func bytes(of batch: ModifyBatch) -> Int {
        batch.saves.reduce(0) { $0 + bytes(of: $1.record) } + batch.deletes.reduce(0) { $0 + $1.recordID.wireValue.byteSize }
    }

    private func bytes(of record: CKRecord) -> Int {
        record.makeSave(policy: savePolicy.wireValue).record.byteSize
    }

    private func splitOversized(_ zone: ModifyBatch) -> (oversized: ModifyBatch, rest: ModifyBatch) {
        var oversized = ModifyBatch()
        var rest = zone
        rest.saves = []
        for item in zone.saves {
            if item.record.wireSnapshot.byteSize > WireLimits.maximumRecordBytes {
                oversized.saves.append(item)
            } else {
                rest.saves.append(item)
            }
        }
        return (oversized, rest)
    }

    /// The records `record` references in its fields (lists included) and as its parent.
    private func referencedIDs(of record: CKRecord) -> [CKRecord.ID] {
        let snapshot = record.wireSnapshot
        var found: [CKRecord.ID] = []
        func collect(_ value: WireFieldValue) {
            switch value {
            case .reference(let reference): found.append(CKRecord.ID(wire: reference.recordID))
            case .list(let values): values.forEach(collect)
            default: break
            }
        }
        for key in snapshot.fields.keys.sorted() {
            if let value = snapshot.fields[key] { collect(value) }
        }
        if let parent = snapshot.parent { found.append(CKRecord.ID(wire: parent.recordID)) }
        return found
    }

    // MARK: - Errors

    private func tooLarge(_ record: CKRecord) -> CKError {
        let size = record.wireSnapshot.byteSize
        return CKError(
            .limitExceeded,
            message: "record '\(record.recordID.recordName)' holds \(size) bytes of field data, more than the \(WireLimits.maximumRecordBytes) (1 MB) one record may hold; it can never fit in a request, so it was not sent"
        )
    }

    private func refusal(of zone: ModifyBatch) -> CKError {
        let zoneName = zone.recordIDs.first?.zoneID.zoneName ?? "?"
        return CKError(
            .limitExceeded,
            message: "the \(zone.count) items (\(bytes(of: zone)) bytes) of the atomic batch in zone '\(zoneName)' do not fit in one request (\(itemLimit) items, \(byteLimit) bytes); splitting it would break its all-or-nothing guarantee, so nothing was sent. Pass allowsSplittingAtomicBatches: true to split it, or save with atomically: false"
        )
    }
}
