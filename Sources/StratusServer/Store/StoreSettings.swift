import Synchronization

/// The settings of a server's store that every database reads when it changes: how much
/// change history a zone keeps.
final class StoreSettings: Sendable {
    private let tombstones: Atomic<Int>

    init(tombstoneLimit: Int) {
        tombstones = Atomic(tombstoneLimit)
    }

    /// How many deleted records' tombstones a zone keeps at least; older ones are dropped and
    /// tokens from before them expire.
    var tombstoneLimit: Int {
        get { tombstones.load(ordering: .relaxed) }
        set { tombstones.store(newValue, ordering: .relaxed) }
    }
}
