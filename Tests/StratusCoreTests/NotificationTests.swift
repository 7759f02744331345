import Foundation
import StratusCore
import StratusWire
import XCTest
import _StratusTestSupport

/// Notifications: every class and property, the remote-notification dictionary a device
/// receives and back, the 4 KB pruning in CloudKit's per-class order, and notification IDs'
/// archives.
final class NotificationTests: XCTestCase {
    // MARK: Fixtures

    private let noteID = WireRecordID(recordName: "note-1", zoneID: WireZoneID(zoneName: "Notes", ownerName: "__defaultOwner__"))

    /// A notification of `kind` with every field its kind can carry set.
    private func full(_ kind: WireNotification.Kind) -> WireNotification {
        var wire = WireNotification(
            kind: kind, notificationID: "nid-\(kind)", subscriptionID: "sub-\(kind)",
            containerIdentifier: "iCloud.com.example.clowns", subscriptionOwnerUserRecordName: "_owner",
            databaseScope: .private,
            alertBody: "Body", alertLocalizationKey: "ALERT_KEY", alertLocalizationArgs: ["a", "b"],
            title: "Title", titleLocalizationKey: "TITLE_KEY", titleLocalizationArgs: ["t"],
            subtitle: "Sub", subtitleLocalizationKey: "SUB_KEY", subtitleLocalizationArgs: ["s"],
            alertActionLocalizationKey: "ACTION", alertLaunchImage: "launch.png", soundName: "default",
            badge: 7, category: "NOTE", contentAvailable: true, mutableContent: true, collapseID: nil
        )
        switch kind {
        case .query:
            wire.queryReason = .recordUpdated
            wire.recordID = noteID
            let target = WireRecordID(recordName: "folder", zoneID: noteID.zoneID)
            wire.recordFields = [
                "title": .string("Shopping \"list\"\n"), "count": .int64(-3), "ratio": .double(2.5), "whole": .double(2),
                "due": .date(Date(timeIntervalSinceReferenceDate: 123_456.789_012)),
                "folder": .reference(WireReference(recordID: target, action: .deleteSelf)),
            ]
        case .recordZone:
            wire.zoneID = noteID.zoneID
        case .database:
            wire.databaseScope = .shared
        case .readNotification:
            wire = WireNotification(kind: .readNotification, notificationID: "nid-read", containerIdentifier: "iCloud.com.example.clowns")
        }
        return wire
    }

    /// What a dictionary gives back: a notification's wire value, through the public initialiser.
    private func roundTrip(_ dictionary: [AnyHashable: Any]) -> WireNotification? {
        CKNotification(fromRemoteNotificationDictionary: dictionary)?.wire
    }

    // MARK: Classes and properties

    @available(*, deprecated)
    func testAQueryNotificationReadsEveryProperty() throws {
        let notification = try XCTUnwrap(CKNotification.make(full(.query)) as? CKQueryNotification)
        XCTAssertEqual(notification.notificationType, .query)
        XCTAssertEqual(notification.notificationID, CKNotification.ID(value: "nid-query"))
        XCTAssertEqual(notification.subscriptionID, "sub-query")
        XCTAssertEqual(notification.containerIdentifier, "iCloud.com.example.clowns")
        XCTAssertEqual(notification.subscriptionOwnerUserRecordID, CKRecord.ID(recordName: "_owner"))
        XCTAssertFalse(notification.isPruned)
        XCTAssertEqual(notification.queryNotificationReason, .recordUpdated)
        XCTAssertEqual(notification.recordID, CKRecord.ID(recordName: "note-1", zoneID: CKRecordZone.ID(zoneName: "Notes")))
        XCTAssertEqual(notification.databaseScope, .private)
        XCTAssertFalse(notification.isPublicDatabase)
        let fields = try XCTUnwrap(notification.recordFields)
        XCTAssertEqual(fields["title"] as? String, "Shopping \"list\"\n")
        XCTAssertEqual(fields["count"] as? Int, -3)
        XCTAssertEqual(fields["ratio"] as? Double, 2.5)
        XCTAssertEqual(fields["due"] as? Date, Date(timeIntervalSinceReferenceDate: 123_456.789_012))
        let folder = try XCTUnwrap(fields["folder"] as? CKRecord.Reference)
        XCTAssertEqual(folder.recordID.recordName, "folder")
        XCTAssertEqual(folder.action, .deleteSelf)
        XCTAssertEqual(notification.alertBody, "Body")
        XCTAssertEqual(notification.alertLocalizationKey, "ALERT_KEY")
        XCTAssertEqual(notification.alertLocalizationArgs, ["a", "b"])
        XCTAssertEqual(notification.title, "Title")
        XCTAssertEqual(notification.titleLocalizationKey, "TITLE_KEY")
        XCTAssertEqual(notification.titleLocalizationArgs, ["t"])
        XCTAssertEqual(notification.subtitle, "Sub")
        XCTAssertEqual(notification.subtitleLocalizationKey, "SUB_KEY")
        XCTAssertEqual(notification.subtitleLocalizationArgs, ["s"])
        XCTAssertEqual(notification.alertActionLocalizationKey, "ACTION")
        XCTAssertEqual(notification.alertLaunchImage, "launch.png")
        XCTAssertEqual(notification.badge, NSNumber(value: 7))
        XCTAssertEqual(notification.soundName, "default")
        XCTAssertEqual(notification.category, "NOTE")
    }

