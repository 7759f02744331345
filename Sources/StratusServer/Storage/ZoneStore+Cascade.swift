import Foundation
import StratusWire

extension ZoneStore {
    /// The records a delete of `name` removes, in the order it removes them: the record, every
    /// record holding a `deleteSelf` reference to a removed record (transitively), and the
    /// share of every removed share root (a share goes with its root). Empty for a record the
    /// zone does not hold. Cycles end, as each record is removed once. Call only with the lock
    /// held.
    func deletionCascade(from name: WireName) -> [WireName] {
        var removed: [WireName] = []
        var seen: Set<WireName> = []
        var pending = [name]
        while let next = pending.popLast() {
            guard let stored = records[next], seen.insert(next).inserted else { continue }
            removed.append(next)
            pending.append(contentsOf: (deleteSelfSources[next] ?? []).sorted())
            if let share = stored.shareTarget { pending.append(share) }
        }
        return removed
    }
}
