import Stratus
import XCTest

// Notification code as CloudKit's documentation writes it, with `import Stratus` only. The
// payloads are what a device receives from CloudKit, as `userInfo` dictionaries.

final class NotificationSnippetsTests: XCTestCase {
    /// A query notification's `userInfo`, as CloudKit's push delivers it.
    private let queryUserInfo: [AnyHashable: Any] = [
        "aps": ["alert": ["body": "A big party was planned"], "sound": "default", "content-available": 1] as [String: Any],
        "ck": [
            "ce": 2, "cid": "iCloud.com.example.clowns", "nid": "8d8b8a2e-0000-4000-8000-000000000001",
            "ckuserid": "_0123456789abcdef0123456789abcdef",
            "qry": ["dbs": 2, "fo": 1, "rid": "party-1", "sid": "big-parties", "zid": "_defaultZone", "zoid": "_defaultOwner",
                    "af": ["title": "Clown convention", "attendees": 120] as [String: Any]] as [String: Any],
        ] as [String: Any],
    ]

    private let zoneUserInfo: [AnyHashable: Any] = [
        "aps": ["content-available": 1],
        "ck": ["ce": 2, "cid": "iCloud.com.example.clowns", "nid": "n-2",
               "fet": ["dbs": 2, "sid": "notes-changed", "zid": "Notes", "zoid": "_defaultOwner"] as [String: Any]] as [String: Any],
    ]

    private let databaseUserInfo: [AnyHashable: Any] = [
        "aps": ["content-available": 1],
        "ck": ["cid": "iCloud.com.example.clowns", "nid": "n-3", "met": ["dbs": 3, "sid": "shared-changes"] as [String: Any]] as [String: Any],
    ]

    func testTheDocumentationsQueryNotificationHandlerCompilesAndRuns() throws {
        let userInfo = queryUserInfo
        var handled: CKRecord.ID?
        if let notification = CKNotification(fromRemoteNotificationDictionary: userInfo),
           notification.notificationType == .query,
           let queryNotification = notification as? CKQueryNotification {
            handled = queryNotification.recordID
            XCTAssertEqual(queryNotification.queryNotificationReason, .recordCreated)
            XCTAssertEqual(queryNotification.databaseScope, .private)
            XCTAssertEqual(queryNotification.recordFields?["title"] as? String, "Clown convention")
            XCTAssertEqual(queryNotification.recordFields?["attendees"] as? Int, 120)
            XCTAssertEqual(queryNotification.subscriptionID, "big-parties")
            XCTAssertEqual(queryNotification.containerIdentifier, "iCloud.com.example.clowns")
            XCTAssertEqual(queryNotification.subscriptionOwnerUserRecordID?.recordName, "_0123456789abcdef0123456789abcdef")
            XCTAssertNotNil(queryNotification.notificationID)
            XCTAssertFalse(queryNotification.isPruned)
        }
        XCTAssertEqual(handled?.recordName, "party-1")
        XCTAssertEqual(handled?.zoneID.zoneName, CKRecordZone.ID.defaultZoneName)
    }

    func testASwitchOverTheNotificationTypeCompilesWithUnknownDefault() {
        var seen: [String] = []
        for userInfo in [queryUserInfo, zoneUserInfo, databaseUserInfo] {
            guard let notification = CKNotification(fromRemoteNotificationDictionary: userInfo) else { continue }
            switch notification.notificationType {
            case .query:
                seen.append("query")
            case .recordZone:
                let zoneNotification = notification as? CKRecordZoneNotification
                seen.append("zone \(zoneNotification?.recordZoneID?.zoneName ?? "?")")
            case .database:
                let databaseNotification = notification as? CKDatabaseNotification
                seen.append("database \(databaseNotification?.databaseScope == .shared)")
            case .readNotification:
                seen.append("read")
            @unknown default:
                seen.append("unknown")
            }
        }
        XCTAssertEqual(seen, ["query", "zone Notes", "database true"])
    }

    func testTheObjectiveCEraSpellingAndStringKeyedDictionariesCompile() {
        let make = CKNotification.init(fromRemoteNotificationDictionary:)
        XCTAssertTrue(make(zoneUserInfo) is CKRecordZoneNotification)
        let stringKeyed: [String: Any] = ["ck": ["nid": "n", "met": ["sid": "s"]]]
        XCTAssertEqual(CKNotification(fromRemoteNotificationDictionary: stringKeyed)?.notificationType, .database)
        XCTAssertNil(CKNotification(fromRemoteNotificationDictionary: ["aps": ["alert": "Not CloudKit's"]]))
    }

    func testAQueryReasonSwitchCompilesWithUnknownDefault() throws {
        let notification = try XCTUnwrap(CKNotification(fromRemoteNotificationDictionary: queryUserInfo) as? CKQueryNotification)
        let reason: String
        switch notification.queryNotificationReason {
        case .recordCreated: reason = "created"
        case .recordUpdated: reason = "updated"
        case .recordDeleted: reason = "deleted"
        @unknown default: reason = "unknown"
        }
        XCTAssertEqual(reason, "created")
    }

    @available(*, deprecated)
    func testTheDeprecatedAPSPropertiesStillRead() throws {
        let notification = try XCTUnwrap(CKNotification(fromRemoteNotificationDictionary: queryUserInfo) as? CKQueryNotification)
        XCTAssertEqual(notification.alertBody, "A big party was planned")
        XCTAssertEqual(notification.soundName, "default")
        XCTAssertNil(notification.badge)
        XCTAssertFalse(notification.isPublicDatabase)
    }

    func testANotificationIDArchivesAndComesBack() throws {
        let notification = try XCTUnwrap(CKNotification(fromRemoteNotificationDictionary: queryUserInfo))
        let id = try XCTUnwrap(notification.notificationID)
        let data = try NSKeyedArchiver.archivedData(withRootObject: id, requiringSecureCoding: true)
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKNotification.ID.self, from: data)
        XCTAssertEqual(decoded, id)
    }

    /// The app-delegate flow of the CloudKit talks, fed by Stratus's pushes: a zone subscription
    /// with silent pushes, and a handler that turns each push's `userInfo` into a notification
    /// and fetches the zone's changes.
    func testAnAppDelegateHandlerFedByRealPushesFetchesTheZone() async throws {
        let server = CloudServer()
        let phone = server.container(identifier: "iCloud.com.example.clowns", account: "john")
        let laptop = server.container(identifier: "iCloud.com.example.clowns", account: "john")
        let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)
        _ = try await phone.privateCloudDatabase.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        let subscription = CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "notes-changed")
        let info = CKSubscription.NotificationInfo()
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        _ = try await laptop.privateCloudDatabase.modifySubscriptions(saving: [subscription], deleting: [])

        let fetched = expectation(description: "the laptop fetched the zone after the push")
        laptop.registerForPushNotifications { push in
            // What `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` does.
            let userInfo = push.remoteNotificationDictionary
            guard let notification = CKNotification(fromRemoteNotificationDictionary: userInfo),
                  notification.notificationType == .recordZone,
                  let zoneNotification = notification as? CKRecordZoneNotification,
                  let changedZone = zoneNotification.recordZoneID else { return }
            Task {
                let changes = try await laptop.privateCloudDatabase.recordZoneChanges(inZoneWith: changedZone, since: nil)
                XCTAssertEqual(changes.modificationResultsByID.count, 1)
                fetched.fulfill()
            }
        }
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "props", zoneID: zoneID))
        note["text"] = "red noses"
        _ = try await phone.privateCloudDatabase.save(note)
        await fulfillment(of: [fetched], timeout: 10)
    }
}