    @available(*, deprecated)
    func testAPublicQueryNotificationSaysSoThroughBothSpellings() throws {
        var wire = full(.query)
        wire.databaseScope = .public
        let notification = try XCTUnwrap(CKNotification.make(wire) as? CKQueryNotification)
        XCTAssertEqual(notification.databaseScope, .public)
        XCTAssertTrue(notification.isPublicDatabase)
    }

    func testZoneDatabaseAndReadNotificationsHaveTheirClassesAndProperties() throws {
        let zone = try XCTUnwrap(CKNotification.make(full(.recordZone)) as? CKRecordZoneNotification)
        XCTAssertEqual(zone.notificationType, .recordZone)
        XCTAssertEqual(zone.recordZoneID, CKRecordZone.ID(zoneName: "Notes"))
        XCTAssertEqual(zone.databaseScope, .private)
        XCTAssertEqual(zone.subscriptionID, "sub-recordZone")

        let database = try XCTUnwrap(CKNotification.make(full(.database)) as? CKDatabaseNotification)
        XCTAssertEqual(database.notificationType, .database)
        XCTAssertEqual(database.databaseScope, .shared)

        let read = CKNotification.make(full(.readNotification))
        XCTAssertTrue(type(of: read) == CKNotification.self)
        XCTAssertEqual(read.notificationType, .readNotification)
        XCTAssertNil(read.subscriptionID)
        XCTAssertEqual(read.notificationID, CKNotification.ID(value: "nid-read"))
        XCTAssertTrue(read.description.contains("readNotification"), read.description)
    }

    func testAQueryNotificationPrunedPastItsReasonHasNoneOfCloudKitsReasons() throws {
        var wire = full(.query)
        wire.queryReason = nil
        let notification = try XCTUnwrap(CKNotification.make(wire) as? CKQueryNotification)
        XCTAssertEqual(notification.queryNotificationReason.rawValue, 0)
        XCTAssertEqual("\(notification.queryNotificationReason)", "CKQueryNotification.Reason(rawValue: 0)")
        XCTAssertNil(CKNotification.make(WireNotification(kind: .query)).subscriptionOwnerUserRecordID)
    }

    func testTheEnumsHaveCloudKitsRawValuesAndNames() {
        XCTAssertEqual(CKNotification.NotificationType.query.rawValue, 1)
        XCTAssertEqual(CKNotification.NotificationType.recordZone.rawValue, 2)
        XCTAssertEqual(CKNotification.NotificationType.readNotification.rawValue, 3)
        XCTAssertEqual(CKNotification.NotificationType.database.rawValue, 4)
        XCTAssertEqual(CKQueryNotification.Reason.recordCreated.rawValue, 1)
        XCTAssertEqual(CKQueryNotification.Reason.recordUpdated.rawValue, 2)
        XCTAssertEqual(CKQueryNotification.Reason.recordDeleted.rawValue, 3)
        for kind in WireNotification.Kind.allCases {
            XCTAssertEqual(CKNotification.NotificationType(kind).rawValue, kind.rawValue)
            XCTAssertEqual(CKNotification.NotificationType(kind).wireValue, kind)
        }
        for reason in WireNotification.QueryReason.allCases {
            XCTAssertEqual(CKQueryNotification.Reason(reason).wireValue, reason)
        }
        XCTAssertEqual("\(CKNotification.NotificationType.recordZone)", "recordZone")
        XCTAssertEqual("\(CKQueryNotification.Reason.recordDeleted)", "recordDeleted")
        XCTAssertEqual(WireNotification.Kind(WireSubscription.Kind.database), .database)
        XCTAssertEqual(WireNotification.Kind(WireSubscription.Kind.recordZone), .recordZone)
        XCTAssertEqual(WireNotification.Kind(WireSubscription.Kind.query), .query)
    }

