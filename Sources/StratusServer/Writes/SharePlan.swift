import StratusWire

/// What one modify request does to the shares of one zone: worked out after the request's
/// deletes and before its saves, and checked again once the saves are applied.
///
/// A new share (no record of its name in the zone before the saves) is saved in the same
/// request as its root record: a save of the same zone whose `share` names it. A zone-wide
/// share (`cloudkit.zoneshare`) has no root. A record belongs to at most one share, and a
/// zone shared as a whole holds no record shares (``conflicts(in:applied:saves:)``).
struct SharePlan {
    /// A new record share's root: the record the request saves with `share` naming it.
    struct Root {
        /// The root record's name.
        var name: WireName
        /// The index of the root's save in the request.
        var index: Int
    }

    /// The shares the request creates, by name, with the index of their save.
    private(set) var newShares: [WireName: Int] = [:]
    /// The root of each new record share.
    private(set) var roots: [WireName: Root] = [:]
    /// Saves refused before anything is applied, and why.
    private(set) var refusals: [Int: WireError] = [:]

    /// No plan: a request that saves no share.
    init() {}

    /// Plans the saves at `indices` of `saves` into `store` (locked, the request's deletes
    /// applied).
    init(saves: [WireRecordSave], indices: [Int], store: ZoneStore, scope: RequestScope) {
        for index in indices where WireShareRules.isShareType(saves[index].record.recordType) {
            let name = WireName(saves[index].record.recordID.recordName)
            if store.records[name] == nil { newShares[name] = index }
        }
        guard !newShares.isEmpty else { return }
        let zoneWide = WireName(WireShareRules.zoneWideShareName)
        var alreadyRooted: [WireName: (root: WireName, share: WireName)] = [:]
        for index in indices where !WireShareRules.isShareType(saves[index].record.recordType) {
            let record = saves[index].record
            guard let wanted = record.share, scope.normalized(wanted.recordID.zoneID) == store.zoneID else { continue }
            let share = WireName(wanted.recordID.recordName)
            guard share != zoneWide, newShares[share] != nil else { continue }
            let root = WireName(record.recordID.recordName)
            if let current = store.currentShare(of: store.records[root]), current != share {
                alreadyRooted[share] = (root, current)
            } else if roots[share] == nil {
                roots[share] = Root(name: root, index: index)
            }
        }
        for (share, index) in newShares where share != zoneWide && roots[share] == nil {
            if let rooted = alreadyRooted[share] {
                refusals[index] = WireError(.alreadyShared, "record '\(rooted.root)' is already the root of share '\(rooted.share)'; a record belongs to at most one share")
            } else {
                refusals[index] = WireError(.invalidArguments, "a new share is saved in the same request as its root record: no record saved in this request names share '\(share)' as its share")
            }
        }
    }

    /// The saves to undo, and why, now that the saves at `applied` (indices) are applied to
    /// `store`: a new share whose root's save failed, a root whose new share's save failed,
    /// and saves that would put a record in two shares or record shares in a zone shared as a
    /// whole (`alreadyShared`).
    func unsettled(in store: ZoneStore, applied: [Int: CloudServer.AppliedSave], saves: [WireRecordSave]) -> [Int: WireError] {
        guard !store.shareNames.isEmpty || !newShares.isEmpty else { return [:] }
        var errors: [Int: WireError] = [:]
        for (share, root) in roots {
            guard let shareIndex = newShares[share] else { continue }
            let shareApplied = applied[shareIndex] != nil
            let rootApplied = applied[root.index] != nil
            if shareApplied, !rootApplied {
                errors[shareIndex] = WireError(.invalidArguments, "a new share is saved in the same request as its root record: the save of root record '\(root.name)' of share '\(share)' failed")
            } else if rootApplied, !shareApplied {
                errors[root.index] = WireError(.referenceViolation, "record '\(root.name)' names share '\(share)' as its share, whose save in the same request failed")
            }
        }
        if !errors.isEmpty { return errors }
        return conflicts(in: store, applied: applied, saves: saves)
    }

    /// The applied saves that break "a record belongs to at most one share", and why.
    ///
    /// - A zone-wide share beside record shares: the new zone-wide share fails, or else every
    ///   new record share and its root.
    /// - A share root below another share's root (following `parent` references up, at most
    ///   ``ShareRules/maximumHierarchyDepth`` links, a cycle ending the walk): the new root
    ///   and its share fail; if neither root is new, every save on the way up whose `parent`
    ///   changed fails.
    func conflicts(in store: ZoneStore, applied: [Int: CloudServer.AppliedSave], saves: [WireRecordSave]) -> [Int: WireError] {
        var errors: [Int: WireError] = [:]
        let zoneName = store.zoneID.zoneName
        var newRoots: [WireName: (share: WireName, index: Int, shareIndex: Int)] = [:]
        for (share, root) in roots {
            if let shareIndex = newShares[share], applied[shareIndex] != nil, applied[root.index] != nil {
                newRoots[root.name] = (share, root.index, shareIndex)
            }
        }

        let zoneWide = WireName(WireShareRules.zoneWideShareName)
        if store.shareNames.contains(zoneWide), store.shareNames.contains(where: { $0 != zoneWide }) {
            if let index = newShares[zoneWide], applied[index] != nil {
                errors[index] = WireError(.alreadyShared, "zone '\(zoneName)' holds record shares; a zone shared as a whole cannot hold them too")
            } else {
                let error = WireError(.alreadyShared, "zone '\(zoneName)' is shared as a whole; its records cannot also be shared on their own")
                for root in newRoots.values {
                    errors[root.index] = error
                    errors[root.shareIndex] = error
                }
            }
            return errors
        }

        var reparented: [WireName: Int] = [:]
        for (index, save) in applied {
            let name = WireName(saves[index].record.recordID.recordName)
            if let now = store.records[name], now.record.parent != save.replaced?.record.parent, now.record.parent != nil {
                reparented[name] = index
            }
        }
        guard !newRoots.isEmpty || !reparented.isEmpty else { return errors }

        let rootNames = store.shareHolders.filter { store.records[$0.key]?.isShare == true }.values.flatMap { $0 }
        for lower in rootNames.sorted() {
            guard let lowerShare = store.records[lower]?.shareTarget else { continue }
            var path = [lower]
            var visited: Set<WireName> = [lower]
            var next = store.records[lower]?.record.parent
            while let parent = next, path.count <= ShareRules.maximumHierarchyDepth {
                let name = WireName(parent.recordID.recordName)
                guard visited.insert(name).inserted, let stored = store.records[name] else { break }
                if let upperShare = store.currentShare(of: stored) {
                    if let root = newRoots[lower] {
                        let error = WireError(.alreadyShared, "record '\(lower)' is inside share '\(upperShare)', whose root '\(name)' is its ancestor; a record belongs to at most one share")
                        errors[root.index] = error
                        errors[root.shareIndex] = error
                    } else if let root = newRoots[name] {
                        let error = WireError(.alreadyShared, "record '\(name)' has a descendant, '\(lower)', that is the root of share '\(lowerShare)'; a record belongs to at most one share")
                        errors[root.index] = error
                        errors[root.shareIndex] = error
                    } else {
                        for moved in path {
                            guard let index = reparented[moved] else { continue }
                            errors[index] = WireError(.alreadyShared, "the parent of record '\(moved)' would put record '\(lower)', the root of share '\(lowerShare)', inside share '\(upperShare)'; a record belongs to at most one share")
                        }
                    }
                    break
                }
                path.append(name)
                next = stored.record.parent
            }
        }
        return errors
    }
}
