import Foundation
import StratusWire

/// A subscription that fires when a record of one type that matches a predicate is created,
/// updated or deleted.
///
/// ```swift
/// let subscription = CKQuerySubscription(
///     recordType: "Party",
///     predicate: NSPredicate(format: "attendees > %@", 10),
///     subscriptionID: "big-parties",
///     options: [.firesOnRecordCreation, .firesOnRecordUpdate]
/// )
/// ```
///
/// The predicate follows the rules of `CKQuery`'s; one CloudKit does not accept fails the save
/// with `invalidArguments`, and so do options without any of creation, update and deletion
/// (CloudKit raises an exception when it is made; Stratus refuses the save instead). Not
/// allowed in the shared database (`badDatabase`).
///
/// CloudKit document: *CKQuerySubscription*.
public final class CKQuerySubscription: CKSubscription, @unchecked Sendable {
    /// When a query subscription fires: `firesOnRecordCreation`, `firesOnRecordUpdate`,
    /// `firesOnRecordDeletion`, `firesOnce`. The same type as the subscription's value on the
    /// wire, so it crosses without conversion.
    public typealias Options = WireSubscription.QueryOptions

    required init(state: State) {
        super.init(state: state)
    }

    /// Decodes a query subscription; nil for anything else.
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    override class func accepts(_ kind: SubscriptionType) -> Bool { kind == .query }

    /// Creates a subscription to records of `recordType` that match `predicate`.
    public convenience init(
        recordType: CKRecord.RecordType,
        predicate: NSPredicate,
        subscriptionID: CKSubscription.ID,
        options querySubscriptionOptions: CKQuerySubscription.Options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]
    ) {
        self.init(state: State(
            subscriptionID: subscriptionID,
            kind: .query,
            recordType: recordType,
            predicate: predicate,
            parsedPredicate: predicate.cloudKitPredicate,
            options: querySubscriptionOptions.rawValue
        ))
    }

    /// Creates a subscription with a random UUID as its ID.
    @available(*, deprecated, message: "Provide an explicit CKSubscription.ID at CKSubscription-init time")
    public convenience init(
        recordType: CKRecord.RecordType,
        predicate: NSPredicate,
        options querySubscriptionOptions: CKQuerySubscription.Options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]
    ) {
        self.init(recordType: recordType, predicate: predicate, subscriptionID: RandomUUID.string(), options: querySubscriptionOptions)
    }

    /// The type of the records the subscription watches.
    public var recordType: CKRecord.RecordType? { read(\.recordType) }

    /// Which records the subscription watches.
    public var predicate: NSPredicate { read(\.predicate) ?? NSPredicate(value: false) }

    /// The zone the subscription is limited to; nil (the default) watches every zone.
    public var zoneID: CKRecordZone.ID? {
        get { read(\.zoneID) }
        set { change { $0.zoneID = newValue } }
    }

    /// When the subscription fires.
    public var querySubscriptionOptions: Options { Options(rawValue: read(\.options)) }

    /// CloudKit's class name, `CKQuerySubscription`.
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKQuerySubscription"] }
}
