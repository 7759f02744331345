/// One notification as it crosses the client/server boundary: the value twin of
/// `CKQueryNotification`, `CKRecordZoneNotification` and `CKDatabaseNotification` (and of the
/// `.readNotification` entries of the notification collection).
///
/// The server makes one when a subscription fires; the client turns it into a `CKNotification`,
/// or into the remote-notification dictionary a device receives (which may be pruned to fit a
/// push, see ``PrunableField``).
///
/// The alert fields are what the push *shows*, not how the subscription asked for it, so they
/// are kept here rather than as a ``WireNotificationInfo``: localization arguments are the
/// firing record's values (the subscription names fields), ``badge`` is a count (the
/// subscription says only whether to badge), ``recordFields`` holds the values of the
/// subscription's `desiredKeys`, and ``collapseID`` the value of its `collapseIDKey` field.
/// ``init(kind:notificationID:subscriptionID:databaseScope:info:)`` copies the fields that carry
/// over unchanged.
///
/// Equality is memberwise: record and zone IDs compare their names byte for byte (see
/// ``WireName``), the other strings with Swift's `==`. Key notifications by the bytes of their
/// ``notificationID`` where exact identity matters.
public struct WireNotification: Hashable, Sendable {
    /// What a notification reports; the raw values are CloudKit's `CKNotificationType`.
    public enum Kind: Int, Hashable, Sendable, CaseIterable {
        /// A query subscription fired for one record.
        case query = 1
        /// A zone subscription fired: something changed in a zone.
        case recordZone = 2
        /// A notification the user marked read, as the notification collection lists it: only
        /// its ID and container remain.
        case readNotification = 3
        /// A database subscription fired: something changed in the database's custom zones.
        case database = 4

        /// The notification kind a subscription of `kind` produces.
        public init(_ kind: WireSubscription.Kind) {
            self = switch kind {
            case .query: .query
            case .recordZone: .recordZone
            case .database: .database
            }
        }
    }

    /// Which change made a query subscription fire; the raw values are CloudKit's
    /// `CKQueryNotificationReason`.
    public enum QueryReason: Int, Hashable, Sendable, CaseIterable {
        /// A matching record was created.
        case recordCreated = 1
        /// A record that matches after the change was updated.
        case recordUpdated = 2
        /// A matching record was deleted.
        case recordDeleted = 3
    }

    /// What the notification reports.
    public var kind: Kind
    /// The server's identifier of the notification, opaque to clients; nil only when pruning
    /// dropped it.
    public var notificationID: String?
    /// The subscription that fired; nil for a read notification.
    public var subscriptionID: String?
    /// The container the subscription belongs to, such as `iCloud.com.example.clowns`.
    public var containerIdentifier: String?
    /// The user record name of the subscription's owner.
    public var subscriptionOwnerUserRecordName: String?
    /// The database the change happened in (query, zone and database notifications).
    public var databaseScope: WireDatabaseScope
    /// Why a query subscription fired; nil for the other kinds, and when pruning dropped it.
    public var queryReason: QueryReason?
    /// The record a query notification is about.
    public var recordID: WireRecordID?
    /// The zone a zone notification is about.
    public var zoneID: WireZoneID?
    /// The values of the subscription's `desiredKeys`, for a query notification. CloudKit sends
    /// only strings, numbers, dates, references and locations; Stratus has no locations yet,
    /// and ``isAllowedRecordFieldValue(_:)`` says which values are allowed.
    public var recordFields: [String: WireFieldValue]?

    /// Alert text to show.
    public var alertBody: String?
    /// A localization key for the alert text.
    public var alertLocalizationKey: String?
    /// The values that fill the localized alert's placeholders.
    public var alertLocalizationArgs: [String]?
    /// The alert's title.
    public var title: String?
    /// A localization key for the title.
    public var titleLocalizationKey: String?
    /// The values that fill the localized title's placeholders.
    public var titleLocalizationArgs: [String]?
    /// The alert's subtitle.
    public var subtitle: String?
    /// A localization key for the subtitle.
    public var subtitleLocalizationKey: String?
    /// The values that fill the localized subtitle's placeholders.
    public var subtitleLocalizationArgs: [String]?
    /// A localization key for the alert's action button.
    public var alertActionLocalizationKey: String?
    /// An image to show while the app launches from the notification.
    public var alertLaunchImage: String?
    /// A sound to play.
    public var soundName: String?
    /// The number the app's icon shows; nil when the push does not badge.
    public var badge: Int?
    /// The APNs category, for custom actions.
    public var category: String?
    /// Whether the push carries APNs `content-available` (wakes the app in the background).
    public var contentAvailable: Bool
    /// Whether the push carries APNs `mutable-content` (for a notification service extension).
    public var mutableContent: Bool
    /// The `apns-collapse-id` the push is sent with: an APNs header, so it is not part of the
    /// remote-notification dictionary.
    public var collapseID: String?
    /// Whether fields were dropped to fit the push's size limit.
    public var isPruned: Bool

