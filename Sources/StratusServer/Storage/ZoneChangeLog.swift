import Foundation
import StratusWire

/// What changed in one zone, in the order of its database's change sequence: for each record,
/// its latest change only, a save or a deletion (the deletion kept as a tombstone).
///
/// The write path appends to it when a zone transaction commits, and nowhere else, so every
/// change to a record is here. Change tokens and zone change fetches read it.
struct ZoneChangeLog: Sendable {
    /// One record's latest change.
    struct Change: Sendable, Equatable {
        /// Where the change falls in the database's change sequence.
        var sequence: UInt64
        /// The record changed.
        var recordName: WireName
        /// Its type: for a deletion, the type it had.
        var recordType: String
        /// Whether the record was deleted.
        var isDeletion: Bool
        /// For a deletion, the record's `parent` in the zone as it was: what a share covered
        /// the record through, so that a participant learns of the deletion of a shared
        /// record and of no other.
        var parentName: WireName? = nil
    }

    /// Changes in ascending sequence; an entry whose record changed again later is superseded
    /// and skipped, and compacted away once superseded entries outnumber live ones.
    private var entries: [Change] = []
    /// Each record's latest sequence.
    private var latest: [WireName: UInt64] = [:]
    private var superseded = 0

    /// The opaque bytes of the last modify request on this zone that carried
    /// `clientChangeTokenData`, echoed by change fetches.
    private(set) var clientChangeTokenData: Data?
    /// The `clientChangeTokenData` of each device's last applied modify on this zone. Once
    /// twice ``rememberedDevices`` devices have written, all but the ``rememberedDevices`` that
    /// first wrote most recently are forgotten.
    private var clientChangeTokenDataByDevice: [String: Data] = [:]
    private var deviceOrder: [String] = []

    /// How many devices' last `clientChangeTokenData` a zone remembers; a repeat from a device
    /// forgotten since is applied again.
    static let rememberedDevices = 1_024

    /// Keeps `data` as the zone's latest `clientChangeTokenData`, sent by `deviceID`.
    mutating func keepClientChangeTokenData(_ data: Data, from deviceID: String) {
        clientChangeTokenData = data
        if clientChangeTokenDataByDevice.updateValue(data, forKey: deviceID) == nil {
            deviceOrder.append(deviceID)
        }
        if deviceOrder.count > 2 * Self.rememberedDevices {
            // Forget the devices that first wrote longest ago, in one batch.
            let kept = clientChangeTokenDataByDevice
            clientChangeTokenDataByDevice = [:]
            deviceOrder = Array(deviceOrder.suffix(Self.rememberedDevices))
            for device in deviceOrder { clientChangeTokenDataByDevice[device] = kept[device] }
        }
    }

    /// Whether `data` is what `deviceID`'s last applied modify on this zone carried: a
    /// repeat of that request, which is not applied again.
    func isRepeat(of data: Data, from deviceID: String) -> Bool {
        clientChangeTokenDataByDevice[deviceID] == data
    }

    /// The sequence of the zone's latest change, 0 before any.
    private(set) var lastSequence: UInt64 = 0

    /// The newest sequence whose tombstone was dropped: a token from before it cannot learn
    /// of that deletion, so it has expired. 0 while the whole history is kept.
    private(set) var historyFloor: UInt64 = 0
    private var tombstoneCount = 0

    /// How many records have a change here (saved or tombstoned).
    var count: Int { latest.count }

    /// Records `change`, which comes after every change logged so far, keeping at least
    /// `tombstoneLimit` tombstones: when there are a quarter more, the oldest go and the
    /// history floor rises past them.
    mutating func append(_ change: Change, tombstoneLimit: Int) {
        if let previous = latest.updateValue(change.sequence, forKey: change.recordName) {
            superseded += 1
            if deletedSequences.remove(previous) != nil { tombstoneCount -= 1 }
        }
        entries.append(change)
        if change.isDeletion {
            tombstoneCount += 1
            deletedSequences.insert(change.sequence)
        }
        lastSequence = change.sequence
        if tombstoneCount - tombstoneLimit > max(16, tombstoneLimit / 4) {
            dropTombstones(downTo: max(0, tombstoneLimit))
        }
        if superseded > 64, superseded > latest.count {
            entries.removeAll { latest[$0.recordName] != $0.sequence }
            superseded = 0
        }
    }

    /// The sequences of the live tombstones.
    private var deletedSequences: Set<UInt64> = []

    /// Drops the oldest tombstones until `limit` are left.
    private mutating func dropTombstones(downTo limit: Int) {
        var excess = tombstoneCount - limit
        for entry in entries where entry.isDeletion && latest[entry.recordName] == entry.sequence {
            guard excess > 0 else { break }
            latest[entry.recordName] = nil
            deletedSequences.remove(entry.sequence)
            historyFloor = max(historyFloor, entry.sequence)
            tombstoneCount -= 1
            superseded += 1
            excess -= 1
        }
    }

    /// The latest change of each record changed after `sequence`, in sequence order, at most
    /// `limit` of them, and whether more follow. Reads only the entries it returns (and the
    /// superseded ones between them), so fetching a long history batch by batch stays linear.
    func changes(after sequence: UInt64, limit: Int = .max) -> (changes: [Change], moreComing: Bool) {
        let low = entries.partitioningIndex { $0.sequence > sequence }
        var found: [Change] = []
        for entry in entries[low...] where latest[entry.recordName] == entry.sequence {
            if found.count == limit { return (found, true) }
            found.append(entry)
        }
        return (found, false)
    }

    /// The tombstone of the record named `name`, while the log keeps it.
    func tombstone(of name: WireName) -> Change? {
        guard let sequence = latest[name], deletedSequences.contains(sequence) else { return nil }
        let low = entries.partitioningIndex { $0.sequence >= sequence }
        return low < entries.count && entries[low].sequence == sequence ? entries[low] : nil
    }

    /// The latest change of the record named `name`, if it ever changed.
    func latestChange(of name: WireName) -> UInt64? {
        latest[name]
    }
}
