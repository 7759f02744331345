import Stratus
import XCTest

// An app delegate's push handler, as apps in the Swift 5 language mode write it: it must build
// without warnings there too.

final class NotificationSwift5SnippetsTests: XCTestCase {
    private func application(didReceiveRemoteNotification userInfo: [AnyHashable: Any]) -> CKRecordZone.ID? {
        guard let notification = CKNotification(fromRemoteNotificationDictionary: userInfo) else { return nil }
        switch notification.notificationType {
        case .recordZone:
            return (notification as? CKRecordZoneNotification)?.recordZoneID
        case .query, .database, .readNotification:
            return nil
        @unknown default:
            return nil
        }
    }

    func testAPushHandlerBuildsAndRunsInSwift5Mode() {
        let userInfo: [AnyHashable: Any] = [
            "aps": ["content-available": 1],
            "ck": ["nid": "n", "fet": ["dbs": 2, "sid": "notes", "zid": "Notes", "zoid": "_defaultOwner"]],
        ]
        XCTAssertEqual(application(didReceiveRemoteNotification: userInfo)?.zoneName, "Notes")
        XCTAssertNil(application(didReceiveRemoteNotification: ["aps": ["alert": "Hi"]]))
    }
}
