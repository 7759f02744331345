import Foundation
import StratusWire

/// A notification from a ``CKQuerySubscription``: a record that matches its predicate was
/// created, updated or deleted.
///
/// ``recordID`` names the record and ``queryNotificationReason`` says what happened to it;
/// ``recordFields`` holds the values of the subscription's `desiredKeys`. Fetch the record to
/// see the rest.
///
/// When a push is too large, fields are dropped in this order of importance (the last is
/// dropped first): notificationID, badge, alertLocalizationKey, alertLocalizationArgs,
/// alertBody, alertActionLocalizationKey, alertLaunchImage, soundName, content-available,
/// desiredKeys, queryNotificationReason, recordID, containerIdentifier,
/// subscriptionOwnerUserRecordID, titleLocalizationKey, titleLocalizationArgs, title,
/// subtitleLocalizationKey, subtitleLocalizationArgs, subtitle. This is the order of CloudKit's
/// header (iOS 17 SDK); its web documentation says instead that desiredKeys go first, then the
/// reason, the record ID and the container. Stratus follows the header.
///
/// CloudKit document: *CKQueryNotification*.
public final class CKQueryNotification: CKNotification, @unchecked Sendable {
    /// Which change made the subscription fire. Declared in C as `CKQueryNotificationReason`,
    /// so that Swift imports it as it imports CloudKit's: a non-frozen enum.
    public typealias Reason = CKQueryNotificationReason

    /// What happened to the record. When the push was pruned past it, this is
    /// `Reason(rawValue: 0)`, which is none of CloudKit's cases (Objective-C's zero value).
    public var queryNotificationReason: Reason {
        wire.queryReason.map(Reason.init) ?? Reason(rawValue: 0) ?? .recordCreated
    }

    /// The values of the subscription's `desiredKeys` fields, as a record's `object(forKey:)`
    /// reads them: `String`s, `NSNumber`s, `Date`s and references. Nil when the subscription
    /// asked for none, or the push was pruned.
    public var recordFields: [String: Any]? {
        wire.recordFields.map { fields in fields.mapValues { FieldValueConversion.object(for: $0) as Any } }
    }

    /// The record that changed.
    public var recordID: CKRecord.ID? { wire.recordID.map { CKRecord.ID(wire: $0) } }

    /// The database that holds the record.
    public var databaseScope: CKDatabase.Scope { CKDatabase.Scope(wire.databaseScope) }

    /// Whether the record is in the public database.
    @available(*, deprecated, message: "Use databaseScope instead")
    public var isPublicDatabase: Bool { wire.databaseScope == .public }
}
