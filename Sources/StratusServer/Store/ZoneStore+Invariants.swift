extension ZoneStore {
    /// Checks that the zone's structures agree with each other: every record is filed under
    /// its own name and zone, and the `deleteSelf` index lists exactly the references the
    /// records hold. A failure is a Stratus bug, never the result of bad input.
    ///
    /// The body compiles only with `STRATUS_INTERNAL_CHECKS` (see Package.swift); otherwise the
    /// method does nothing. Call it with the zone's lock held.
    func _checkInvariants() {
        #if STRATUS_INTERNAL_CHECKS
        var expected: [String: Set<String>] = [:]
        for (name, stored) in records {
            precondition(stored.record.recordID.recordName == name, "record '\(name)' is filed under another name")
            precondition(stored.record.recordID.zoneID == zone.zoneID, "record '\(name)' belongs to another zone")
            precondition(stored.record.changeTag != nil, "stored record '\(name)' has no change tag")
            for target in stored.deleteSelfTargets { expected[target, default: []].insert(name) }
        }
        precondition(expected == deleteSelfSources, "the deleteSelf index disagrees with the records of zone '\(zone.zoneID.zoneName)'")
        #endif
    }
}
