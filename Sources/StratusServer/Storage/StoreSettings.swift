import Synchronization

/// The settings of a server's store that every database reads when it changes: how much
/// change history a zone keeps, how many notifications an account's collection keeps, and which
/// notification infos a subscription may have.
final class StoreSettings: Sendable {
    private let tombstones: Atomic<Int>
    private let silentPushesWithUIKeys = Atomic(false)
    private let notifications = Atomic(StoreSettings.defaultNotificationHistoryLimit)

    /// How many tombstones a zone keeps unless set: 10,000.
    static let defaultTombstoneLimit = 10_000

    /// How many notifications an account's collection keeps unless set: 10,000.
    static let defaultNotificationHistoryLimit = 10_000

    /// Whether a subscription's notification info may ask for a silent push
    /// (`shouldSendContentAvailable`) and set UI keys too.
    var allowsSilentPushesWithUIKeys: Bool {
        get { silentPushesWithUIKeys.load(ordering: .relaxed) }
        set { silentPushesWithUIKeys.store(newValue, ordering: .relaxed) }
    }

    init(tombstoneLimit: Int) {
        tombstones = Atomic(tombstoneLimit)
    }

    /// How many deleted records' tombstones a zone keeps at least; older ones are dropped and
    /// tokens from before them expire.
    var tombstoneLimit: Int {
        get { tombstones.load(ordering: .relaxed) }
        set { tombstones.store(newValue, ordering: .relaxed) }
    }

    /// How many notifications each account's collection keeps at least; older ones are
    /// dropped and tokens from before them expire.
    var notificationHistoryLimit: Int {
        get { notifications.load(ordering: .relaxed) }
        set { notifications.store(newValue, ordering: .relaxed) }
    }
}
