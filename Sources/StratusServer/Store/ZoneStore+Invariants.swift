import StratusWire

extension ZoneStore {
    /// Checks that the zone's structures agree with each other: every record is filed under
    /// its own name and zone, the `deleteSelf` index lists exactly the references the records
    /// hold, every change went through a committed or rolled-back transaction, and every
    /// stored record's latest change is in the change log. A failure is a Stratus bug, never
    /// the result of bad input.
    ///
    /// The body compiles only with `STRATUS_INTERNAL_CHECKS` (see Package.swift); otherwise the
    /// method does nothing. Call it with the zone's lock held, before releasing it.
    func _checkInvariants() {
        #if STRATUS_INTERNAL_CHECKS
        precondition(uncommitted.isEmpty, "zone '\(zone.zoneID.zoneName)' is unlocked with changes no transaction committed or rolled back")
        var expected: [WireName: Set<WireName>] = [:]
        for (name, stored) in records {
            precondition(WireName(stored.record.recordID.recordName) == name, "record '\(name)' is filed under another name")
            precondition(stored.record.recordID.zoneID == zone.zoneID, "record '\(name)' belongs to another zone")
            precondition(stored.record.changeTag != nil, "stored record '\(name)' has no change tag")
            precondition(changeLog.latestChange(of: name) != nil, "stored record '\(name)' has no change in the zone's change log")
            for target in stored.deleteSelfTargets { expected[target, default: []].insert(name) }
        }
        precondition(expected == deleteSelfSources, "the deleteSelf index disagrees with the records of zone '\(zone.zoneID.zoneName)'")
        #endif
    }
}
