import StratusWire

/// The query subscriptions of one owner that narrow by an equality, filed by it.
///
/// A query subscription whose predicate holds `field == value` on a field of its record type
/// (alone or within an `AND`) can only fire for a change whose record (after the change, or
/// before it for a deletion) holds that value. Filing the subscriptions by that value lets a
/// request cost one lookup per change and field rather than one predicate evaluation per
/// change and subscription: an app with a thousand such subscriptions (one per party, say)
/// does not make every save a thousand times slower. The subscription still evaluates its
/// whole predicate on its candidates; values file as a query index files them
/// (``QueryIndex/bucket(for:)``), so no change that matches is left out.
struct SubscriptionEqualityIndex: Sendable {
    /// Record type → field → filed value → positions of the subscriptions narrowing by it.
    private var filed: [String: [String: [WireFieldValue?: [Int]]]] = [:]
    /// Whether the subscription at each position is filed.
    private var isFiled: [Bool] = []

    /// Files the subscriptions that narrow by an equality, by their position in `subscriptions`.
    init(_ subscriptions: [WireSubscription]) {
        isFiled = Array(repeating: false, count: subscriptions.count)
        for (position, subscription) in subscriptions.enumerated() where subscription.kind == .query {
            guard let type = subscription.recordType, let equality = subscription.predicate?.indexableEquality,
                  case .field(let key) = equality.field else { continue }
            filed[type, default: [:]][key, default: [:]][QueryIndex.bucket(for: equality.value), default: []].append(position)
            isFiled[position] = true
        }
    }

    /// The changes of `events` each filed subscription needs to look at.
    func candidates(in events: DatabaseEvents) -> SubscriptionCandidates {
        var candidates = SubscriptionCandidates(isNarrowed: isFiled)
        guard !filed.isEmpty else { return candidates }
        for (zoneID, changes) in events.recordChanges {
            var found: [Int: [RecordChange]] = [:]
            for change in changes {
                guard let record = change.new ?? change.old, let fields = filed[record.recordType] else { continue }
                for (key, values) in fields {
                    guard let value = record.value(for: .field(key)), let matching = values[QueryIndex.bucket(for: value)] else { continue }
                    for position in matching { found[position, default: []].append(change) }
                }
            }
            for (position, changes) in found { candidates.narrowed[position, default: DatabaseEvents()].recordChanges.append((zoneID, changes)) }
        }
        return candidates
    }
}

/// The record changes of one request each of an owner's query subscriptions needs to look at.
struct SubscriptionCandidates {
    /// Whether the subscription at each position narrows by an equality.
    fileprivate let isNarrowed: [Bool]
    /// For each position of a subscription that narrows by an equality and has candidates,
    /// its changes, in order.
    fileprivate var narrowed: [Int: DatabaseEvents] = [:]

    /// The changes the subscription at `position` needs to look at: its candidates (perhaps
    /// none) when its predicate narrows by an equality, otherwise all of `events`.
    func events(forSubscriptionAt position: Int, of events: DatabaseEvents) -> DatabaseEvents {
        guard position < isNarrowed.count, isNarrowed[position] else { return events }
        return narrowed[position] ?? DatabaseEvents()
    }
}