    func testANotificationTakesItsAlertFromTheSubscriptionsInfo() {
        let info = WireNotificationInfo(alertBody: "Hi", title: "T", soundName: "ping", desiredKeys: ["x"], shouldBadge: true, shouldSendContentAvailable: true, category: "C")
        let wire = WireNotification(kind: .database, notificationID: "n", subscriptionID: "s", databaseScope: .shared, info: info)
        XCTAssertEqual(wire.alertBody, "Hi")
        XCTAssertEqual(wire.title, "T")
        XCTAssertEqual(wire.soundName, "ping")
        XCTAssertEqual(wire.category, "C")
        XCTAssertTrue(wire.contentAvailable)
        XCTAssertNil(wire.badge, "the badge count is the server's to set")
        XCTAssertNil(wire.recordFields)
    }

    // MARK: The remote-notification dictionary

    func testTheDictionaryHasCloudKitsShape() throws {
        let dictionary = CKNotification.remoteNotificationDictionary(for: full(.query))
        let aps = try XCTUnwrap(dictionary["aps"] as? [String: Any])
        let alert = try XCTUnwrap(aps["alert"] as? [String: Any])
        XCTAssertEqual(alert["body"] as? String, "Body")
        XCTAssertEqual(alert["loc-key"] as? String, "ALERT_KEY")
        XCTAssertEqual(alert["title-loc-args"] as? [String], ["t"])
        XCTAssertEqual(alert["action-loc-key"] as? String, "ACTION")
        XCTAssertEqual(alert["launch-image"] as? String, "launch.png")
        XCTAssertEqual(aps["badge"] as? Int, 7)
        XCTAssertEqual(aps["sound"] as? String, "default")
        XCTAssertEqual(aps["category"] as? String, "NOTE")
        XCTAssertEqual(aps["content-available"] as? Int, 1)
        XCTAssertEqual(aps["mutable-content"] as? Int, 1)
        let ck = try XCTUnwrap(dictionary["ck"] as? [String: Any])
        XCTAssertEqual(ck["nid"] as? String, "nid-query")
        XCTAssertEqual(ck["cid"] as? String, "iCloud.com.example.clowns")
        XCTAssertEqual(ck["ckuserid"] as? String, "_owner")
        XCTAssertNil(ck["p"])
        let query = try XCTUnwrap(ck["qry"] as? [String: Any])
        XCTAssertEqual(query["sid"] as? String, "sub-query")
        XCTAssertEqual(query["dbs"] as? Int, 2)
        XCTAssertEqual(query["fo"] as? Int, 2)
        XCTAssertEqual(query["rid"] as? String, "note-1")
        XCTAssertEqual(query["zid"] as? String, "Notes")
        XCTAssertEqual(query["zoid"] as? String, "__defaultOwner__")
        XCTAssertEqual((query["af"] as? [String: Any])?["title"] as? String, "Shopping \"list\"\n")

        let zone = try XCTUnwrap(CKNotification.remoteNotificationDictionary(for: full(.recordZone))["ck"] as? [String: Any])
        XCTAssertEqual((zone["fet"] as? [String: Any])?["zid"] as? String, "Notes")
        let database = try XCTUnwrap(CKNotification.remoteNotificationDictionary(for: full(.database))["ck"] as? [String: Any])
        XCTAssertEqual((database["met"] as? [String: Any])?["dbs"] as? Int, 3)
        let silent = CKNotification.remoteNotificationDictionary(for: WireNotification(kind: .database, notificationID: "n", subscriptionID: "s"))
        XCTAssertNil(silent["aps"], "a push with nothing for APNs to do has no aps dictionary")
    }

