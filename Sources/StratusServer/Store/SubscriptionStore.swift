import StratusWire
import Synchronization

/// The subscriptions of one database, kept per owner: a subscription belongs to the user who
/// saved it. A private or shared database has one owner; the public database keeps each
/// user's subscriptions apart, so one user never sees, replaces or deletes another's.
final class SubscriptionStore: Sendable {
    /// Subscriptions by owner, then by the bytes of their IDs (IDs that are canonically
    /// equivalent but byte-different are two subscriptions, as names are).
    private let byOwner = Mutex<[String: [WireName: WireSubscription]]>([:])

    /// The owner's subscriptions, by the bytes of their IDs.
    func all(owner: String) -> [WireSubscription] {
        byOwner.withLock { Array(($0[owner] ?? [:]).values) }
            .sorted { $0.subscriptionID.utf8.lexicographicallyPrecedes($1.subscriptionID.utf8) }
    }

    /// The owner's subscription with `subscriptionID`, if any.
    func subscription(_ subscriptionID: String, owner: String) -> WireSubscription? {
        byOwner.withLock { $0[owner]?[WireName(subscriptionID)] }
    }

    /// Stores `subscription`, replacing the owner's subscription with its ID if there is one.
    func save(_ subscription: WireSubscription, owner: String) {
        byOwner.withLock { $0[owner, default: [:]][WireName(subscription.subscriptionID)] = subscription }
    }

    /// Removes the owner's subscription with `subscriptionID`; false when there was none.
    func remove(_ subscriptionID: String, owner: String) -> Bool {
        byOwner.withLock { $0[owner]?.removeValue(forKey: WireName(subscriptionID)) != nil }
    }

    /// Every owner's subscriptions, for firing: owners and subscriptions by the bytes of their
    /// names, so subscriptions fire in a repeatable order.
    var everyOwner: [(owner: String, subscriptions: [WireSubscription])] {
        byOwner.withLock { $0 }
            .map { owner, subscriptions in
                (owner, subscriptions.sorted { $0.key < $1.key }.map(\.value))
            }
            .filter { !$0.subscriptions.isEmpty }
            .sorted { WireName($0.owner) < WireName($1.owner) }
    }

    /// Removes a `firesOnce` subscription that is about to fire, if it is still stored as
    /// `subscription`: only the request that removes it fires it, so it fires once even when
    /// requests on different zones race, and not at all after it was replaced or deleted.
    func claim(_ subscription: WireSubscription, owner: String) -> Bool {
        byOwner.withLock { byOwner in
            let key = WireName(subscription.subscriptionID)
            guard byOwner[owner]?[key] == subscription else { return false }
            byOwner[owner]?[key] = nil
            return true
        }
    }
}
