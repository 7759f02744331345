import Foundation

/// Notification info as CloudKit Web Services writes a subscription's `notificationInfo`:
/// `alertBody`, `alertLocalizationKey`, `alertLocalizationArgs`, `alertActionLocalizationKey`,
/// `alertLaunchImage`, `soundName`, `shouldBadge`, `shouldSendContentAvailable`, and CloudKit
/// JS's `additionalFields` (the native `desiredKeys`) and `category`; plus, as Stratus
/// extensions under their native names, `title`, `titleLocalizationKey`,
/// `titleLocalizationArgs`, `subtitle`, `subtitleLocalizationKey`, `subtitleLocalizationArgs`,
/// `shouldSendMutableContent` and `collapseIDKey`.
///
/// A nil property is left out (an empty list is written, so nil and `[]` stay apart); the three
/// flags are always written, and read as `false` when missing, CloudKit's default.
extension WireNotificationInfo: Codable {
    private static let json = JSONDictionary(
        Self.init,
        .optional("alertBody", \.alertBody),
        .optional("alertLocalizationKey", \.alertLocalizationKey),
        .optional("alertLocalizationArgs", \.alertLocalizationArgs),
        .optional("title", \.title),
        .optional("titleLocalizationKey", \.titleLocalizationKey),
        .optional("titleLocalizationArgs", \.titleLocalizationArgs),
        .optional("subtitle", \.subtitle),
        .optional("subtitleLocalizationKey", \.subtitleLocalizationKey),
        .optional("subtitleLocalizationArgs", \.subtitleLocalizationArgs),
        .optional("alertActionLocalizationKey", \.alertActionLocalizationKey),
        .optional("alertLaunchImage", \.alertLaunchImage),
        .optional("soundName", \.soundName),
        .optional("additionalFields", \.desiredKeys),
        .optional("shouldBadge", \.shouldBadge, absent: false),
        .optional("shouldSendContentAvailable", \.shouldSendContentAvailable, absent: false),
        .optional("shouldSendMutableContent", \.shouldSendMutableContent, absent: false),
        .optional("category", \.category),
        .optional("collapseIDKey", \.collapseIDKey)
    )

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}