    func testEveryKindRoundTripsThroughTheDictionaryAndThroughJSON() throws {
        for kind in WireNotification.Kind.allCases {
            var wire = full(kind)
            let dictionary = CKNotification.remoteNotificationDictionary(for: wire)
            wire.collapseID = nil
            XCTAssertEqual(roundTrip(dictionary), wire, "\(kind)")
            XCTAssertEqual(CKNotification.make(wire).remoteNotificationDictionary.count, dictionary.count)

            // The same dictionary after APNs' JSON: numbers come back as NSNumber, collections
            // as Foundation's.
            let json = try JSONSerialization.data(withJSONObject: dictionary)
            let decoded = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
            let viaJSON = try XCTUnwrap(roundTrip(decoded), "\(kind)")
            if kind == .query {
                // JSON does not tell 2.0 from 2; CloudKit's numbers read back as NSNumber either way.
                XCTAssertEqual(viaJSON.recordFields?["ratio"], .double(2.5))
                XCTAssertEqual(viaJSON.recordFields?.count, wire.recordFields?.count)
                var comparable = viaJSON
                comparable.recordFields = wire.recordFields
                XCTAssertEqual(comparable, wire)
            } else {
                XCTAssertEqual(viaJSON, wire, "\(kind)")
            }
        }
    }

