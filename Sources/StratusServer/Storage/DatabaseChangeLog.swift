import StratusWire

/// What changed in one database: its change sequence, and for each zone its latest change (a
/// zone created, its records changed, or the zone deleted).
///
/// The write path updates it when a zone is created or deleted and when a zone transaction
/// commits, and nowhere else. Database change tokens read it.
struct DatabaseChangeLog: Sendable {
    /// One zone's latest change.
    struct Change: Sendable, Equatable {
        /// Where the change falls in the database's change sequence.
        var sequence: UInt64
        /// Why the zone was deleted, or nil when it was created or changed.
        var deletion: WireZoneDeletionReason?
    }

    /// The last sequence number handed out; every change of the database, to a zone or to a
    /// record, takes the next one.
    private(set) var lastSequence: UInt64 = 0
    /// Each zone's latest change.
    private(set) var zones: [WireZoneID: Change] = [:]

    /// The next number of the database's change sequence.
    mutating func nextSequence() -> UInt64 {
        lastSequence += 1
        return lastSequence
    }

    /// Notes that `zoneID` was created or changed (`deletion` nil), or deleted, at `sequence`.
    mutating func note(_ zoneID: WireZoneID, sequence: UInt64, deletion: WireZoneDeletionReason?) {
        zones[zoneID] = Change(sequence: sequence, deletion: deletion)
    }
}
