import StratusWire

/// How one transaction changed which record share covers records of a zone, beyond the records
/// it saved or deleted for their own sake: worked out when the transaction commits.
///
/// A record is covered by the share whose root its `parent` chain reaches. A move (a new
/// `parent` for a record that stays) takes the record and every record below it out of one
/// hierarchy and into another (or none) without a change of those below. So that a
/// participant's next change fetch, from the token they kept, tells them (CloudKit's
/// documentation says nothing of it; a participant's copy should hold what they may see):
/// - each record that left a share remembers that share's root (``ZoneStore/formerRoots``),
///   with the change that took it out, and is reported as deleted to the share's
///   participants whose token is older than that change
///   (``ZoneStore/leftShare(_:grants:after:)``), once;
/// - the records below a moved record are logged again (``relogged``), with no change to the
///   records themselves: they appear in the zone's history, as changed for those who see them
///   now, as deleted for those who saw them before. The owner's change fetches report them
///   too, unchanged (same change tag).
/// A record moved back into a share it left is covered again, and reported as changed.
struct CoverageShift {
    /// Each record that a share's root no longer covers, with that root.
    var left: [WireName: WireName] = [:]
    /// Each record that a share's root covers now and did not before, with that root.
    var entered: [WireName: WireName] = [:]
    /// Records the transaction did not touch whose coverage it changed, to log again.
    var relogged: [WireName] = []

    var isEmpty: Bool { left.isEmpty && entered.isEmpty && relogged.isEmpty }
}

extension ZoneStore {
    /// The share `stored` is the root of, if that share still exists in this zone.
    func currentShare(of stored: StoredRecord?) -> WireName? {
        guard let share = stored?.shareTarget, records[share]?.isShare == true else { return nil }
        return share
    }

    /// The root of the record share covering `name` in a state of the zone given by
    /// `record`: the first record up its `parent` chain (itself included) whose `share` names
    /// a share of that state; nil when none does (or the chain is longer than
    /// ``ShareRules/maximumHierarchyDepth``, or loops). Call only with the lock held.
    func coveringRoot(of name: WireName, in record: (WireName) -> StoredRecord?) -> WireName? {
        var current: WireName? = name
        var visited: Set<WireName> = []
        while let step = current, visited.count <= ShareRules.maximumHierarchyDepth, visited.insert(step).inserted {
            guard let stored = record(step) else { return nil }
            if let share = stored.shareTarget, record(share)?.isShare == true { return step }
            current = stored.parentName
        }
        return nil
    }

    /// What a transaction that replaced the records `previous` names (each with its value
    /// before) changed in which share covers which record; empty when neither state holds a
    /// record share. Call only with the lock held, the transaction's changes in place.
    func coverageShift(previous: [WireName: StoredRecord?]) -> CoverageShift {
        var shift = CoverageShift()
        var relogged: Set<WireName> = []
        let hadRoots = previous.values.contains { $0?.shareTarget != nil }
        guard !shareHolders.isEmpty || hadRoots else { return shift }
        let before = { (name: WireName) -> StoredRecord? in
            if let old = previous[name] { return old }
            return self.records[name]
        }
        let after = { (name: WireName) -> StoredRecord? in self.records[name] }
        for (name, old) in previous.sorted(by: { $0.key < $1.key }) {
            guard let new = records[name] else { continue }
            let rootBefore = old == nil ? nil : coveringRoot(of: name, in: before)
            let rootAfter = coveringRoot(of: name, in: after)
            guard rootBefore != rootAfter else { continue }
            if let rootBefore { shift.left[name] = rootBefore }
            if let rootAfter { shift.entered[name] = rootAfter }
            guard old != nil, old?.parentName != new.parentName else { continue }
            // The records below move with it, down to the next root (a root keeps its share);
            // those the transaction touched have their own change, and are judged above.
            var pending = (children[name] ?? []).sorted()
            var seen: Set<WireName> = [name]
            while let next = pending.popLast() {
                guard seen.insert(next).inserted, let stored = records[next],
                      currentShare(of: stored) == nil else { continue }
                if previous[next] == nil, relogged.insert(next).inserted {
                    if let rootBefore { shift.left[next] = rootBefore }
                    if let rootAfter { shift.entered[next] = rootAfter }
                    shift.relogged.append(next)
                }
                pending.append(contentsOf: (children[next] ?? []).sorted())
            }
        }
        return shift
    }

    /// Whether the record `name`, not covered by `grants` now, left one of their record shares
    /// (moved out, or under a record that moved) in a change after `position`: what makes its
    /// latest change in the zone's history a deletion for the grants' holder, told once. A
    /// holder whose token is past the move was told then; a later edit of the record is not
    /// theirs to see. Call only with the lock held.
    func leftShare(_ name: WireName, grants: [ShareGrant], after position: UInt64) -> Bool {
        guard let roots = formerRoots[name] else { return false }
        return grants.contains { grant in grant.rootName.flatMap { roots[$0] }.map { $0 > position } ?? false }
    }

    /// Whether the latest change of the record `name` is the one that took it out of a record
    /// share of `grants`: a deletion to push to the grants' holder now. Call only with the
    /// lock held, the change committed.
    func leftShareInLatestChange(_ name: WireName, grants: [ShareGrant]) -> Bool {
        guard let latest = changeLog.latestChange(of: name), latest > 0 else { return false }
        return leftShare(name, grants: grants, after: latest - 1)
    }
}