    func testOwnJSONEncodingMatchesItsSizeAndParsesWithFoundation() throws {
        let dictionary = RemoteNotificationPayload.dictionary(for: full(.query))
        let bytes = RemoteNotificationPayload.jsonBytes(of: dictionary)
        XCTAssertEqual(bytes.count, RemoteNotificationPayload.size(of: full(.query)))
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        XCTAssertEqual(roundTrip(parsed)?.notificationID, "nid-query")
        XCTAssertEqual(RemoteNotificationPayload.jsonBytes(of: ["a": "\u{1}\t\\"] as [String: Any]), Array(#"{"a":"\u0001\t\\"}"#.utf8))
    }

    func testTheDictionaryGivesTheRightSubclass() throws {
        let query = CKNotification.remoteNotificationDictionary(for: full(.query))
        let zone = CKNotification.remoteNotificationDictionary(for: full(.recordZone))
        let database = CKNotification.remoteNotificationDictionary(for: full(.database))
        let read = CKNotification.remoteNotificationDictionary(for: full(.readNotification))
        XCTAssertTrue(CKNotification(fromRemoteNotificationDictionary: query) is CKQueryNotification)
        XCTAssertTrue(CKNotification(fromRemoteNotificationDictionary: zone) is CKRecordZoneNotification)
        XCTAssertTrue(CKNotification(fromRemoteNotificationDictionary: database) is CKDatabaseNotification)
        XCTAssertEqual(CKNotification(fromRemoteNotificationDictionary: read)?.notificationType, .readNotification)
        XCTAssertNotNil(CKQueryNotification(fromRemoteNotificationDictionary: query))
        XCTAssertNil(CKQueryNotification(fromRemoteNotificationDictionary: zone))
        XCTAssertNil(CKDatabaseNotification(fromRemoteNotificationDictionary: query))
        XCTAssertNotNil(CKRecordZoneNotification(fromRemoteNotificationDictionary: zone))
    }

    func testForeignAndMalformedDictionariesGiveNil() {
        let good = CKNotification.remoteNotificationDictionary(for: full(.query))
        var ck = good["ck"] as? [String: Any] ?? [:]
        var query = ck["qry"] as? [String: Any] ?? [:]
        func with(query changes: [String: Any?]) -> [AnyHashable: Any] {
            var body = query
            for (key, value) in changes { body[key] = value }
            var ckCopy = ck
            ckCopy["qry"] = body
            var copy = good
            copy["ck"] = ckCopy
            return copy
        }
        var aps = good["aps"] as? [String: Any] ?? [:]
        aps["badge"] = "seven"
        var badBadge = good
        badBadge["aps"] = aps
        let cases: [(String, [AnyHashable: Any])] = [
            ("empty", [:]),
            ("plain APNs push", ["aps": ["alert": "Hello"]]),
            ("ck not a dictionary", ["ck": "qry"]),
            ("empty ck", ["ck": [String: Any]()]),
            ("two kinds", ["ck": ["qry": query, "met": ["sid": "s"]]]),
            ("kind not a dictionary", ["ck": ["met": [1, 2]]]),
            ("nid a number", ["ck": ["nid": 5, "met": ["sid": "s"]]]),
            ("unknown database", with(query: ["dbs": 9])),
            ("unknown reason", with(query: ["fo": 4])),
            ("reason a string", with(query: ["fo": "1"])),
            ("record without zone", with(query: ["zid": nil, "zoid": nil])),
            ("zone without owner", with(query: ["zoid": nil])),
            ("fields not a dictionary", with(query: ["af": ["a"]])),
            ("bytes in fields", with(query: ["af": ["x": Data([1])]])),
            ("a list in fields", with(query: ["af": ["x": [1, 2]]])),
            ("junk reference", with(query: ["af": ["x": ["rid": "r", "zid": "z"]]])),
            ("infinite date", with(query: ["af": ["x": ["date": Double.infinity]]])),
            ("badge a string", badBadge),
            ("aps not a dictionary", good.merging(["aps": 3]) { $1 }),
            ("alert a number", good.merging(["aps": ["alert": 3]]) { $1 }),
            ("loc-args not strings", good.merging(["aps": ["alert": ["loc-args": [1]]]]) { $1 }),
        ]
        for (label, dictionary) in cases {
            XCTAssertNil(CKNotification(fromRemoteNotificationDictionary: dictionary), label)
        }
        query["fo"] = 3
        ck["qry"] = query
        XCTAssertEqual(roundTrip(good.merging(["ck": ck]) { $1 })?.queryReason, .recordDeleted, "the fixture itself parses")
        XCTAssertEqual(roundTrip(["ck": ["met": ["sid": "s"]], "aps": ["alert": "Hi"]])?.alertBody, "Hi", "a plain-string alert is the body")
    }

    func testRandomJunkNeverCrashes() {
        var generator = SeededGenerator(seed: 0x6E6F7465)
        let junk: [Any] = [
            1, -1, Int64.max, 2.5, Double.nan, "x", "", true, NSNull(), Data([0xFF]), Date(),
            [1, 2], ["a": ["b": ["c": [1, "2", 3.0]]]], String(repeating: "🌩", count: 5_000), NSNumber(value: 1e300),
            [String: Any](), [Any](), ["date": "soon"], ["rid": 1, "zid": 2, "zoid": 3, "act": 4],
            Self.deeplyNested(2_000), NSDictionary(dictionary: ["dbs": 2]), NSArray(array: ["a", 1]),
        ]
        let keys = ["ck", "aps", "qry", "fet", "met", "nid", "cid", "ckuserid", "p", "sid", "dbs", "fo", "rid", "zid", "zoid", "af", "alert", "badge", "sound", "content-available", "body", "loc-args"]
        let seeds = WireNotification.Kind.allCases.map { CKNotification.remoteNotificationDictionary(for: full($0)) }
        var parsed = 0
        for _ in 0..<(300 * stressScale) {
            var dictionary = seeds.randomElement(using: &generator) ?? [:]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let key = keys.randomElement(using: &generator) ?? "ck"
                let value = junk.randomElement(using: &generator) ?? 0
                dictionary = Self.replacing(key, with: value, in: dictionary, generator: &generator)
            }
            if let notification = CKNotification(fromRemoteNotificationDictionary: dictionary) {
                parsed += 1
                // Whatever parsed, builds again and parses to the same values.
                XCTAssertEqual(roundTrip(notification.remoteNotificationDictionary)?.kind, notification.wire.kind)
            }
        }
        XCTAssertLessThan(parsed, 300 * stressScale)
    }

    /// Arrays and dictionaries nested `depth` levels deep.
    private static func deeplyNested(_ depth: Int) -> Any {
        var value: Any = "bottom"
        for level in 0..<depth { value = level.isMultiple(of: 2) ? [value] as [Any] : ["k": value] as [String: Any] }
        return value
    }

    func testFoundationDictionariesParseLikeSwiftOnes() throws {
        for kind in WireNotification.Kind.allCases {
            let dictionary = CKNotification.remoteNotificationDictionary(for: full(kind))
            let bridged = try XCTUnwrap(NSDictionary(dictionary: dictionary) as? [AnyHashable: Any])
            XCTAssertEqual(roundTrip(bridged)?.notificationID, full(kind).notificationID, "\(kind)")
        }
    }

    /// `dictionary` with `key` set to `value` at the top or inside one of its nested dictionaries.
    private static func replacing(_ key: String, with value: Any, in dictionary: [AnyHashable: Any], generator: inout SeededGenerator) -> [AnyHashable: Any] {
        var copy = dictionary
        let nestedKeys = copy.keys.filter { copy[$0] is [String: Any] }
        if Bool.random(using: &generator), let nested = nestedKeys.randomElement(using: &generator), let inner = copy[nested] as? [String: Any] {
            var innerAny: [AnyHashable: Any] = [:]
            for (k, v) in inner { innerAny[k] = v }
            let replaced = replacing(key, with: value, in: innerAny, generator: &generator)
            var back: [String: Any] = [:]
            for (k, v) in replaced { if let k = k as? String { back[k] = v } }
            copy[nested] = back
        } else {
            copy[key] = value
        }
        return copy
    }

    // MARK: Pruning

    /// Every field CloudKit's order names, for each class, as the iOS 17 SDK lists them.
    private let expectedOrders: [WireNotification.Kind: [String]] = [
        .query: [
            "notificationID", "badge", "alertLocalizationKey", "alertLocalizationArgs", "alertBody",
            "alertActionLocalizationKey", "alertLaunchImage", "soundName", "contentAvailable", "desiredKeys",
            "queryNotificationReason", "recordID", "containerIdentifier", "subscriptionOwnerUserRecordID",
            "titleLocalizationKey", "titleLocalizationArgs", "title", "subtitleLocalizationKey",
            "subtitleLocalizationArgs", "subtitle",
        ],
        .recordZone: [
            "notificationID", "badge", "alertLocalizationKey", "alertLocalizationArgs", "alertBody",
            "alertActionLocalizationKey", "alertLaunchImage", "soundName", "contentAvailable", "recordZoneID",
            "containerIdentifier", "subscriptionOwnerUserRecordID", "titleLocalizationKey", "titleLocalizationArgs",
            "title", "subtitleLocalizationKey", "subtitleLocalizationArgs", "subtitle",
        ],
        .database: [
            "notificationID", "badge", "alertLocalizationKey", "alertLocalizationArgs", "alertBody",
            "alertActionLocalizationKey", "alertLaunchImage", "soundName", "contentAvailable",
            "containerIdentifier", "subscriptionOwnerUserRecordID", "titleLocalizationKey", "titleLocalizationArgs",
            "title", "subtitleLocalizationKey", "subtitleLocalizationArgs", "subtitle",
        ],
    ]

    func testThePruningOrderIsCloudKitsForEachClass() {
        for (kind, order) in expectedOrders {
            XCTAssertEqual(WireNotification.pruningOrder(for: kind).map(\.rawValue), order, "\(kind)")
        }
    }

    /// A notification of `kind` whose fields are each about `size` bytes.
    private func large(_ kind: WireNotification.Kind, size: Int) -> WireNotification {
        var wire = full(kind)
        let text = String(repeating: "x", count: size)
        wire.notificationID = text
        wire.containerIdentifier = text
        wire.subscriptionOwnerUserRecordName = text
        wire.alertBody = text
        wire.alertLocalizationKey = text
        wire.alertLocalizationArgs = [text]
        wire.title = text
        wire.titleLocalizationKey = text
        wire.titleLocalizationArgs = [text]
        wire.subtitle = text
        wire.subtitleLocalizationKey = text
        wire.subtitleLocalizationArgs = [text]
        wire.alertActionLocalizationKey = text
        wire.alertLaunchImage = text
        wire.soundName = text
        if kind == .query {
            wire.recordID = WireRecordID(recordName: text, zoneID: noteID.zoneID)
            wire.recordFields = ["a": .string(text)]
        }
        if kind == .recordZone { wire.zoneID = WireZoneID(zoneName: text) }
        return wire
    }

    func testAPayloadJustOverTheLimitDropsOnlyTheLeastImportantField() throws {
        for kind in [WireNotification.Kind.query, .recordZone, .database] {
            var wire = full(kind)
            // Grow the subtitle (least important in every class) until the payload is just over 4 KB.
            wire.subtitle = ""
            let base = RemoteNotificationPayload.size(of: wire)
            wire.subtitle = String(repeating: "s", count: RemoteNotificationPayload.maximumSize - base + 1)
            XCTAssertEqual(RemoteNotificationPayload.size(of: wire), RemoteNotificationPayload.maximumSize + 1)

            let pushed = try XCTUnwrap(roundTrip(CKNotification.remoteNotificationDictionary(for: wire)), "\(kind)")
            var expected = wire
            expected.subtitle = nil
            expected.isPruned = true
            XCTAssertEqual(pushed, expected, "\(kind): only the subtitle goes")
            XCTAssertTrue(CKNotification.pushed(wire).isPruned)

            wire.subtitle?.removeLast()
            XCTAssertEqual(RemoteNotificationPayload.size(of: wire), RemoteNotificationPayload.maximumSize)
            XCTAssertEqual(roundTrip(CKNotification.remoteNotificationDictionary(for: wire)), wire, "\(kind): exactly 4 KB fits")
            XCTAssertFalse(CKNotification.pushed(wire).isPruned)
        }
    }

    func testLargePayloadsKeepAPrefixOfCloudKitsOrder() throws {
        for kind in [WireNotification.Kind.query, .recordZone, .database] {
            let order = WireNotification.pruningOrder(for: kind)
            for size in [250, 600, 1_200, 5_000] {
                let wire = large(kind, size: size)
                let dictionary = CKNotification.remoteNotificationDictionary(for: wire)
                let pushed = try XCTUnwrap(roundTrip(dictionary), "\(kind) \(size)")
                XCTAssertTrue(pushed.isPruned, "\(kind) \(size)")
                XCTAssertLessThanOrEqual(RemoteNotificationPayload.size(of: pushed), RemoteNotificationPayload.maximumSize)
                let kept = order.map { pushed.has($0) }
                XCTAssertEqual(kept, kept.sorted { $0 && !$1 }, "\(kind) \(size): kept fields are the most important ones, \(kept)")
                // The field after the last kept one would not have fitted.
                if let lastKept = kept.lastIndex(of: true), lastKept + 1 < order.count {
                    let restored = order[lastKept + 1]
                    var oneMore = wire
                    for field in order where field != restored && !pushed.has(field) { oneMore.drop(field) }
                    XCTAssertGreaterThan(RemoteNotificationPayload.size(of: oneMore), RemoteNotificationPayload.maximumSize, "\(kind) \(size): \(restored) would not fit")
                }
                // What is never dropped stays.
                XCTAssertEqual(pushed.subscriptionID, wire.subscriptionID)
                XCTAssertEqual(pushed.databaseScope, wire.databaseScope)
                XCTAssertEqual(pushed.category, wire.category)
                XCTAssertEqual(pushed.mutableContent, wire.mutableContent)
            }
        }
    }

    /// CloudKit's header ranks desiredKeys above the record ID and the reason (its web
    /// documentation says desiredKeys go first); Stratus follows the header.
    func testAQueryPushDropsItsRecordIDAndReasonBeforeItsDesiredKeys() throws {
        var wire = full(.query)
        wire.recordFields = ["text": .string("")]
        let order = WireNotification.pruningOrder(for: .query)
        let desiredKeys = try XCTUnwrap(order.firstIndex(of: .desiredKeys))
        var kept = wire
        for field in order[(desiredKeys + 1)...] { kept.drop(field) }
        let room = RemoteNotificationPayload.maximumSize - RemoteNotificationPayload.size(of: kept)
        wire.recordFields = ["text": .string(String(repeating: "f", count: room))]

        let pushed = try XCTUnwrap(roundTrip(CKNotification.remoteNotificationDictionary(for: wire)))
        XCTAssertEqual(pushed.recordFields, wire.recordFields)
        XCTAssertNil(pushed.recordID)
        XCTAssertNil(pushed.queryReason)
        XCTAssertNil(pushed.containerIdentifier)
        XCTAssertNil(pushed.title)
        XCTAssertEqual(pushed.notificationID, "nid-query")
        XCTAssertEqual(pushed.alertBody, "Body")
        XCTAssertTrue(pushed.isPruned)
        let notification = try XCTUnwrap(CKNotification(fromRemoteNotificationDictionary: CKNotification.remoteNotificationDictionary(for: wire)) as? CKQueryNotification)
        XCTAssertTrue(notification.isPruned)
        XCTAssertNil(notification.recordID)
        XCTAssertEqual(notification.recordFields?["text"] as? String, String(repeating: "f", count: room))

        // One byte more, and the desired keys go too.
        wire.recordFields = ["text": .string(String(repeating: "f", count: room + 1))]
        let smaller = try XCTUnwrap(roundTrip(CKNotification.remoteNotificationDictionary(for: wire)))
        XCTAssertNil(smaller.recordFields)
        XCTAssertTrue(smaller.contentAvailable)
    }

    func testAPushThatCannotFitKeepsWhatCloudKitNeverDrops() throws {
        var wire = full(.database)
        wire.subscriptionID = String(repeating: "s", count: 5_000)
        let pushed = try XCTUnwrap(roundTrip(CKNotification.remoteNotificationDictionary(for: wire)))
        XCTAssertTrue(pushed.isPruned)
        XCTAssertEqual(pushed.subscriptionID, wire.subscriptionID)
        XCTAssertNil(pushed.notificationID)
        XCTAssertNil(pushed.badge)
        XCTAssertFalse(pushed.contentAvailable)
    }

    // MARK: Notification IDs

    func testNotificationIDsCompareCopyAndArchiveByValue() throws {
        let id = CKNotification.ID(value: "8d8b8a2e-0000-4000-8000-000000000001")
        let same = CKNotification.ID(value: "8d8b8a2e-0000-4000-8000-000000000001")
        XCTAssertEqual(id, same)
        XCTAssertEqual(id.hash, same.hash)
        XCTAssertNotEqual(id, CKNotification.ID(value: "other"))
        XCTAssertNotEqual(CKNotification.ID(value: "Zon\u{E9}"), CKNotification.ID(value: "Zone\u{301}"), "compared byte for byte")
        XCTAssertEqual(id.copy() as? CKNotificationID, id)
        XCTAssertEqual(Set([id, same]).count, 1)
        XCTAssertTrue(CKNotificationID.supportsSecureCoding)

        let data = try NSKeyedArchiver.archivedData(withRootObject: id, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(NSKeyedUnarchiver.unarchivedObject(ofClass: CKNotificationID.self, from: data))
        XCTAssertEqual(decoded, id)
        XCTAssertEqual(CKNotificationID.classFallbacksForKeyedArchiver(), ["CKNotificationID"])
    }

    private func decodeID(fromBlob blob: Data) throws -> CKNotificationID? {
        let decoder = try NSKeyedUnarchiver(forReadingFrom: archive(withBlob: blob))
        decoder.requiresSecureCoding = true
        decoder.decodingFailurePolicy = .setErrorAndReturn
        return CKNotificationID(coder: decoder)
    }

    func testEveryFlippedByteAndTruncationOfANotificationIDGivesNil() throws {
        let blob = try blob(of: CKNotification.ID(value: "nid-1"))
        XCTAssertEqual(try decodeID(fromBlob: blob), CKNotification.ID(value: "nid-1"))
        for index in blob.indices {
            var damaged = blob
            damaged[index] ^= 0x5A
            XCTAssertNil(try decodeID(fromBlob: damaged), "flipped at \(index)")
        }
        for length in 0..<blob.count {
            XCTAssertNil(try decodeID(fromBlob: blob.prefix(length)), "cut to \(length)")
        }
        // Another Stratus object's blob is not a notification ID.
        let token = CKServerChangeToken(bytes: Data([1, 2, 3]))
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        token.encode(with: coder)
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        decoder.decodingFailurePolicy = .setErrorAndReturn
        XCTAssertNil(CKNotificationID(coder: decoder))
    }
}
