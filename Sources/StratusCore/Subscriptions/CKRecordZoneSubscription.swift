import Foundation
import StratusWire

/// A subscription that fires for every change in one zone.
///
/// The zone must support `fetchChanges` (a custom zone of the private database; saving one
/// for the default zone is `invalidArguments`, for a missing zone `zoneNotFound`). Not
/// allowed in the public or shared database (`badDatabase`).
///
/// CloudKit document: *CKRecordZoneSubscription*.
public final class CKRecordZoneSubscription: CKSubscription, @unchecked Sendable {
    required init(state: State) {
        super.init(state: state)
    }

    /// Decodes a zone subscription; nil for anything else.
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    override class func accepts(_ kind: SubscriptionType) -> Bool { kind == .recordZone }

    /// Creates a subscription to every change in `zoneID`.
    public convenience init(zoneID: CKRecordZone.ID, subscriptionID: CKSubscription.ID) {
        self.init(state: State(subscriptionID: subscriptionID, kind: .recordZone, zoneID: zoneID))
    }

    /// Creates a subscription to every change in `zoneID`, with a random UUID as its ID.
    @available(*, deprecated, renamed: "init(zoneID:subscriptionID:)")
    public convenience init(zoneID: CKRecordZone.ID) {
        self.init(zoneID: zoneID, subscriptionID: RandomUUID.string())
    }

    /// The zone the subscription watches.
    public var zoneID: CKRecordZone.ID { read(\.zoneID) ?? CKRecordZone.ID.default }

    /// The record type the subscription is limited to; nil (the default) watches every type.
    public var recordType: CKRecord.RecordType? {
        get { read(\.recordType) }
        set { change { $0.recordType = newValue } }
    }

    /// CloudKit's class name, `CKRecordZoneSubscription`.
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKRecordZoneSubscription"] }
}