    /// Creates a notification; everything but its kind defaults to nil, `false`, or the private
    /// database.
    public init(
        kind: Kind, notificationID: String? = nil, subscriptionID: String? = nil,
        containerIdentifier: String? = nil, subscriptionOwnerUserRecordName: String? = nil,
        databaseScope: WireDatabaseScope = .private, queryReason: QueryReason? = nil,
        recordID: WireRecordID? = nil, zoneID: WireZoneID? = nil, recordFields: [String: WireFieldValue]? = nil,
        alertBody: String? = nil, alertLocalizationKey: String? = nil, alertLocalizationArgs: [String]? = nil,
        title: String? = nil, titleLocalizationKey: String? = nil, titleLocalizationArgs: [String]? = nil,
        subtitle: String? = nil, subtitleLocalizationKey: String? = nil, subtitleLocalizationArgs: [String]? = nil,
        alertActionLocalizationKey: String? = nil, alertLaunchImage: String? = nil, soundName: String? = nil,
        badge: Int? = nil, category: String? = nil, contentAvailable: Bool = false, mutableContent: Bool = false,
        collapseID: String? = nil, isPruned: Bool = false
    ) {
        self.kind = kind
        self.notificationID = notificationID
        self.subscriptionID = subscriptionID
        self.containerIdentifier = containerIdentifier
        self.subscriptionOwnerUserRecordName = subscriptionOwnerUserRecordName
        self.databaseScope = databaseScope
        self.queryReason = queryReason
        self.recordID = recordID
        self.zoneID = zoneID
        self.recordFields = recordFields
        self.alertBody = alertBody
        self.alertLocalizationKey = alertLocalizationKey
        self.alertLocalizationArgs = alertLocalizationArgs
        self.title = title
        self.titleLocalizationKey = titleLocalizationKey
        self.titleLocalizationArgs = titleLocalizationArgs
        self.subtitle = subtitle
        self.subtitleLocalizationKey = subtitleLocalizationKey
        self.subtitleLocalizationArgs = subtitleLocalizationArgs
        self.alertActionLocalizationKey = alertActionLocalizationKey
        self.alertLaunchImage = alertLaunchImage
        self.soundName = soundName
        self.badge = badge
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.collapseID = collapseID
        self.isPruned = isPruned
    }

    /// Creates a notification whose alert comes from a subscription's notification info: the
    /// texts, keys, launch image, sound, category and the two APNs flags are copied. The
    /// localization arguments, badge, record fields and collapse ID depend on the firing record
    /// and the account, so the caller sets them.
    public init(
        kind: Kind, notificationID: String, subscriptionID: String, databaseScope: WireDatabaseScope,
        info: WireNotificationInfo
    ) {
        self.init(
            kind: kind, notificationID: notificationID, subscriptionID: subscriptionID, databaseScope: databaseScope,
            alertBody: info.alertBody, alertLocalizationKey: info.alertLocalizationKey,
            title: info.title, titleLocalizationKey: info.titleLocalizationKey,
            subtitle: info.subtitle, subtitleLocalizationKey: info.subtitleLocalizationKey,
            alertActionLocalizationKey: info.alertActionLocalizationKey, alertLaunchImage: info.alertLaunchImage,
            soundName: info.soundName, category: info.category,
            contentAvailable: info.shouldSendContentAvailable, mutableContent: info.shouldSendMutableContent
        )
    }

    /// Whether `value` may travel in ``recordFields``: a string, a number, a date, a
    /// reference or a location, as CloudKit's `desiredKeys` allow.
    public static func isAllowedRecordFieldValue(_ value: WireFieldValue) -> Bool {
        switch value {
        case .string, .int64, .double, .date, .reference, .location: true
        case .bytes, .asset, .list: false
        }
    }
}

extension WireNotification {
    /// A field a push may drop to fit APNs' size limit, in CloudKit's terms.
    ///
    /// CloudKit's headers list, per notification class, the order of importance of these
    /// fields; a push drops the least important first (see ``pruningOrder(for:)``). The
    /// subscription ID, the database scope, the category and `mutable-content` are not in
    /// CloudKit's lists, so they are never dropped.
    public enum PrunableField: String, Hashable, Sendable, CaseIterable {
        /// ``WireNotification/notificationID``.
        case notificationID
        /// ``WireNotification/badge``.
        case badge
        /// ``WireNotification/alertLocalizationKey``.
        case alertLocalizationKey
        /// ``WireNotification/alertLocalizationArgs``.
        case alertLocalizationArgs
        /// ``WireNotification/alertBody``.
        case alertBody
        /// ``WireNotification/alertActionLocalizationKey``.
        case alertActionLocalizationKey
        /// ``WireNotification/alertLaunchImage``.
        case alertLaunchImage
        /// ``WireNotification/soundName``.
        case soundName
        /// ``WireNotification/contentAvailable``.
        case contentAvailable
        /// ``WireNotification/recordFields`` (CloudKit's `desiredKeys`), all of them at once.
        case desiredKeys
        /// ``WireNotification/queryReason``.
        case queryNotificationReason
        /// ``WireNotification/recordID``.
        case recordID
        /// ``WireNotification/zoneID``.
        case recordZoneID
        /// ``WireNotification/containerIdentifier``.
        case containerIdentifier
        /// ``WireNotification/subscriptionOwnerUserRecordName``.
        case subscriptionOwnerUserRecordID
        /// ``WireNotification/titleLocalizationKey``.
        case titleLocalizationKey
        /// ``WireNotification/titleLocalizationArgs``.
        case titleLocalizationArgs
        /// ``WireNotification/title``.
        case title
        /// ``WireNotification/subtitleLocalizationKey``.
        case subtitleLocalizationKey
        /// ``WireNotification/subtitleLocalizationArgs``.
        case subtitleLocalizationArgs
        /// ``WireNotification/subtitle``.
        case subtitle
    }

