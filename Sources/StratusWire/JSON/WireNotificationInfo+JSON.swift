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
    private enum CodingKeys: String, CodingKey {
        case alertBody, alertLocalizationKey, alertLocalizationArgs, title, titleLocalizationKey, titleLocalizationArgs
        case subtitle, subtitleLocalizationKey, subtitleLocalizationArgs, alertActionLocalizationKey, alertLaunchImage, soundName
        case additionalFields, shouldBadge, shouldSendContentAvailable, shouldSendMutableContent, category, collapseIDKey
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(alertBody, forKey: .alertBody)
        try container.encodeIfPresent(alertLocalizationKey, forKey: .alertLocalizationKey)
        try container.encodeIfPresent(alertLocalizationArgs, forKey: .alertLocalizationArgs)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(titleLocalizationKey, forKey: .titleLocalizationKey)
        try container.encodeIfPresent(titleLocalizationArgs, forKey: .titleLocalizationArgs)
        try container.encodeIfPresent(subtitle, forKey: .subtitle)
        try container.encodeIfPresent(subtitleLocalizationKey, forKey: .subtitleLocalizationKey)
        try container.encodeIfPresent(subtitleLocalizationArgs, forKey: .subtitleLocalizationArgs)
        try container.encodeIfPresent(alertActionLocalizationKey, forKey: .alertActionLocalizationKey)
        try container.encodeIfPresent(alertLaunchImage, forKey: .alertLaunchImage)
        try container.encodeIfPresent(soundName, forKey: .soundName)
        try container.encodeIfPresent(desiredKeys, forKey: .additionalFields)
        try container.encode(shouldBadge, forKey: .shouldBadge)
        try container.encode(shouldSendContentAvailable, forKey: .shouldSendContentAvailable)
        try container.encode(shouldSendMutableContent, forKey: .shouldSendMutableContent)
        try container.encodeIfPresent(category, forKey: .category)
        try container.encodeIfPresent(collapseIDKey, forKey: .collapseIDKey)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            alertBody: try container.decodeIfPresent(String.self, forKey: .alertBody),
            alertLocalizationKey: try container.decodeIfPresent(String.self, forKey: .alertLocalizationKey),
            alertLocalizationArgs: try container.decodeIfPresent([String].self, forKey: .alertLocalizationArgs),
            title: try container.decodeIfPresent(String.self, forKey: .title),
            titleLocalizationKey: try container.decodeIfPresent(String.self, forKey: .titleLocalizationKey),
            titleLocalizationArgs: try container.decodeIfPresent([String].self, forKey: .titleLocalizationArgs),
            subtitle: try container.decodeIfPresent(String.self, forKey: .subtitle),
            subtitleLocalizationKey: try container.decodeIfPresent(String.self, forKey: .subtitleLocalizationKey),
            subtitleLocalizationArgs: try container.decodeIfPresent([String].self, forKey: .subtitleLocalizationArgs),
            alertActionLocalizationKey: try container.decodeIfPresent(String.self, forKey: .alertActionLocalizationKey),
            alertLaunchImage: try container.decodeIfPresent(String.self, forKey: .alertLaunchImage),
            soundName: try container.decodeIfPresent(String.self, forKey: .soundName),
            desiredKeys: try container.decodeIfPresent([String].self, forKey: .additionalFields),
            shouldBadge: try container.decodeIfPresent(Bool.self, forKey: .shouldBadge) ?? false,
            shouldSendContentAvailable: try container.decodeIfPresent(Bool.self, forKey: .shouldSendContentAvailable) ?? false,
            shouldSendMutableContent: try container.decodeIfPresent(Bool.self, forKey: .shouldSendMutableContent) ?? false,
            category: try container.decodeIfPresent(String.self, forKey: .category),
            collapseIDKey: try container.decodeIfPresent(String.self, forKey: .collapseIDKey)
        )
    }
}
