/// What a push says and carries when a subscription fires: the value twin of
/// `CKSubscription.NotificationInfo`.
///
/// Every property is CloudKit's, with CloudKit's defaults (nil and `false`).
public struct WireNotificationInfo: Hashable, Sendable {
    /// Alert text to show.
    public var alertBody: String?
    /// A localization key for the alert text, instead of ``alertBody``.
    public var alertLocalizationKey: String?
    /// Field names of the firing record whose values fill the localized alert's placeholders.
    public var alertLocalizationArgs: [String]?
    /// The alert's title.
    public var title: String?
    /// A localization key for the title.
    public var titleLocalizationKey: String?
    /// Field names whose values fill the localized title's placeholders.
    public var titleLocalizationArgs: [String]?
    /// The alert's subtitle.
    public var subtitle: String?
    /// A localization key for the subtitle.
    public var subtitleLocalizationKey: String?
    /// Field names whose values fill the localized subtitle's placeholders.
    public var subtitleLocalizationArgs: [String]?
    /// A localization key for the alert's action button.
    public var alertActionLocalizationKey: String?
    /// An image to show while the app launches from the notification.
    public var alertLaunchImage: String?
    /// A sound to play.
    public var soundName: String?
    /// Fields of the firing record to copy into the notification.
    public var desiredKeys: [String]?
    /// Whether the push increments the app's badge.
    public var shouldBadge: Bool
    /// Whether the push carries APNs `content-available`, waking the app in the background.
    public var shouldSendContentAvailable: Bool
    /// Whether the push carries APNs `mutable-content`, for a notification service extension.
    public var shouldSendMutableContent: Bool
    /// The APNs category, for custom actions.
    public var category: String?
    /// A field of the firing record whose value becomes the `apns-collapse-id`.
    public var collapseIDKey: String?

    /// Creates notification info; every property defaults to nil or `false`, as in CloudKit.
    public init(
        alertBody: String? = nil, alertLocalizationKey: String? = nil, alertLocalizationArgs: [String]? = nil,
        title: String? = nil, titleLocalizationKey: String? = nil, titleLocalizationArgs: [String]? = nil,
        subtitle: String? = nil, subtitleLocalizationKey: String? = nil, subtitleLocalizationArgs: [String]? = nil,
        alertActionLocalizationKey: String? = nil, alertLaunchImage: String? = nil, soundName: String? = nil,
        desiredKeys: [String]? = nil, shouldBadge: Bool = false, shouldSendContentAvailable: Bool = false,
        shouldSendMutableContent: Bool = false, category: String? = nil, collapseIDKey: String? = nil
    ) {
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
        self.desiredKeys = desiredKeys
        self.shouldBadge = shouldBadge
        self.shouldSendContentAvailable = shouldSendContentAvailable
        self.shouldSendMutableContent = shouldSendMutableContent
        self.category = category
        self.collapseIDKey = collapseIDKey
    }

    /// The UI keys the push sets, by their property names: the alert's text (body, title and
    /// subtitle, plain or localized), a sound and a badge. A push with none of them is silent
    /// and goes out at low priority; with one it is shown to the user.
    public var uiKeys: [String] {
        var keys: [String] = []
        if alertBody != nil { keys.append("alertBody") }
        if alertLocalizationKey != nil { keys.append("alertLocalizationKey") }
        if title != nil { keys.append("title") }
        if titleLocalizationKey != nil { keys.append("titleLocalizationKey") }
        if subtitle != nil { keys.append("subtitle") }
        if subtitleLocalizationKey != nil { keys.append("subtitleLocalizationKey") }
        if soundName != nil { keys.append("soundName") }
        if shouldBadge { keys.append("shouldBadge") }
        return keys
    }
}
