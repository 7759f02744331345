import StratusWire

extension ZoneStore {
    /// Checks that the zone's structures agree with each other: every record is filed under
    /// its own name and zone, the `deleteSelf` and children indexes list exactly the references
    /// the records hold, every record share has exactly one root and the zone-wide share none beside it,
    /// every change went through a committed or rolled-back transaction, and every stored
    /// record's latest change is in the change log. A failure is a Stratus bug, never
    /// the result of bad input.
    ///
    /// The body compiles only with `STRATUS_INTERNAL_CHECKS` (see Package.swift); otherwise the
    /// method does nothing. Call it with the zone's lock held, before releasing it.
    func _checkInvariants() {
        #if STRATUS_INTERNAL_CHECKS
        precondition(!hasUncommittedChanges, "zone '\(zone.zoneID.zoneName)' is unlocked with changes no transaction committed or rolled back")
        var expected: [WireName: Set<WireName>] = [:]
        var expectedHolders: [WireName: Set<WireName>] = [:]
        var expectedChildren: [WireName: Set<WireName>] = [:]
        for (name, stored) in records {
            if let share = stored.shareTarget {
                expectedHolders[share, default: []].insert(name)
                precondition(records[share]?.isShare == true, "record '\(name)' is the root of share '\(share)', which is not a share of the zone")
            }
            precondition(stored.isShare == shareNames.contains(name), "the share index disagrees with record '\(name)'")
            precondition(WireName(stored.record.recordID.recordName) == name, "record '\(name)' is filed under another name")
            precondition(stored.record.recordID.zoneID == zone.zoneID, "record '\(name)' belongs to another zone")
            precondition(stored.record.changeTag != nil, "stored record '\(name)' has no change tag")
            precondition(changeLog.latestChange(of: name) != nil, "stored record '\(name)' has no change in the zone's change log")
            for target in stored.deleteSelfTargets { expected[target, default: []].insert(name) }
            if let parent = stored.parentName { expectedChildren[parent, default: []].insert(name) }
        }
        precondition(expectedChildren == children, "the children index disagrees with the records of zone '\(zone.zoneID.zoneName)'")
        precondition(expected == deleteSelfSources, "the deleteSelf index disagrees with the records of zone '\(zone.zoneID.zoneName)'")
        precondition(expectedHolders == shareHolders, "the share-root index disagrees with the records of zone '\(zone.zoneID.zoneName)'")
        precondition(shareNames.allSatisfy { records[$0] != nil }, "the share index names a record zone '\(zone.zoneID.zoneName)' does not hold")
        precondition(expectedHolders.values.allSatisfy { $0.count == 1 }, "a share of zone '\(zone.zoneID.zoneName)' has more than one root")
        precondition(shareNames.allSatisfy { $0 == WireName(WireShareRules.zoneWideShareName) || expectedHolders[$0] != nil }, "a record share of zone '\(zone.zoneID.zoneName)' has no root")
        precondition(zoneWideShare == nil || expectedHolders.isEmpty, "zone '\(zone.zoneID.zoneName)' has a zone-wide share and record shares")
        #endif
    }
}
