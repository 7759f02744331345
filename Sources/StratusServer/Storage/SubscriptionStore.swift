import StratusWire
import Synchronization

/// The subscriptions of one database, kept per owner: a subscription belongs to the user who
/// saved it. A private or shared database has one owner; the public database keeps each
/// user's subscriptions apart, so one user never sees, replaces or deletes another's.
final class SubscriptionStore: Sendable {
    private struct State {
        /// Subscriptions by owner, then by the bytes of their IDs (IDs that are canonically
        /// equivalent but byte-different are two subscriptions, as names are).
        var byOwner: [String: [WireName: WireSubscription]] = [:]
        /// ``everyOwner`` as last worked out; nil once anything changed since.
        var firingOrder: [OwnerSubscriptions]?
    }

    private let state = Mutex(State())

    /// The owner's subscriptions, by the bytes of their IDs.
    func all(owner: String) -> [WireSubscription] {
        state.withLock { Array(($0.byOwner[owner] ?? [:]).values) }
            .sorted { $0.subscriptionID.utf8.lexicographicallyPrecedes($1.subscriptionID.utf8) }
    }

    /// The owner's subscription with `subscriptionID`, if any.
    func subscription(_ subscriptionID: String, owner: String) -> WireSubscription? {
        state.withLock { $0.byOwner[owner]?[WireName(subscriptionID)] }
    }

    /// Stores `subscription`, replacing the owner's subscription with its ID if there is one.
    func save(_ subscription: WireSubscription, owner: String) {
        state.withLock { state in
            state.byOwner[owner, default: [:]][WireName(subscription.subscriptionID)] = subscription
            state.firingOrder = nil
        }
    }

    /// Removes the owner's subscription with `subscriptionID`; false when there was none.
    func remove(_ subscriptionID: String, owner: String) -> Bool {
        state.withLock { state in
            guard state.byOwner[owner]?.removeValue(forKey: WireName(subscriptionID)) != nil else { return false }
            state.firingOrder = nil
            return true
        }
    }

    /// One owner's subscriptions in firing order, with the index of those that narrow by an
    /// equality.
    struct OwnerSubscriptions: Sendable {
        var owner: String
        var subscriptions: [WireSubscription]
        var equalities: SubscriptionEqualityIndex
    }

    /// Every owner's subscriptions, for firing: owners and subscriptions by the bytes of their
    /// names, so subscriptions fire in a repeatable order. Worked out again only after a
    /// change, not for every request that fires them.
    var everyOwner: [OwnerSubscriptions] {
        state.withLock { state in
            if let order = state.firingOrder { return order }
            let order = state.byOwner
                .filter { !$0.value.isEmpty }
                .sorted { WireName($0.key) < WireName($1.key) }
                .map { owner, subscriptions in
                    let ordered = subscriptions.sorted { $0.key < $1.key }.map(\.value)
                    return OwnerSubscriptions(owner: owner, subscriptions: ordered, equalities: SubscriptionEqualityIndex(ordered))
                }
            state.firingOrder = order
            return order
        }
    }

    /// Removes a `firesOnce` subscription that is about to fire, if it is still stored as
    /// `subscription`: only the request that removes it fires it, so it fires once even when
    /// requests on different zones race, and not at all after it was replaced or deleted.
    func claim(_ subscription: WireSubscription, owner: String) -> Bool {
        state.withLock { state in
            let key = WireName(subscription.subscriptionID)
            guard state.byOwner[owner]?[key] == subscription else { return false }
            state.byOwner[owner]?[key] = nil
            state.firingOrder = nil
            return true
        }
    }
}
