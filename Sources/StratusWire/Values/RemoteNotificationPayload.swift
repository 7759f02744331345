import Foundation

/// The remote-notification dictionary of a CloudKit push: how a ``WireNotification`` becomes the
/// `userInfo` an app receives, how that dictionary becomes a notification again, and how a push
/// that is too large is pruned.
///
/// The shape, with the keys CloudKit uses as far as public sources show them (CloudKit does not
/// document its payload; `"ck"`, `"cid"`, `"nid"`, `"ckuserid"`, `"ce"`, `"p"`, `"qry"`, `"fet"`,
/// `"met"`, `"sid"`, `"dbs"`, `"fo"`, `"rid"`, `"zid"`, `"zoid"` and `"af"` appear in published
/// payloads and in open-source CloudKit clients; the `"aps"` keys are APNs' documented ones):
///
/// ```
/// {
///   "aps": {
///     "alert": { "body", "loc-key", "loc-args", "title", "title-loc-key", "title-loc-args",
///                "subtitle", "subtitle-loc-key", "subtitle-loc-args", "action-loc-key",
///                "launch-image" },               // only the keys that are set; no "alert" if none
///     "sound": String, "badge": Int, "category": String,
///     "content-available": 1, "mutable-content": 1
///   },                                           // no "aps" if it would be empty
///   "ck": {
///     "nid": String,                             // notification ID
///     "cid": String,                             // container identifier
///     "ckuserid": String,                        // subscription owner's user record name
///     "p": 1,                                    // present only when the push was pruned
///     "qry": { "sid": String, "dbs": Int, "fo": 1|2|3,        // query notification
///              "rid": String, "zid": String, "zoid": String,  // record name, zone, zone owner
///              "af": { field: value } },                      // desiredKeys' values
///     "fet": { "sid", "dbs", "zid", "zoid" },    // zone notification
///     "met": { "sid", "dbs" }                    // database notification
///   }
/// }
/// ```
///
/// A read notification (only the notification collection returns those; they are never
/// pushed) has none of `"qry"`, `"fet"` and `"met"`. Values in `"af"` are strings, integers
/// and doubles as JSON has them; a date is `{"date": seconds since 2001-01-01}` and a
/// reference `{"rid", "zid", "zoid", "act"}`; a location has the keys of CloudKit Web
/// Services' location dictionary (`latitude`, `longitude`, `altitude`, `horizontalAccuracy`,
/// `verticalAccuracy`, `course`, `speed`, and `timestamp` in seconds since 2001-01-01)
/// (Stratus's choice: public sources do not show CloudKit's). The collapse ID is an APNs header, not part of the dictionary. `"ce"` (the
/// container environment in CloudKit's pushes) is read and ignored.
///
/// The size of a push is the length of its JSON encoding (sorted keys, no spaces, as
/// ``jsonBytes(of:)`` writes it); above ``maximumSize`` fields are dropped in the order
/// ``WireNotification/pruningOrder(for:)`` gives, least important first, and `"p"` is set.
package enum RemoteNotificationPayload {
    /// APNs' limit for a remote notification's payload: 4 KB.
    package static let maximumSize = 4096

    // MARK: Building

    /// The dictionary a device receives for `wire`, pruned to fit ``maximumSize``.
    package static func dictionary(for wire: WireNotification) -> [String: Any] {
        unprunedDictionary(for: pruned(wire))
    }

    /// `wire` with the least important fields dropped until its dictionary fits
    /// ``maximumSize``. When even the fields CloudKit never drops (subscription ID, database
    /// scope, category) do not fit, the result is still too large; APNs would refuse it.
    package static func pruned(_ wire: WireNotification) -> WireNotification {
        wire.pruned { size(of: $0) > maximumSize }
    }

    /// The size in bytes of `wire`'s dictionary as it stands, without pruning.
    package static func size(of wire: WireNotification) -> Int {
        jsonBytes(of: unprunedDictionary(for: wire)).count
    }

    /// The dictionary for exactly the fields `wire` holds.
    package static func unprunedDictionary(for wire: WireNotification) -> [String: Any] {
        var alert: [String: Any] = [:]
        alert["body"] = wire.alertBody
        alert["loc-key"] = wire.alertLocalizationKey
        alert["loc-args"] = wire.alertLocalizationArgs
        alert["title"] = wire.title
        alert["title-loc-key"] = wire.titleLocalizationKey
        alert["title-loc-args"] = wire.titleLocalizationArgs
        alert["subtitle"] = wire.subtitle
        alert["subtitle-loc-key"] = wire.subtitleLocalizationKey
        alert["subtitle-loc-args"] = wire.subtitleLocalizationArgs
        alert["action-loc-key"] = wire.alertActionLocalizationKey
        alert["launch-image"] = wire.alertLaunchImage

        var aps: [String: Any] = [:]
        if !alert.isEmpty { aps["alert"] = alert }
        aps["sound"] = wire.soundName
        aps["badge"] = wire.badge
        aps["category"] = wire.category
        if wire.contentAvailable { aps["content-available"] = 1 }
        if wire.mutableContent { aps["mutable-content"] = 1 }

        var ck: [String: Any] = [:]
        ck["nid"] = wire.notificationID
        ck["cid"] = wire.containerIdentifier
        ck["ckuserid"] = wire.subscriptionOwnerUserRecordName
        if wire.isPruned { ck["p"] = 1 }

        var body: [String: Any] = [:]
        body["sid"] = wire.subscriptionID
        body["dbs"] = wire.databaseScope.rawValue
        switch wire.kind {
        case .query:
            body["fo"] = wire.queryReason?.rawValue
            if let recordID = wire.recordID {
                body["rid"] = recordID.recordName
                body["zid"] = recordID.zoneID.zoneName
                body["zoid"] = recordID.zoneID.ownerName
            }
            body["af"] = wire.recordFields.map { fields in fields.mapValues(fieldObject) }
            ck["qry"] = body
        case .recordZone:
            if let zoneID = wire.zoneID {
                body["zid"] = zoneID.zoneName
                body["zoid"] = zoneID.ownerName
            }
            ck["fet"] = body
        case .database:
            ck["met"] = body
        case .readNotification:
            break
        }

        var dictionary: [String: Any] = ["ck": ck]
        if !aps.isEmpty { dictionary["aps"] = aps }
        return dictionary
    }

    /// A record field's value in `"af"`.
    private static func fieldObject(_ value: WireFieldValue) -> Any {
        switch value {
        case .string(let string): string
        case .int64(let integer): integer
        case .double(let double): double
        case .date(let date): ["date": date.timeIntervalSinceReferenceDate] as [String: Any]
        case .reference(let reference):
            [
                "rid": reference.recordID.recordName, "zid": reference.recordID.zoneID.zoneName,
                "zoid": reference.recordID.zoneID.ownerName, "act": reference.action.rawValue,
            ] as [String: Any]
        case .location(let location): location.dictionary
        // Not allowed in desiredKeys; the server never sends them. Their description stands in.
        case .bytes, .asset, .list: value.description
        }
    }

    // MARK: Measuring

    /// The JSON encoding of a payload built by ``unprunedDictionary(for:)``: keys sorted, no
    /// whitespace, strings escaped as JSON requires. Written here rather than with
    /// `JSONSerialization` so that it is the same on every platform and never throws; values
    /// that are not JSON (which payloads never hold) are written as `null`.
    package static func jsonBytes(of object: Any) -> [UInt8] {
        var bytes: [UInt8] = []
        writeJSON(object, to: &bytes)
        return bytes
    }

    private static func writeJSON(_ object: Any, to bytes: inout [UInt8]) {
        switch object {
        case let string as String:
            writeJSONString(string, to: &bytes)
        case let integer as Int:
            bytes += Array(String(integer).utf8)
        case let integer as Int64:
            bytes += Array(String(integer).utf8)
        case let double as Double:
            bytes += Array((double.isFinite ? "\(double)" : "null").utf8)
        case let strings as [String]:
            bytes.append(UInt8(ascii: "["))
            for (index, string) in strings.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeJSONString(string, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case let dictionary as [String: Any]:
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeJSONString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                if let value = dictionary[key] { writeJSON(value, to: &bytes) }
            }
            bytes.append(UInt8(ascii: "}"))
        default:
            bytes += Array("null".utf8)
        }
    }

    private static func writeJSONString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): bytes += Array("\\\\".utf8)
            case 0x0A: bytes += Array("\\n".utf8)
            case 0x0D: bytes += Array("\\r".utf8)
            case 0x09: bytes += Array("\\t".utf8)
            case 0..<0x20:
                let hex = String(byte, radix: 16)
                bytes += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension WireLocation {
    /// The keys of CloudKit Web Services' location dictionary, as a push's `"af"` writes a
    /// location.
    private static let dictionaryKeys = ["latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "course", "speed", "timestamp"]

    /// The location as that dictionary: every component a number, the timestamp in seconds
    /// since 2001-01-01.
    package var dictionary: [String: Any] {
        let values = [latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, course, speed, timestamp.timeIntervalSinceReferenceDate]
        return Dictionary(uniqueKeysWithValues: zip(Self.dictionaryKeys, values.map { $0 as Any }))
    }

    /// The location ``dictionary`` wrote; nil when a key is missing or extra, a value is not
    /// a number, or the location could not be stored (``problem``).
    package init?(dictionary: [String: Any]) {
        guard dictionary.count == Self.dictionaryKeys.count else { return nil }
        var numbers: [Double] = []
        for key in Self.dictionaryKeys {
            switch dictionary[key] {
            case let double as Double: numbers.append(double)
            case let number as NSNumber: numbers.append(number.doubleValue)
            default: return nil
            }
        }
        self.init(
            latitude: numbers[0], longitude: numbers[1], altitude: numbers[2], horizontalAccuracy: numbers[3],
            verticalAccuracy: numbers[4], course: numbers[5], speed: numbers[6],
            timestamp: Date(timeIntervalSinceReferenceDate: numbers[7])
        )
        guard problem == nil else { return nil }
    }
}
