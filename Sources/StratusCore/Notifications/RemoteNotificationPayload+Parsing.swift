import Foundation
import StratusWire

/// Reading a remote-notification dictionary back: the other half of
/// ``RemoteNotificationPayload``, here because it reads numbers the way record values do.
extension RemoteNotificationPayload {
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
            if dictionary["latitude"] != nil { return WireLocation(dictionary: dictionary).map { .location($0) } }
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
