// The archive encoding of subscriptions and their notification info, for archived
// `CKSubscription` and `CKSubscription.NotificationInfo` objects.

extension BinaryWriter {
    package mutating func write(_ values: [String]?) {
        if let values {
            write(true)
            write(values)
        } else {
            write(false)
        }
    }
}

extension BinaryReader {
    package mutating func readOptionalStrings() throws(BinaryFormatError) -> [String]? {
        try readBool() ? try readStrings() : nil
    }
}

extension WireNotificationInfo {
    package func write(to writer: inout BinaryWriter) {
        writer.write(alertBody)
        writer.write(alertLocalizationKey)
        writer.write(alertLocalizationArgs)
        writer.write(title)
        writer.write(titleLocalizationKey)
        writer.write(titleLocalizationArgs)
        writer.write(subtitle)
        writer.write(subtitleLocalizationKey)
        writer.write(subtitleLocalizationArgs)
        writer.write(alertActionLocalizationKey)
        writer.write(alertLaunchImage)
        writer.write(soundName)
        writer.write(desiredKeys)
        writer.write(shouldBadge)
        writer.write(shouldSendContentAvailable)
        writer.write(shouldSendMutableContent)
        writer.write(category)
        writer.write(collapseIDKey)
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireNotificationInfo {
        WireNotificationInfo(
            alertBody: try reader.readOptionalString(),
            alertLocalizationKey: try reader.readOptionalString(),
            alertLocalizationArgs: try reader.readOptionalStrings(),
            title: try reader.readOptionalString(),
            titleLocalizationKey: try reader.readOptionalString(),
            titleLocalizationArgs: try reader.readOptionalStrings(),
            subtitle: try reader.readOptionalString(),
            subtitleLocalizationKey: try reader.readOptionalString(),
            subtitleLocalizationArgs: try reader.readOptionalStrings(),
            alertActionLocalizationKey: try reader.readOptionalString(),
            alertLaunchImage: try reader.readOptionalString(),
            soundName: try reader.readOptionalString(),
            desiredKeys: try reader.readOptionalStrings(),
            shouldBadge: try reader.readBool(),
            shouldSendContentAvailable: try reader.readBool(),
            shouldSendMutableContent: try reader.readBool(),
            category: try reader.readOptionalString(),
            collapseIDKey: try reader.readOptionalString()
        )
    }
}

extension WireSubscription.Kind: BinaryEnumeration {
    package static let binaryName = "subscription type"
}

extension WireSubscription.QueryOptions {
    package func write(to writer: inout BinaryWriter) {
        writer.write(UInt8(truncatingIfNeeded: rawValue))
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireSubscription.QueryOptions {
        let raw = UInt(try reader.readByte())
        guard WireSubscription.QueryOptions.all.isSuperset(of: WireSubscription.QueryOptions(rawValue: raw)) else {
            throw BinaryFormatError("unknown query subscription options \(raw)")
        }
        return WireSubscription.QueryOptions(rawValue: raw)
    }
}
