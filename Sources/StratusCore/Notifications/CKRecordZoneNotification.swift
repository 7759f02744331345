import Foundation
import StratusWire

/// A notification from a ``CKRecordZoneSubscription``: something changed in a zone. Fetch the
/// zone's changes to see what.
///
/// When a push is too large, fields are dropped in this order of importance (the last is
/// dropped first): notificationID, badge, alertLocalizationKey, alertLocalizationArgs,
/// alertBody, alertActionLocalizationKey, alertLaunchImage, soundName, content-available,
/// recordZoneID, containerIdentifier, subscriptionOwnerUserRecordID, titleLocalizationKey,
/// titleLocalizationArgs, title, subtitleLocalizationKey, subtitleLocalizationArgs, subtitle.
///
/// CloudKit document: *CKRecordZoneNotification*.
public final class CKRecordZoneNotification: CKNotification, @unchecked Sendable {
    /// The zone that changed.
    public var recordZoneID: CKRecordZone.ID? { wire.zoneID.map { CKRecordZone.ID(wire: $0) } }

    /// The database that holds the zone.
    public var databaseScope: CKDatabase.Scope { CKDatabase.Scope(wire.databaseScope) }
}
