import Foundation
@testable import StratusWire
import XCTest

/// The JSON of notifications, the notification collection and pushes (Stratus extensions:
/// CloudKit Web Services has no endpoint for them): a notification is the remote-notification
/// dictionary a device receives (`aps`, `ck` with `qry`/`fet`/`met`), with typed `af` values and
/// a few extension keys so that every property comes back exactly; anything else is
/// `invalidArguments` naming the key.
final class WireNotificationJSONTests: XCTestCase {
    private let zone = WireZoneID(zoneName: "Party", ownerName: "_abc")
    private let context = WireRequestContext(containerIdentifier: "iCloud.com.example.clowns", database: .private, deviceID: "device-1", sessionToken: "session-9")

    private func roundTrip<Value: Codable & Equatable>(_ value: Value, file: StaticString = #filePath, line: UInt = #line) throws {
        let back = try WireJSON.decode(Value.self, from: try WireJSON.encode(value))
        XCTAssertEqual(back, value, file: file, line: line)
    }

    private func queryNotification() -> WireNotification {
        WireNotification(
            kind: .query, notificationID: "n-1", subscriptionID: "parties", containerIdentifier: "iCloud.com.example.clowns",
            subscriptionOwnerUserRecordName: "_abc", databaseScope: .public, queryReason: .recordUpdated,
            recordID: WireRecordID(recordName: "party", zoneID: zone),
            alertBody: "Party time", alertLocalizationKey: "PARTY", alertLocalizationArgs: ["Clowns", ""],
            title: "Parties", titleLocalizationKey: "PARTIES", titleLocalizationArgs: [],
            subtitle: "Tonight", subtitleLocalizationKey: "TONIGHT", subtitleLocalizationArgs: ["8 pm"],
            alertActionLocalizationKey: "OPEN", alertLaunchImage: "launch/party.png", soundName: "honk.caf",
            badge: 0, category: "PARTY", contentAvailable: true, mutableContent: true
        )
    }

    /// Every kind, with and without its fields, and fields its kind has no key for.
    private func everyNotification() -> [WireNotification] {
        var withFields = queryNotification()
        withFields.recordFields = [
            "title": .string("Clowns"), "count": .int64(-3), "price": .double(2), "ratio": .double(0.1),
            "start": .date(Date(timeIntervalSinceReferenceDate: 7.5e8 + 1.234_567e-3)),
            "host": .reference(WireReference(recordID: WireRecordID(recordName: "bob", zoneID: zone), action: .deleteSelf)),
            "where": .location(WireLocation(latitude: 48.85, longitude: 2.35, timestamp: Date(timeIntervalSince1970: 1_700_000_000.25))),
        ]
        withFields.collapseID = "Clowns"
        var pruned = queryNotification()
        pruned.drop(.notificationID)
        pruned.drop(.alertBody)
        var strays = WireNotification(kind: .database, subscriptionID: "db", queryReason: .recordCreated, recordID: WireRecordID(recordName: "r"), zoneID: zone, recordFields: [:])
        strays.collapseID = ""
        return [
            queryNotification(), withFields, pruned, strays,
            WireNotification(kind: .query),
            WireNotification(kind: .query, subscriptionID: "s", databaseScope: .shared, zoneID: zone),
            WireNotification(kind: .recordZone, notificationID: "n-2", subscriptionID: "zone", databaseScope: .private, zoneID: zone),
            WireNotification(kind: .recordZone, recordID: WireRecordID(recordName: "r", zoneID: zone)),
            WireNotification(kind: .recordZone),
            WireNotification(kind: .database, notificationID: "n-3", subscriptionID: "db", containerIdentifier: "iCloud.x", databaseScope: .shared, alertBody: "changed"),
            WireNotification(kind: .readNotification, notificationID: "n-4", containerIdentifier: "iCloud.com.example.clowns"),
            WireNotification(kind: .readNotification, databaseScope: .public),
            WireNotification(kind: .readNotification, subscriptionID: "s", queryReason: .recordDeleted, recordID: WireRecordID(recordName: "r"), zoneID: zone, recordFields: ["n": .int64(1)]),
            WireNotification(kind: .readNotification),
        ]
    }

