import Foundation
@testable import StratusCore
import StratusWire
import XCTest

/// Committed archives of the types that became archivable in parts 6 and 7 (subscriptions,
/// their notification info, notification IDs, user identities), so caches
/// written today still decode after the format moves on. Write them again only on purpose:
/// run this test once with `STRATUS_WRITE_LATER_GOLDEN=<path to Tests/StratusCoreTests/Fixtures>`.
final class LaterGoldenArchiveTests: XCTestCase {
    private static func objects() -> [(name: String, object: NSObject & NSSecureCoding)] {
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "A big party was planned"
        info.desiredKeys = ["title"]
        info.shouldBadge = true
        let query = CKQuerySubscription(recordType: "Party", predicate: NSPredicate(format: "attendees > %@", 10), subscriptionID: "big-parties", options: [.firesOnRecordCreation, .firesOnRecordUpdate])
        query.notificationInfo = info
        let zone = CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "Notes"), subscriptionID: "notes")
        let silent = CKSubscription.NotificationInfo()
        silent.shouldSendContentAvailable = true
        zone.notificationInfo = silent
        let identity = CKUserIdentity(wire: WireUserIdentity(
            userRecordName: "_0123456789abcdef0123456789abcdef",
            lookupInfo: WireUserLookupInfo(emailAddress: "ann@example.com"),
            nameComponents: WireNameComponents(givenName: "Ann", familyName: "Clown")
        ))
        return [
            ("query-subscription", query),
            ("zone-subscription", zone),
            ("database-subscription", CKDatabaseSubscription(subscriptionID: "everything")),
            ("notification-info", info),
            ("notification-id", CKNotificationID(value: "note-42")),
            ("lookup-info", CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")),
            ("user-identity", identity),
        ]
    }

    private func fixture(_ name: String) throws -> Data {
        let url = try XCTUnwrap(Bundle.module.url(forResource: name, withExtension: "archive", subdirectory: "Fixtures"), "missing fixture \(name)")
        return try Data(contentsOf: url)
    }

    private func decode<T: NSObject & NSSecureCoding>(_ name: String, as type: T.Type) throws -> T {
        try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: type, from: fixture(name)), "fixture \(name) did not decode")
    }

    func testTheLaterGoldenArchivesDecode() throws {
        if let directory = ProcessInfo.processInfo.environment["STRATUS_WRITE_LATER_GOLDEN"] {
            for (name, object) in Self.objects() {
                try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
                    .write(to: URL(fileURLWithPath: directory).appendingPathComponent("later-\(name).archive"))
            }
        }
        let query = try decode("later-query-subscription", as: CKQuerySubscription.self)
        XCTAssertEqual(query.subscriptionID, "big-parties")
        XCTAssertEqual(query.recordType, "Party")
        XCTAssertEqual(query.querySubscriptionOptions, [.firesOnRecordCreation, .firesOnRecordUpdate])
        XCTAssertEqual(query.notificationInfo?.alertBody, "A big party was planned")
        XCTAssertEqual(query.notificationInfo?.desiredKeys, ["title"])
        XCTAssertEqual(query.notificationInfo?.shouldBadge, true)

        let zone = try decode("later-zone-subscription", as: CKRecordZoneSubscription.self)
        XCTAssertEqual(zone.zoneID, CKRecordZone.ID(zoneName: "Notes"))
        XCTAssertEqual(zone.notificationInfo?.shouldSendContentAvailable, true)
        XCTAssertEqual(try decode("later-database-subscription", as: CKDatabaseSubscription.self).subscriptionID, "everything")
        XCTAssertEqual(try decode("later-notification-info", as: CKSubscription.NotificationInfo.self).alertBody, "A big party was planned")
        XCTAssertEqual(try decode("later-notification-id", as: CKNotificationID.self), CKNotificationID(value: "note-42"))

        XCTAssertEqual(try decode("later-lookup-info", as: CKUserIdentity.LookupInfo.self).emailAddress, "ann@example.com")
        let identity = try decode("later-user-identity", as: CKUserIdentity.self)
        XCTAssertEqual(identity.userRecordID?.recordName, "_0123456789abcdef0123456789abcdef")
        XCTAssertEqual(identity.nameComponents?.givenName, "Ann")
    }
}
