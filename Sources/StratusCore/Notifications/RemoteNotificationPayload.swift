import Foundation
import StratusWire

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
/// reference `{"rid", "zid", "zoid", "act"}` (Stratus's choice: public sources do not show
/// CloudKit's). The collapse ID is an APNs header, not part of the dictionary. `"ce"` (the
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

    // MARK: Parsing

    /// The notification a remote-notification dictionary describes; nil for a dictionary that
    /// is not CloudKit's (no `"ck"` dictionary) or is malformed: a known key with a value of the
    /// wrong type, an unknown database scope or reason, a record or zone ID with parts missing,
    /// or more than one of `"qry"`, `"fet"` and `"met"`. Unknown keys are ignored.
    package static func notification(from dictionary: [AnyHashable: Any]) -> WireNotification? {
        guard let ck = dictionary["ck"] as? [String: Any] else { return nil }
        let kinds: [(String, WireNotification.Kind)] = [("qry", .query), ("fet", .recordZone), ("met", .database)]
        let present = kinds.filter { ck[$0.0] != nil }
        guard present.count <= 1 else { return nil }
        let kind = present.first?.1 ?? .readNotification
        var wire = WireNotification(kind: kind)

        do {
            wire.notificationID = try string(ck["nid"])
            wire.containerIdentifier = try string(ck["cid"])
            wire.subscriptionOwnerUserRecordName = try string(ck["ckuserid"])
            if let pruned = ck["p"] {
                guard integer(pruned) != nil else { return nil }
                wire.isPruned = true
            }
            if let key = present.first?.0 {
                guard let body = ck[key] as? [String: Any] else { return nil }
                guard try read(body, kind: kind, into: &wire) else { return nil }
            } else if wire.notificationID == nil && !wire.isPruned {
                return nil  // `{"ck": {}}` and the like say nothing CloudKit would send.
            }
            if let aps = dictionary["aps"] {
                guard let aps = aps as? [String: Any], try read(aps: aps, into: &wire) else { return nil }
            }
        } catch {
            return nil
        }
        return wire
    }

    /// A value of the wrong type.
    private struct Malformed: Error {}

    /// `value` as a string; nil when absent; throws when it is something else.
    private static func string(_ value: Any?) throws(Malformed) -> String? {
        guard let value else { return nil }
        guard let string = value as? String else { throw Malformed() }
        return string
    }

    /// `value` as an array of strings; nil when absent; throws when it is something else.
    private static func strings(_ value: Any?) throws(Malformed) -> [String]? {
        guard let value else { return nil }
        guard let array = value as? [Any] else { throw Malformed() }
        var strings: [String] = []
        for element in array {
            guard let string = element as? String else { throw Malformed() }
            strings.append(string)
        }
        return strings
    }

    /// `value` as an integer, from a Swift integer or an `NSNumber` holding a whole number.
    private static func integer(_ value: Any) -> Int? {
        switch value {
        case let integer as Int: return integer
        case let integer as Int64: return Int(exactly: integer)
        case let number as NSNumber:
            guard case .success(.int64(let integer)) = FieldValueConversion.fieldValue(from: number, encrypted: false)
            else { return nil }
            return Int(exactly: integer)
        default: return nil
        }
    }

    /// `value` as an optional integer; throws when present and not an integer.
    private static func optionalInteger(_ value: Any?) throws(Malformed) -> Int? {
        guard let value else { return nil }
        guard let integer = integer(value) else { throw Malformed() }
        return integer
    }

    /// Reads the kind's dictionary (`"qry"`, `"fet"` or `"met"`); false when malformed.
    private static func read(_ body: [String: Any], kind: WireNotification.Kind, into wire: inout WireNotification) throws(Malformed) -> Bool {
        wire.subscriptionID = try string(body["sid"])
        if let scope = try optionalInteger(body["dbs"]) {
            guard let scope = WireDatabaseScope(rawValue: scope) else { return false }
            wire.databaseScope = scope
        }
        let zoneName = try string(body["zid"])
        let ownerName = try string(body["zoid"])
        let zoneID: WireZoneID?
        switch (zoneName, ownerName) {
        case (let zoneName?, let ownerName?): zoneID = WireZoneID(zoneName: zoneName, ownerName: ownerName)
        case (nil, nil): zoneID = nil
        default: return false
        }
        switch kind {
        case .query:
            if let reason = try optionalInteger(body["fo"]) {
                guard let reason = WireNotification.QueryReason(rawValue: reason) else { return false }
                wire.queryReason = reason
            }
            switch (try string(body["rid"]), zoneID) {
            case (let recordName?, let zoneID?): wire.recordID = WireRecordID(recordName: recordName, zoneID: zoneID)
            case (nil, nil): break
            default: return false
            }
            if let fields = body["af"] {
                guard let fields = fields as? [String: Any] else { return false }
                var values: [String: WireFieldValue] = [:]
                for (key, object) in fields {
                    guard let value = fieldValue(object) else { return false }
                    values[key] = value
                }
                wire.recordFields = values
            }
        case .recordZone:
            wire.zoneID = zoneID
        case .database, .readNotification:
            break
        }
        return true
    }

    /// A value of `"af"`; nil when it is none of the shapes ``unprunedDictionary(for:)`` writes.
    private static func fieldValue(_ object: Any) -> WireFieldValue? {
        switch object {
        case let string as String:
            return .string(string)
        case let dictionary as [String: Any]:
            if let seconds = dictionary["date"] {
                let interval: Double
                switch seconds {
                case let double as Double: interval = double
                case let number as NSNumber: interval = number.doubleValue
                default: return nil
                }
                guard dictionary.count == 1, interval.isFinite else { return nil }
                return .date(Date(timeIntervalSinceReferenceDate: interval))
            }
            guard dictionary.count == 4,
                  let recordName = dictionary["rid"] as? String, let zoneName = dictionary["zid"] as? String,
                  let ownerName = dictionary["zoid"] as? String, let actionValue = dictionary["act"],
                  let rawAction = integer(actionValue), let action = WireReference.Action(rawValue: rawAction)
            else { return nil }
            let zoneID = WireZoneID(zoneName: zoneName, ownerName: ownerName)
            return .reference(WireReference(recordID: WireRecordID(recordName: recordName, zoneID: zoneID), action: action))
        case is Int, is Int64, is Double, is NSNumber:
            guard case .success(let value) = FieldValueConversion.fieldValue(from: object, encrypted: false),
                  WireNotification.isAllowedRecordFieldValue(value) else { return nil }
            return value
        default:
            return nil
        }
    }

    /// Reads the `"aps"` dictionary; false when malformed.
    private static func read(aps: [String: Any], into wire: inout WireNotification) throws(Malformed) -> Bool {
        switch aps["alert"] {
        case nil: break
        case let body as String: wire.alertBody = body
        case let alert as [String: Any]:
            wire.alertBody = try string(alert["body"])
            wire.alertLocalizationKey = try string(alert["loc-key"])
            wire.alertLocalizationArgs = try strings(alert["loc-args"])
            wire.title = try string(alert["title"])
            wire.titleLocalizationKey = try string(alert["title-loc-key"])
            wire.titleLocalizationArgs = try strings(alert["title-loc-args"])
            wire.subtitle = try string(alert["subtitle"])
            wire.subtitleLocalizationKey = try string(alert["subtitle-loc-key"])
            wire.subtitleLocalizationArgs = try strings(alert["subtitle-loc-args"])
            wire.alertActionLocalizationKey = try string(alert["action-loc-key"])
            wire.alertLaunchImage = try string(alert["launch-image"])
        default: return false
        }
        wire.soundName = try string(aps["sound"])
        wire.badge = try optionalInteger(aps["badge"])
        wire.category = try string(aps["category"])
        wire.contentAvailable = try (optionalInteger(aps["content-available"]) ?? 0) != 0
        wire.mutableContent = try (optionalInteger(aps["mutable-content"]) ?? 0) != 0
        return true
    }
}
