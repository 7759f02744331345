import Foundation
import StratusWire

/// When an iOS 8–9 `CKSubscription` fires; the options apply to query subscriptions only.
///
/// The WWDC 2014 and 2015 talks make subscriptions with these. Current code uses
/// ``CKQuerySubscription/Options``.
@available(*, deprecated, message: "Use CKQuerySubscription.Options")
public struct CKSubscriptionOptions: OptionSet, Sendable, Hashable {
    /// The raw bit mask; the same bits as ``CKQuerySubscription/Options``.
    public let rawValue: UInt
    /// Creates options from their bit mask.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Fires when a matching record is created.
    public static let firesOnRecordCreation = CKSubscriptionOptions(rawValue: 1 << 0)
    /// Fires when a matching record is updated.
    public static let firesOnRecordUpdate = CKSubscriptionOptions(rawValue: 1 << 1)
    /// Fires when a matching record is deleted.
    public static let firesOnRecordDeletion = CKSubscriptionOptions(rawValue: 1 << 2)
    /// Fires once, after which the server deletes the subscription.
    public static let firesOnce = CKSubscriptionOptions(rawValue: 1 << 3)
}

// The iOS 8–9 initialisers, from the talks. They make a plain `CKSubscription` of type
// `.query` or `.recordZone`, which saves as the modern subscription of that type; fetching it
// back gives a `CKQuerySubscription` or `CKRecordZoneSubscription`. The subclasses do not
// inherit these initialisers (they do not override `init(legacyState:)`), so
// `CKQuerySubscription(recordType:predicate:options:)` always means the modern one.
extension CKSubscription {
    /// Creates an iOS 8 query subscription with a random UUID as its ID.
    @available(*, deprecated, message: "Use CKQuerySubscription")
    public convenience init(recordType: String, predicate: NSPredicate, options subscriptionOptions: CKSubscriptionOptions) {
        self.init(recordType: recordType, predicate: predicate, subscriptionID: RandomUUID.string(), options: subscriptionOptions)
    }

    /// Creates an iOS 8 query subscription.
    @available(*, deprecated, message: "Use CKQuerySubscription")
    public convenience init(recordType: String, predicate: NSPredicate, subscriptionID: String, options subscriptionOptions: CKSubscriptionOptions) {
        self.init(legacyState: State(
            subscriptionID: subscriptionID,
            kind: .query,
            recordType: recordType,
            predicate: predicate,
            parsedPredicate: predicate.cloudKitPredicate,
            options: subscriptionOptions.rawValue
        ))
    }

    /// Creates an iOS 8 zone subscription with a random UUID as its ID. The options apply to
    /// query subscriptions only and are ignored.
    @available(*, deprecated, message: "Use CKRecordZoneSubscription")
    public convenience init(zoneID: CKRecordZone.ID, options subscriptionOptions: CKSubscriptionOptions) {
        self.init(zoneID: zoneID, subscriptionID: RandomUUID.string(), options: subscriptionOptions)
    }

    /// Creates an iOS 8 zone subscription. The options apply to query subscriptions only and
    /// are ignored.
    @available(*, deprecated, message: "Use CKRecordZoneSubscription")
    public convenience init(zoneID: CKRecordZone.ID, subscriptionID: String, options subscriptionOptions: CKSubscriptionOptions) {
        self.init(legacyState: State(subscriptionID: subscriptionID, kind: .recordZone, zoneID: zoneID))
    }

    /// The options an iOS 8 subscription was made with (empty for other subscriptions but
    /// query subscriptions, whose ``CKQuerySubscription/querySubscriptionOptions`` they are).
    @available(*, deprecated, message: "Use CKQuerySubscription.querySubscriptionOptions")
    public var subscriptionOptions: CKSubscriptionOptions {
        CKSubscriptionOptions(rawValue: read(\.options))
    }
}
