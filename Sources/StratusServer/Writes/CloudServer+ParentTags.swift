import StratusWire

extension CloudServer {
    /// Gives a new change tag to the parent of every record the request saved into the zone,
    /// unless the request saves that parent too, as iCloud does: an app that keeps the
    /// parent's older system fields then meets `serverRecordChanged` when it saves the parent.
    /// Each parent changes once per request, and its change appears in the zone's history;
    /// only the tag changes (the parent's fields, dates and last modifier stay). Ordinary
    /// references never change their target.
    ///
    /// - Parameters:
    ///   - saved: The names of the records whose saves stand (those with a parent suffice).
    ///   - transaction: The zone's transaction, after its saves.
    ///   - context: The request's saves in this zone.
    func touchParents(of saved: [WireName], in transaction: inout ZoneTransaction, _ context: SaveContext) {
        var touched: Set<WireName> = []
        for name in saved {
            guard let parent = transaction.store.records[name]?.record.parent else { continue }
            let parentName = WireName(parent.recordID.recordName)
            guard !context.namesSaved.contains(parentName), touched.insert(parentName).inserted,
                  var stored = transaction.store.records[parentName] else { continue }
            stored.record.changeTag = nextChangeTag()
            transaction.set(stored, named: parentName.string)
        }
    }
}