    // MARK: - Round trips

    func testEveryKindOfNotificationComesBackExactly() throws {
        for notification in everyNotification() {
            try roundTrip(notification)
        }
    }

    func testANotificationIsTheRemoteNotificationDictionaryADeviceReceives() throws {
        var compared = 0
        for notification in everyNotification() where notification.recordFields == nil && notification.collapseID == nil {
            let stray = notification.kind != .query && notification.recordID != nil || notification.kind != .recordZone && notification.zoneID != nil
                || notification.kind == .readNotification && (notification.subscriptionID != nil || notification.databaseScope != .private || notification.queryReason != nil)
            guard !stray else { continue }
            let payload = String(decoding: RemoteNotificationPayload.jsonBytes(of: RemoteNotificationPayload.unprunedDictionary(for: notification)), as: UTF8.self)
            XCTAssertEqual(try json(notification), payload, "one mapping for \(notification.kind)")
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 7)
    }

    // MARK: - Golden JSON

    func testAQueryNotificationIsTheAPNsStylePayload() throws {
        var notification = queryNotification()
        notification.recordFields = ["title": .string("Clowns"), "price": .double(2)]
        notification.collapseID = "Clowns"
        notification.isPruned = true
        XCTAssertEqual(try json(notification), #"{"apns-collapse-id":"Clowns","#
            + #""aps":{"alert":{"action-loc-key":"OPEN","body":"Party time","launch-image":"launch/party.png","loc-args":["Clowns",""],"loc-key":"PARTY","#
            + #""subtitle":"Tonight","subtitle-loc-args":["8 pm"],"subtitle-loc-key":"TONIGHT","title":"Parties","title-loc-args":[],"title-loc-key":"PARTIES"},"#
            + #""badge":0,"category":"PARTY","content-available":1,"mutable-content":1,"sound":"honk.caf"},"#
            + #""ck":{"cid":"iCloud.com.example.clowns","ckuserid":"_abc","nid":"n-1","p":1,"#
            + #""qry":{"af":{"price":{"type":"DOUBLE","value":2},"title":{"type":"STRING","value":"Clowns"}},"dbs":1,"fo":2,"rid":"party","sid":"parties","zid":"Party","zoid":"_abc"}}}"#)
    }

    func testZoneDatabaseAndReadNotificationsHaveTheirBodies() throws {
        XCTAssertEqual(try json(WireNotification(kind: .recordZone, notificationID: "n", subscriptionID: "z", zoneID: zone)),
                       #"{"ck":{"fet":{"dbs":2,"sid":"z","zid":"Party","zoid":"_abc"},"nid":"n"}}"#)
        XCTAssertEqual(try json(WireNotification(kind: .database, subscriptionID: "d", databaseScope: .shared)), #"{"ck":{"met":{"dbs":3,"sid":"d"}}}"#)
        XCTAssertEqual(try json(WireNotification(kind: .readNotification, notificationID: "n", containerIdentifier: "iCloud.x")), #"{"ck":{"cid":"iCloud.x","nid":"n"}}"#)
        XCTAssertEqual(try json(WireNotification(kind: .readNotification, databaseScope: .public)), #"{"ck":{"read":{"dbs":1}}}"#)
        XCTAssertEqual(try json(WireNotification(kind: .database, recordID: WireRecordID(recordName: "r", zoneID: zone))),
                       #"{"ck":{"met":{"dbs":2,"recordID":{"recordName":"r","zoneID":{"ownerRecordName":"_abc","zoneName":"Party"}}}}}"#)
    }

    func testNotificationRequestsAreStratusBodiesWithoutTheirContext() throws {
        let changes = WireNotificationChangesRequest(context: context, sinceToken: [1, 2, 3], resultsLimit: 10)
        let changesText = try json(changes)
        XCTAssertEqual(changesText, #"{"resultsLimit":10,"syncToken":"AQID"}"#)
        let changesBack = try WireJSON.decode(WireNotificationChangesRequest.self, from: Data(changesText.utf8), context: context)
        XCTAssertEqual(changesBack.sinceToken, [1, 2, 3])
        XCTAssertEqual(changesBack.resultsLimit, 10)
        XCTAssertEqual(changesBack.context, context)
        let first = try WireJSON.decode(WireNotificationChangesRequest.self, from: try WireJSON.encode(WireNotificationChangesRequest(context: context)), context: context)
        XCTAssertNil(first.sinceToken)
        XCTAssertEqual(first.resultsLimit, 0)
        XCTAssertEqual(try json(WireNotificationChangesRequest(context: context)), "{}")

        let markRead = WireMarkNotificationsReadRequest(context: context, ids: ["n-1", "n-2"])
        let markReadText = try json(markRead)
        XCTAssertEqual(markReadText, #"{"notifications":[{"notificationID":"n-1"},{"notificationID":"n-2"}]}"#)
        XCTAssertEqual(try WireJSON.decode(WireMarkNotificationsReadRequest.self, from: Data(markReadText.utf8), context: context).ids, ["n-1", "n-2"])

        let badge = WireModifyBadgeRequest(context: context, badgeValue: 7)
        XCTAssertEqual(try json(badge), #"{"badgeValue":7}"#)
        let badgeBack = try WireJSON.decode(WireModifyBadgeRequest.self, from: try WireJSON.encode(badge), context: context)
        XCTAssertEqual(badgeBack.badgeValue, 7)
        XCTAssertEqual(badgeBack.context, context)

        for text in [changesText, markReadText, try json(badge)] {
            XCTAssertFalse(text.contains("device-1") || text.contains("session-9") || text.contains("iCloud.com"), text)
        }
    }

    func testNotificationAnswersComeBackExactly() throws {
        let changes = WireNotificationChangesResponse(notifications: everyNotification(), token: Array(0...255), moreComing: true)
        let back = try WireJSON.decode(WireNotificationChangesResponse.self, from: try WireJSON.encode(changes))
        XCTAssertEqual(back.notifications, changes.notifications)
        XCTAssertEqual(back.token, changes.token)
        XCTAssertTrue(back.moreComing)
        XCTAssertEqual(try json(WireNotificationChangesResponse(notifications: [], token: [7], moreComing: false)), #"{"moreComing":false,"notifications":[],"syncToken":"Bw=="}"#)

        let markRead = WireMarkNotificationsReadResponse(results: [
            WireItemResult(id: "n-1", result: .success(())),
            WireItemResult(id: "n-9", result: .failure(WireError(.unknownItem, "no notification 'n-9'"))),
        ])
        let text = try json(markRead)
        XCTAssertEqual(text, #"{"notifications":[{"notificationID":"n-1","read":true},{"ckErrorCode":11,"notificationID":"n-9","reason":"no notification 'n-9'","serverErrorCode":"NOT_FOUND"}]}"#)
        let markReadBack = try WireJSON.decode(WireMarkNotificationsReadResponse.self, from: Data(text.utf8))
        XCTAssertEqual(markReadBack.results.map(\.id), ["n-1", "n-9"])
        XCTAssertEqual(markReadBack.results.map { $0.result.map { _ in true } }, markRead.results.map { $0.result.map { _ in true } })
    }

    func testPushPollsAndDeliveriesComeBackExactly() throws {
        let poll = WirePushPollRequest(context: context, acknowledging: 41)
        XCTAssertEqual(try json(poll), #"{"acknowledging":41}"#)
        XCTAssertEqual(try WireJSON.decode(WirePushPollRequest.self, from: try WireJSON.encode(poll), context: context), poll)
        let firstPoll = WirePushPollRequest(context: context)
        XCTAssertEqual(try json(firstPoll), "{}")
        XCTAssertEqual(try WireJSON.decode(WirePushPollRequest.self, from: Data("{}".utf8), context: context), firstPoll)

        for notification in everyNotification() {
            let response = WirePushPollResponse(delivery: WirePushDelivery(id: 42, notification: notification))
            try roundTrip(response)
        }
        let delivery = WirePushDelivery(id: 42, notification: WireNotification(kind: .database, subscriptionID: "d"))
        XCTAssertEqual(try json(WirePushPollResponse(delivery: delivery)), #"{"delivery":{"notification":{"ck":{"met":{"dbs":2,"sid":"d"}}},"pushID":42}}"#)
        XCTAssertEqual(try json(WirePushPollResponse(delivery: nil)), "{}")
        try roundTrip(WirePushPollResponse(delivery: nil))
    }

    // MARK: - Hand-written input

    func testAPushPayloadAsCloudKitWritesItDecodes() throws {
        let text = #"""
        {"aps": {"alert": "Party time", "badge": 3, "sound": "default", "content-available": 1},
         "ck": {"ce": 2, "cid": "iCloud.com.example.clowns", "nid": "8c2b", "ckuserid": "_abc",
                "qry": {"dbs": 2, "fo": 1, "rid": "party", "sid": "parties", "zid": "_defaultZone", "zoid": "_defaultOwner"}}}
        """#
        let notification = try WireJSON.decode(WireNotification.self, from: Data(text.utf8))
        XCTAssertEqual(notification, WireNotification(
            kind: .query, notificationID: "8c2b", subscriptionID: "parties", containerIdentifier: "iCloud.com.example.clowns",
            subscriptionOwnerUserRecordName: "_abc", databaseScope: .private, queryReason: .recordCreated,
            recordID: WireRecordID(recordName: "party", zoneID: WireZoneID(zoneName: "_defaultZone", ownerName: "_defaultOwner")),
            alertBody: "Party time", soundName: "default", badge: 3, contentAvailable: true
        ))
        let zone = try WireJSON.decode(WireNotification.self, from: Data(#"{"ck":{"nid":"x","fet":{"dbs":3,"sid":"z","zid":"Party","zoid":"_abc"}}}"#.utf8))
        XCTAssertEqual(zone, WireNotification(kind: .recordZone, notificationID: "x", subscriptionID: "z", databaseScope: .shared, zoneID: self.zone))
        let database = try WireJSON.decode(WireNotification.self, from: Data(#"{"ck":{"met":{"dbs":1,"sid":"d"}},"aps":{"content-available":1}}"#.utf8))
        XCTAssertEqual(database, WireNotification(kind: .database, subscriptionID: "d", databaseScope: .public, contentAvailable: true))
    }

    // MARK: - Malformed input

    func testMangledNotificationBodiesDecodeOrAreInvalidArgumentsNeverACrash() throws {
        let notifications = everyNotification()
        assertMangledCopiesDecodeOrAreInvalid(WireNotificationChangesResponse.self, try json(WireNotificationChangesResponse(notifications: Array(notifications.prefix(4)), token: [1, 2, 3], moreComing: true)))
        assertMangledCopiesDecodeOrAreInvalid(WirePushPollResponse.self, try json(WirePushPollResponse(delivery: WirePushDelivery(id: 3, notification: notifications[1]))))
    }

    func testMalformedNotificationsAreInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireNotification.self, #"{"aps":{}}"#), naming: "ck")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"qry":{},"met":{}}}"#), naming: "ck")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"met":{"dbs":7}}}"#), naming: "ck.met.dbs")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"met":{"dbs":"private"}}}"#), naming: "ck.met.dbs")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"qry":{"fo":0}}}"#), naming: "ck.qry.fo")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"qry":{"rid":"r","zid":"Party"}}}"#), naming: "ck.qry.zoid")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"fet":{"zoid":"_abc"}}}"#), naming: "ck.fet.zid")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"qry":{"af":{"n":{"value":1,"type":"BOOLEAN"}}}}}"#), naming: "ck.qry.af.n.type")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"qry":{"af":[]}}}"#), naming: "ck.qry.af")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"nid":5}}"#), naming: "ck.nid")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{},"aps":{"badge":"three"}}"#), naming: "aps.badge")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{},"aps":{"badge":1e30}}"#), naming: "aps.badge")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{},"aps":{"badge":99999999999999999999}}"#), naming: "aps.badge")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{},"aps":{"alert":7}}"#), naming: "aps.alert")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{},"aps":{"alert":{"loc-args":"x"}}}"#), naming: "aps.alert.loc-args")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{},"aps":{"content-available":true}}"#), naming: "aps.content-available")
        assertInvalid(decodeError(WireNotification.self, #"{"ck":{"p":"yes"}}"#), naming: "ck.p")
        let deep = String(repeating: "{\"ck\":", count: 10_000) + "{}" + String(repeating: "}", count: 10_000)
        XCTAssertEqual(decodeError(WireNotification.self, deep)?.code, .invalidArguments)
        let deepFields = #"{"ck":{"qry":{"af":{"n":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}}}}"
        XCTAssertEqual(decodeError(WireNotification.self, deepFields)?.code, .invalidArguments)
    }

    func testMalformedNotificationRequestsAreInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireNotificationChangesRequest.self, #"{"syncToken":"%%%"}"#, context: context), naming: "syncToken")
        assertInvalid(decodeError(WireNotificationChangesRequest.self, #"{"resultsLimit":1e40}"#, context: context), naming: "resultsLimit")
        assertInvalid(decodeError(WireNotificationChangesResponse.self, #"{"notifications":[],"moreComing":true}"#), naming: "syncToken")
        assertInvalid(decodeError(WireNotificationChangesResponse.self, #"{"syncToken":"AQID","moreComing":true}"#), naming: "notifications")
        assertInvalid(decodeError(WireNotificationChangesResponse.self, #"{"notifications":[{"ck":{"met":{"dbs":9}}}],"syncToken":"AQID"}"#), naming: "notifications[0].ck.met.dbs")
        assertInvalid(decodeError(WireNotificationChangesResponse.self, #"{"notifications":[],"syncToken":"AQID","moreComing":"no"}"#), naming: "moreComing")
        assertInvalid(decodeError(WireMarkNotificationsReadRequest.self, #"{"notifications":[{"notificationID":3}]}"#, context: context), naming: "notifications[0].notificationID")
        assertInvalid(decodeError(WireMarkNotificationsReadResponse.self, #"{"notifications":[{"read":true}]}"#), naming: "notifications[0].notificationID")
        assertInvalid(decodeError(WireModifyBadgeRequest.self, #"{}"#, context: context), naming: "badgeValue")
        assertInvalid(decodeError(WireModifyBadgeRequest.self, #"{"badgeValue":1.5}"#, context: context), naming: "badgeValue")
        assertInvalid(decodeError(WireModifyBadgeRequest.self, #"{"badgeValue":-99999999999999999999}"#, context: context), naming: "badgeValue")
        assertInvalid(decodeError(WirePushPollRequest.self, #"{"acknowledging":"41"}"#, context: context), naming: "acknowledging")
        assertInvalid(decodeError(WirePushPollResponse.self, #"{"delivery":{"notification":{"ck":{}}}}"#), naming: "delivery.pushID")
        assertInvalid(decodeError(WirePushPollResponse.self, #"{"delivery":{"pushID":1e300,"notification":{"ck":{}}}}"#), naming: "delivery.pushID")
        assertInvalid(decodeError(WirePushPollResponse.self, #"{"delivery":{"pushID":1}}"#), naming: "delivery.notification")
        XCTAssertEqual(decodeError(WireModifyBadgeRequest.self, #"{"badgeValue":1}"#)?.code, .invalidArguments, "a request decodes only with its context")
        XCTAssertEqual(decodeError(WirePushPollRequest.self, "{}")?.code, .invalidArguments, "a request decodes only with its context")
    }
}
