import Foundation
import StratusWire

/// What a push from CloudKit tells an app: which subscription fired, in which container, and
/// what it shows the user.
///
/// You never create one directly. Turn the dictionary of a remote notification into one with
/// `CKNotification(fromRemoteNotificationDictionary:)`, which returns the concrete class:
/// ``CKQueryNotification``, ``CKRecordZoneNotification`` or ``CKDatabaseNotification``
/// (`registerForPushNotifications` hands you these objects directly). Check
/// ``notificationType`` rather than casting.
///
/// A push is limited to 4 KB; when a notification does not fit, fields are dropped in the
/// order its class documents and ``isPruned`` is true.
///
/// CloudKit document: *CKNotification*.
public class CKNotification: NSObject, CKNotificationInitializable, @unchecked Sendable {
    /// The server's identifier of a notification.
    public typealias ID = CKNotificationID
    /// What kind of change a notification reports. Declared in C as `CKNotificationType`, so
    /// that Swift imports it as it imports CloudKit's: a non-frozen enum, whose `switch`es end
    /// with `@unknown default`.
    public typealias NotificationType = CKNotificationType

    /// Everything the notification says; immutable.
    package let wire: WireNotification

    /// Creates a notification holding `wire`; ``make(_:)`` picks the class.
    package init(wire: WireNotification) {
        self.wire = wire
        super.init()
    }

    /// The notification object for `wire`: a ``CKQueryNotification``,
    /// ``CKRecordZoneNotification`` or ``CKDatabaseNotification`` for those kinds, a plain
    /// `CKNotification` for a read notification. The server hands these to devices and to the
    /// notification collection; nothing is pruned here.
    package static func make(_ wire: WireNotification) -> CKNotification {
        switch wire.kind {
        case .query: CKQueryNotification(wire: wire)
        case .recordZone: CKRecordZoneNotification(wire: wire)
        case .database: CKDatabaseNotification(wire: wire)
        case .readNotification: CKNotification(wire: wire)
        }
    }

    /// What kind of change the notification reports; use it instead of casting to a subclass.
    public var notificationType: NotificationType { NotificationType(wire.kind) }

    /// The server's identifier of this notification; nil only when the push was pruned.
    public var notificationID: ID? { wire.notificationID.map { ID(value: $0) } }

    /// The identifier of the container whose subscription fired.
    public var containerIdentifier: String? { wire.containerIdentifier }

    /// The user record ID of the subscription's owner.
    public var subscriptionOwnerUserRecordID: CKRecord.ID? {
        wire.subscriptionOwnerUserRecordName.map { CKRecord.ID(recordName: $0) }
    }

    /// Whether fields were dropped to fit the push's 4 KB limit. The notification collection
    /// (`CKFetchNotificationChangesOperation`) returns it in full.
    public var isPruned: Bool { wire.isPruned }

    /// The ID of the subscription that fired.
    public var subscriptionID: CKSubscription.ID? { wire.subscriptionID }

    /// The notification's class name and fields, such as
    /// `<CKQueryNotification: type=query, id=…, subscription=…>`.
    public override var description: String {
        var parts = ["type=\(notificationType)"]
        if let id = wire.notificationID { parts.append("id=\(id)") }
        if let subscription = wire.subscriptionID { parts.append("subscription=\(subscription)") }
        if let container = wire.containerIdentifier { parts.append("container=\(container)") }
        if wire.isPruned { parts.append("pruned") }
        return "<\(type(of: self)): \(parts.joined(separator: ", "))>"
    }
}

extension CKNotification {
    /// The alert text.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var alertBody: String? { wire.alertBody }
    /// The localization key of the alert text.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var alertLocalizationKey: String? { wire.alertLocalizationKey }
    /// The values that fill the localized alert's placeholders.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var alertLocalizationArgs: [String]? { wire.alertLocalizationArgs }
    /// The alert's title.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var title: String? { wire.title }
    /// The localization key of the title.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var titleLocalizationKey: String? { wire.titleLocalizationKey }
    /// The values that fill the localized title's placeholders.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var titleLocalizationArgs: [String]? { wire.titleLocalizationArgs }
    /// The alert's subtitle.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var subtitle: String? { wire.subtitle }
    /// The localization key of the subtitle.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var subtitleLocalizationKey: String? { wire.subtitleLocalizationKey }
    /// The values that fill the localized subtitle's placeholders.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var subtitleLocalizationArgs: [String]? { wire.subtitleLocalizationArgs }
    /// The localization key of the alert's action button.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var alertActionLocalizationKey: String? { wire.alertActionLocalizationKey }
    /// The image shown while the app launches from the notification.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var alertLaunchImage: String? { wire.alertLaunchImage }
    /// The number the app's icon shows.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var badge: NSNumber? { wire.badge.map { NSNumber(value: $0) } }
    /// The sound to play.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var soundName: String? { wire.soundName }
    /// The APNs category, for custom actions.
    @available(*, deprecated, message: "Interact with UI elements of a CloudKit-server-generated push message via UserNotifications.framework")
    public var category: String? { wire.category }
}

extension CKDatabase.Scope {
    package init(_ wire: WireDatabaseScope) {
        self = switch wire {
        case .public: .public
        case .private: .private
        case .shared: .shared
        }
    }
}
