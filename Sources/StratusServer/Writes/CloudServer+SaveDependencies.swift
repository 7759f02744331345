import StratusWire

extension CloudServer {
    /// Undoes, until none is left, the saves of one zone that stand on another save of the
    /// same request that failed or was undone, or that the share rules refuse once the saves
    /// are applied: a reference to a record saved in the same request (`referenceViolation`),
    /// a new share and its root (``SharePlan/unsettled(in:applied:saves:)``), and saves that
    /// would put a record in two shares (`alreadyShared`), and, for a write through the shared
    /// database, saves that the failures left outside the caller's shares (`uncovered`).
    ///
    /// - Parameters:
    ///   - transaction: The zone's transaction, with the saves applied.
    ///   - applied: The saves that stand, by index in the request; the undone ones are removed.
    ///   - saves: The request's saves.
    ///   - shares: What the request does to the zone's shares.
    ///   - saveResults: The request's save results; each undone save gets its error.
    ///   - uncovered: The applied saves that may not stand as the zone is now, and why
    ///     (``uncoveredSharedSaves(in:applied:saves:user:)`` for a participant's write).
    /// - Returns: Whether any save was undone.
    func settle(
        _ transaction: inout ZoneTransaction,
        applied: inout [Int: AppliedSave],
        saves: [WireRecordSave],
        shares: SharePlan,
        saveResults: inout [Result<WireRecord, WireError>?],
        uncovered: (ZoneStore, [Int: AppliedSave]) -> [Int: WireError] = { _, _ in [:] }
    ) -> Bool {
        var undoneAny = false
        while true {
            var undo: [Int: WireError] = [:]
            for (index, save) in applied where !save.pendingTargets.isEmpty {
                if let missing = save.pendingTargets.sorted().first(where: { transaction.store.records[$0] == nil }) {
                    let name = saves[index].record.recordID.recordName
                    undo[index] = WireError(.referenceViolation, "record '\(name)' references '\(missing)', whose save in the same request failed")
                }
            }
            if undo.isEmpty { undo = shares.unsettled(in: transaction.store, applied: applied, saves: saves) }
            if undo.isEmpty { undo = uncovered(transaction.store, applied) }
            if undo.isEmpty { return undoneAny }
            for (index, error) in undo.sorted(by: { $0.key < $1.key }) {
                guard let save = applied.removeValue(forKey: index) else { continue }
                transaction.set(save.replaced, named: saves[index].record.recordID.recordName)
                saveResults[index] = .failure(error)
            }
            undoneAny = true
        }
    }
}
