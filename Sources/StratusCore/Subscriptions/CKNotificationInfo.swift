import Foundation
import StratusWire

extension CKSubscription {
    /// What a push says and carries when the subscription fires. Its Objective-C name,
    /// `CKNotificationInfo`, is the class itself.
    public typealias NotificationInfo = CKNotificationInfo
}

/// What a push says and carries when a subscription fires: alert text (plain or localized),
/// title and subtitle, sound, badge, the record fields to include, and the APNs flags.
///
/// ```swift
/// let info = CKSubscription.NotificationInfo()
/// info.shouldSendContentAvailable = true      // a silent push that wakes the app
/// subscription.notificationInfo = info
/// ```
///
/// Every property defaults to nil or `false`. A push that sets none of the UI keys (an alert
/// text, a sound, a badge) is silent and goes out at low priority. Asking for a silent push
/// (`shouldSendContentAvailable`) and setting UI keys too is refused when the subscription is
/// saved, with `invalidArguments`, as the WWDC 2015 talk says; the server setting
/// `CloudServer.allowsSilentPushesWithUIKeys` switches to the newer rule that accepts it.
///
/// It is `CKSubscription.NotificationInfo` in Swift; it is declared at the top level (as
/// CloudKit's Objective-C class is) because Foundation on Linux cannot archive nested classes.
///
/// CloudKit document: *CKSubscription.NotificationInfo*.
public final class CKNotificationInfo: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    private let lock = NSLock()
    private var value: WireNotificationInfo

    /// Creates notification info with every property at its default: nil or `false`.
    public override init() {
        value = WireNotificationInfo()
        super.init()
    }

    /// Creates notification info from its value twin.
    package init(wire: WireNotificationInfo) {
        value = wire
        super.init()
    }

    /// Creates notification info with the given properties; the rest keep their defaults.
    /// An empty array of arguments or desired keys leaves that property nil.
    public convenience init(
        alertBody: String? = nil,
        alertLocalizationKey: String? = nil,
        alertLocalizationArgs: [CKRecord.FieldKey] = [],
        title: String? = nil,
        titleLocalizationKey: String? = nil,
        titleLocalizationArgs: [CKRecord.FieldKey] = [],
        subtitle: String? = nil,
        subtitleLocalizationKey: String? = nil,
        subtitleLocalizationArgs: [CKRecord.FieldKey] = [],
        alertActionLocalizationKey: String? = nil,
        alertLaunchImage: String? = nil,
        soundName: String? = nil,
        desiredKeys: [CKRecord.FieldKey] = [],
        shouldBadge: Bool = false,
        shouldSendContentAvailable: Bool = false,
        shouldSendMutableContent: Bool = false,
        category: String? = nil,
        collapseIDKey: String? = nil
    ) {
        self.init(wire: WireNotificationInfo(
            alertBody: alertBody,
            alertLocalizationKey: alertLocalizationKey,
            alertLocalizationArgs: alertLocalizationArgs.isEmpty ? nil : alertLocalizationArgs,
            title: title,
            titleLocalizationKey: titleLocalizationKey,
            titleLocalizationArgs: titleLocalizationArgs.isEmpty ? nil : titleLocalizationArgs,
            subtitle: subtitle,
            subtitleLocalizationKey: subtitleLocalizationKey,
            subtitleLocalizationArgs: subtitleLocalizationArgs.isEmpty ? nil : subtitleLocalizationArgs,
            alertActionLocalizationKey: alertActionLocalizationKey,
            alertLaunchImage: alertLaunchImage,
            soundName: soundName,
            desiredKeys: desiredKeys.isEmpty ? nil : desiredKeys,
            shouldBadge: shouldBadge,
            shouldSendContentAvailable: shouldSendContentAvailable,
            shouldSendMutableContent: shouldSendMutableContent,
            category: category,
            collapseIDKey: collapseIDKey
        ))
    }

    /// The properties as one value.
    package var wireValue: WireNotificationInfo {
        lock.withLock { value }
    }

    private func get<Value>(_ keyPath: KeyPath<WireNotificationInfo, Value>) -> Value {
        lock.withLock { value[keyPath: keyPath] }
    }

    private func set<Value>(_ keyPath: WritableKeyPath<WireNotificationInfo, Value>, _ newValue: Value) {
        lock.withLock { value[keyPath: keyPath] = newValue }
    }

    /// Alert text to show.
    public var alertBody: String? {
        get { get(\.alertBody) }
        set { set(\.alertBody, newValue) }
    }

    /// A key in the app's `Localizable.strings` for the alert text, instead of ``alertBody``.
    public var alertLocalizationKey: String? {
        get { get(\.alertLocalizationKey) }
        set { set(\.alertLocalizationKey, newValue) }
    }

    /// Field names of the firing record whose values fill the localized alert's placeholders.
    public var alertLocalizationArgs: [CKRecord.FieldKey]? {
        get { get(\.alertLocalizationArgs) }
        set { set(\.alertLocalizationArgs, newValue) }
    }

    /// The alert's title.
    public var title: String? {
        get { get(\.title) }
        set { set(\.title, newValue) }
    }

    /// A localization key for the title.
    public var titleLocalizationKey: String? {
        get { get(\.titleLocalizationKey) }
        set { set(\.titleLocalizationKey, newValue) }
    }

    /// Field names whose values fill the localized title's placeholders.
    public var titleLocalizationArgs: [CKRecord.FieldKey]? {
        get { get(\.titleLocalizationArgs) }
        set { set(\.titleLocalizationArgs, newValue) }
    }

    /// The alert's subtitle.
    public var subtitle: String? {
        get { get(\.subtitle) }
        set { set(\.subtitle, newValue) }
    }

    /// A localization key for the subtitle.
    public var subtitleLocalizationKey: String? {
        get { get(\.subtitleLocalizationKey) }
        set { set(\.subtitleLocalizationKey, newValue) }
    }

    /// Field names whose values fill the localized subtitle's placeholders.
    public var subtitleLocalizationArgs: [CKRecord.FieldKey]? {
        get { get(\.subtitleLocalizationArgs) }
        set { set(\.subtitleLocalizationArgs, newValue) }
    }

    /// A localization key for the alert's action button.
    public var alertActionLocalizationKey: String? {
        get { get(\.alertActionLocalizationKey) }
        set { set(\.alertActionLocalizationKey, newValue) }
    }

    /// An image in the app bundle to show while the app launches from the notification.
    public var alertLaunchImage: String? {
        get { get(\.alertLaunchImage) }
        set { set(\.alertLaunchImage, newValue) }
    }

    /// A sound file in the app bundle to play.
    public var soundName: String? {
        get { get(\.soundName) }
        set { set(\.soundName, newValue) }
    }

    /// Fields of the firing record to include in the notification; their values must be
    /// references, locations, dates, numbers or strings.
    public var desiredKeys: [CKRecord.FieldKey]? {
        get { get(\.desiredKeys) }
        set { set(\.desiredKeys, newValue) }
    }

    /// Whether the push increments the app's badge. Default `false`.
    public var shouldBadge: Bool {
        get { get(\.shouldBadge) }
        set { set(\.shouldBadge, newValue) }
    }

    /// Whether the push carries APNs `content-available`, waking the app in the background.
    /// Default `false`.
    public var shouldSendContentAvailable: Bool {
        get { get(\.shouldSendContentAvailable) }
        set { set(\.shouldSendContentAvailable, newValue) }
    }

    /// Whether the push carries APNs `mutable-content`, so a notification service extension
    /// may change it. Default `false`.
    public var shouldSendMutableContent: Bool {
        get { get(\.shouldSendMutableContent) }
        set { set(\.shouldSendMutableContent, newValue) }
    }

    /// The APNs category, for custom actions.
    public var category: String? {
        get { get(\.category) }
        set { set(\.category, newValue) }
    }

    /// A field of the firing record whose value becomes the push's `apns-collapse-id`.
    public var collapseIDKey: String? {
        get { get(\.collapseIDKey) }
        set { set(\.collapseIDKey, newValue) }
    }

    /// Notification infos with the same properties are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKNotificationInfo else { return false }
        return other === self || other.wireValue == wireValue
    }

    /// A hash of the properties.
    public override var hash: Int {
        wireValue.hashValue
    }

    /// A copy with the same properties.
    public func copy(with zone: NSZone? = nil) -> Any {
        CKNotificationInfo(wire: wireValue)
    }

    /// Notification infos decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's class name, `CKNotificationInfo`, listed as the archive's class hint.
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKNotificationInfo"] }

    /// Encodes the properties as one versioned blob.
    public func encode(with coder: NSCoder) {
        let value = wireValue
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.notificationInfo) { value.write(to: &$0) }, with: coder)
    }

    /// Decodes notification info; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let value = SecureCodingBlob.decode(from: coder, as: .notificationInfo, { reader throws(BinaryFormatError) in
            try WireNotificationInfo.read(from: &reader)
        }) else { return nil }
        self.init(wire: value)
    }
}
