import StratusWire

/// The record changes each query subscription needs to look at, found through the equality
/// its predicate narrows by.
///
/// A query subscription whose predicate holds `field == value` on a field of its record type
/// (alone or within an `AND`) can only fire for a change whose record (after the change, or
/// before it for a deletion) holds that value. The changes are filed by their value once, so a
/// request costs one lookup per change and field rather than one predicate evaluation per
/// change and subscription: an app with a thousand such subscriptions (one per party, say)
/// does not make every save a thousand times slower. The subscription still evaluates its
/// whole predicate on its candidates; values file as a query index files them
/// (``QueryIndex/bucket(for:)``), so no change that matches is left out.
struct SubscriptionCandidates {
    /// For each position of a narrowable subscription, the changes it may fire for, in order.
    private var narrowed: [Int: DatabaseEvents] = [:]

    /// Files `events` for `subscriptions` (one owner's, in firing order).
    init(_ subscriptions: [WireSubscription], _ events: DatabaseEvents) {
        // Record type → field → filed value → positions of the subscriptions narrowing by it.
        var index: [String: [String: [WireFieldValue?: [Int]]]] = [:]
        for (position, subscription) in subscriptions.enumerated() where subscription.kind == .query {
            guard let type = subscription.recordType, let equality = subscription.predicate?.indexableEquality,
                  case .field(let key) = equality.field else { continue }
            index[type, default: [:]][key, default: [:]][QueryIndex.bucket(for: equality.value), default: []].append(position)
            narrowed[position] = DatabaseEvents()
        }
        guard !index.isEmpty else { return }
        for (zoneID, changes) in events.recordChanges {
            var candidates: [Int: [RecordChange]] = [:]
            for change in changes {
                guard let record = change.new ?? change.old, let fields = index[record.recordType] else { continue }
                for (key, filed) in fields {
                    guard let value = record.value(for: .field(key)), let positions = filed[QueryIndex.bucket(for: value)] else { continue }
                    for position in positions { candidates[position, default: []].append(change) }
                }
            }
            for (position, changes) in candidates { narrowed[position]?.recordChanges.append((zoneID, changes)) }
        }
    }

    /// The changes the subscription at `position` needs to look at: its candidates when its
    /// predicate narrows by an equality, otherwise all of `events`.
    func events(forSubscriptionAt position: Int, of events: DatabaseEvents) -> DatabaseEvents {
        narrowed[position] ?? events
    }
}