    /// CloudKit's order of importance for a notification of `kind`, most important first (the
    /// last one is dropped first), as the iOS 17 SDK's `CKNotification.h` lists it for
    /// `CKQueryNotification`, `CKRecordZoneNotification` and `CKDatabaseNotification`. A read
    /// notification carries only its ID and container, in the database order.
    public static func pruningOrder(for kind: Kind) -> [PrunableField] {
        let alert: [PrunableField] = [
            .notificationID, .badge, .alertLocalizationKey, .alertLocalizationArgs, .alertBody,
            .alertActionLocalizationKey, .alertLaunchImage, .soundName, .contentAvailable,
        ]
        let kindFields: [PrunableField] = switch kind {
        case .query: [.desiredKeys, .queryNotificationReason, .recordID]
        case .recordZone: [.recordZoneID]
        case .database, .readNotification: []
        }
        let tail: [PrunableField] = [
            .containerIdentifier, .subscriptionOwnerUserRecordID,
            .titleLocalizationKey, .titleLocalizationArgs, .title,
            .subtitleLocalizationKey, .subtitleLocalizationArgs, .subtitle,
        ]
        return alert + kindFields + tail
    }

    /// Whether the notification has a value for `field`.
    public func has(_ field: PrunableField) -> Bool {
        switch field {
        case .notificationID: notificationID != nil
        case .badge: badge != nil
        case .alertLocalizationKey: alertLocalizationKey != nil
        case .alertLocalizationArgs: alertLocalizationArgs != nil
        case .alertBody: alertBody != nil
        case .alertActionLocalizationKey: alertActionLocalizationKey != nil
        case .alertLaunchImage: alertLaunchImage != nil
        case .soundName: soundName != nil
        case .contentAvailable: contentAvailable
        case .desiredKeys: recordFields != nil
        case .queryNotificationReason: queryReason != nil
        case .recordID: recordID != nil
        case .recordZoneID: zoneID != nil
        case .containerIdentifier: containerIdentifier != nil
        case .subscriptionOwnerUserRecordID: subscriptionOwnerUserRecordName != nil
        case .titleLocalizationKey: titleLocalizationKey != nil
        case .titleLocalizationArgs: titleLocalizationArgs != nil
        case .title: title != nil
        case .subtitleLocalizationKey: subtitleLocalizationKey != nil
        case .subtitleLocalizationArgs: subtitleLocalizationArgs != nil
        case .subtitle: subtitle != nil
        }
    }

    /// Removes `field`'s value and marks the notification pruned (when it had a value).
    public mutating func drop(_ field: PrunableField) {
        guard has(field) else { return }
        isPruned = true
        switch field {
        case .notificationID: notificationID = nil
        case .badge: badge = nil
        case .alertLocalizationKey: alertLocalizationKey = nil
        case .alertLocalizationArgs: alertLocalizationArgs = nil
        case .alertBody: alertBody = nil
        case .alertActionLocalizationKey: alertActionLocalizationKey = nil
        case .alertLaunchImage: alertLaunchImage = nil
        case .soundName: soundName = nil
        case .contentAvailable: contentAvailable = false
        case .desiredKeys: recordFields = nil
        case .queryNotificationReason: queryReason = nil
        case .recordID: recordID = nil
        case .recordZoneID: zoneID = nil
        case .containerIdentifier: containerIdentifier = nil
        case .subscriptionOwnerUserRecordID: subscriptionOwnerUserRecordName = nil
        case .titleLocalizationKey: titleLocalizationKey = nil
        case .titleLocalizationArgs: titleLocalizationArgs = nil
        case .title: title = nil
        case .subtitleLocalizationKey: subtitleLocalizationKey = nil
        case .subtitleLocalizationArgs: subtitleLocalizationArgs = nil
        case .subtitle: subtitle = nil
        }
    }

    /// Drops fields in ``pruningOrder(for:)``'s reverse order, least important first, while
    /// `fits` says the notification does not fit; returns the notification that fits (or has
    /// nothing left to drop). The size test is the caller's: the client measures the encoded
    /// remote-notification dictionary.
    public func pruned(while tooLarge: (WireNotification) -> Bool) -> WireNotification {
        var notification = self
        var order = Self.pruningOrder(for: kind)[...]
        while tooLarge(notification), let field = order.popLast() {
            notification.drop(field)
        }
        return notification
    }
}
