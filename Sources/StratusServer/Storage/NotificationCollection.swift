import StratusWire

/// One account's notification collection in one container: every notification its
/// subscriptions produced, whatever became of the pushes, and the badge the server keeps.
///
/// Each notification has one place in the collection's sequence: where it was added, or where
/// it was last marked read, which moves it to the end as a read entry. A fetch from a token
/// returns each notification whose place is after the token, once, in its state now: a device
/// that saw a notification before it was marked read sees it once more, as read; one that had
/// not seen it sees only that it was read.
struct NotificationCollection: Sendable {
    private struct Entry: Sendable {
        var sequence: UInt64
        var notificationID: WireName
    }

    /// Places in ascending sequence; an entry whose notification moved later is superseded,
    /// skipped by fetches, and compacted away once superseded entries outnumber live ones.
    private var entries: [Entry] = []
    /// Each notification as it is now, and its place.
    private var current: [WireName: (sequence: UInt64, notification: WireNotification)] = [:]
    private var superseded = 0

    /// The sequence of the latest change, 0 before any.
    private(set) var lastSequence: UInt64 = 0
    /// The newest sequence dropped from the kept history: a token from before it has expired.
    private(set) var historyFloor: UInt64 = 0

    /// The badge count the server keeps for the account; pushes of subscriptions that badge
    /// raise it, `CKModifyBadgeOperation` sets it.
    var badge = 0

    /// How many notifications the collection holds.
    var count: Int { current.count }

    /// Adds a notification, which must have an ID, keeping at least `limit` notifications: when
    /// there are a quarter more, the oldest go and the history floor rises past them.
    mutating func add(_ notification: WireNotification, limit: Int) {
        guard let id = notification.notificationID.map({ WireName($0) }) else { return }
        place(notification, id: id)
        let slack = max(1, limit / 4)
        guard current.count - limit > slack else { return }
        var excess = current.count - limit
        var index = 0
        while excess > 0, index < entries.count {
            let entry = entries[index]
            if current[entry.notificationID]?.sequence == entry.sequence {
                current[entry.notificationID] = nil
                historyFloor = entry.sequence
                excess -= 1
            }
            index += 1
        }
        entries.removeFirst(index)
        superseded = entries.count - current.count
    }

    /// Marks the notification `id` read, moving it to the end as a read entry that keeps only
    /// its ID and container. Marking a read notification again changes nothing.
    ///
    /// - Returns: false when the collection has no notification `id` (never had one, or it
    ///   fell out of the kept history).
    mutating func markRead(_ id: String) -> Bool {
        let key = WireName(id)
        guard let existing = current[key]?.notification else { return false }
        guard existing.kind != .readNotification else { return true }
        place(WireNotification(
            kind: .readNotification, notificationID: existing.notificationID,
            containerIdentifier: existing.containerIdentifier, databaseScope: existing.databaseScope
        ), id: key)
        return true
    }

    private mutating func place(_ notification: WireNotification, id: WireName) {
        lastSequence += 1
        if current.updateValue((lastSequence, notification), forKey: id) != nil { superseded += 1 }
        entries.append(Entry(sequence: lastSequence, notificationID: id))
        if superseded > max(64, entries.count / 2) {
            entries.removeAll { current[$0.notificationID]?.sequence != $0.sequence }
            superseded = 0
        }
    }

    /// Up to `limit` notifications placed after `position`, in order, and whether more follow.
    func changes(after position: UInt64, limit: Int) -> (notifications: [WireNotification], last: UInt64?, moreComing: Bool) {
        let low = entries.partitioningIndex { $0.sequence > position }
        var page: [WireNotification] = []
        var last: UInt64?
        for entry in entries[low...] {
            guard let (sequence, notification) = current[entry.notificationID], sequence == entry.sequence else { continue }
            if page.count == limit { return (page, last, true) }
            page.append(notification)
            last = sequence
        }
        return (page, last, false)
    }
}
