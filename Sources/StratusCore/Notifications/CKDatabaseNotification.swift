import Foundation
import StratusWire

/// A notification from a ``CKDatabaseSubscription``: something changed in the database's custom
/// zones. Fetch the database's changes to see which zones.
///
/// When a push is too large, fields are dropped in this order of importance (the last is
/// dropped first): notificationID, badge, alertLocalizationKey, alertLocalizationArgs,
/// alertBody, alertActionLocalizationKey, alertLaunchImage, soundName, content-available,
/// containerIdentifier, subscriptionOwnerUserRecordID, titleLocalizationKey,
/// titleLocalizationArgs, title, subtitleLocalizationKey, subtitleLocalizationArgs, subtitle.
///
/// CloudKit document: *CKDatabaseNotification*.
public final class CKDatabaseNotification: CKNotification, @unchecked Sendable {
    /// The database that changed.
    public var databaseScope: CKDatabase.Scope { CKDatabase.Scope(wire.databaseScope) }
}
