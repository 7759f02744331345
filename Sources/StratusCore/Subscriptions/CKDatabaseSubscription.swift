import Foundation
import StratusWire

/// A subscription that fires for every change in the database it is saved in: its custom
/// zones, never the private database's default zone.
///
/// Allowed in the private and shared databases only (`badDatabase` in the public one).
///
/// CloudKit document: *CKDatabaseSubscription*.
public final class CKDatabaseSubscription: CKSubscription, @unchecked Sendable {
    required init(state: State) {
        super.init(state: state)
    }

    /// Decodes a database subscription; nil for anything else.
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    override class func accepts(_ kind: SubscriptionType) -> Bool { kind == .database }

    /// Creates a subscription to every change in the database it is saved in.
    public convenience init(subscriptionID: CKSubscription.ID) {
        self.init(state: State(subscriptionID: subscriptionID, kind: .database))
    }

    /// Creates a database subscription with a random UUID as its ID.
    @available(*, deprecated, renamed: "init(subscriptionID:)")
    public convenience init() {
        self.init(subscriptionID: RandomUUID.string())
    }

    /// The record type the subscription is limited to; nil (the default) watches every type.
    public var recordType: CKRecord.RecordType? {
        get { read(\.recordType) }
        set { change { $0.recordType = newValue } }
    }

    /// CloudKit's class name, `CKDatabaseSubscription`.
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKDatabaseSubscription"] }
}
