import Foundation
import Stratus
import XCTest

/// Review of part 7: defects found in subscription firing, push delivery and the notification
/// collection. Each test fails against the code as reviewed.
final class ReviewPart7FindingsTests: ServerTestCase {
    private func silentInfo() -> CKSubscription.NotificationInfo {
        let info = CKSubscription.NotificationInfo()
        info.shouldSendContentAvailable = true
        return info
    }

    private func collection(of device: CKContainer) async throws -> [WireNotification] {
        try await server.notificationChanges(WireNotificationChangesRequest(context: rawContext(device.privateCloudDatabase))).notifications
    }

    /// CloudServer+Firing.swift documents that "a database subscription fires once per request
    /// that ... created or deleted a custom zone", and `remove(_:)` (purge / encrypted-data
    /// reset) honours it by firing once for all its zones. But `modifyZones` fires once per
    /// zone: one request that creates (or deletes) three zones makes three notifications and
    /// three pushes.
    func testReviewPart7DatabaseSubscriptionFiresOncePerModifyZonesRequest() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        let database = phone.privateCloudDatabase
        let subscription = CKDatabaseSubscription(subscriptionID: "db")
        subscription.notificationInfo = silentInfo()
        try await database.save(subscription)

        let zones = ["A", "B", "C"].map { CKRecordZone(zoneName: $0) }
        _ = try await database.modifyRecordZones(saving: zones, deleting: [])
        await server.deliverPendingPushes()
        let afterCreation = try await collection(of: laptop)
        XCTAssertEqual(afterCreation.count, 1, "one request that creates three zones is one database change")
        XCTAssertEqual(inbox.notifications.count, 1)

        _ = try await database.modifyRecordZones(saving: [], deleting: zones.map(\.zoneID))
        await server.deliverPendingPushes()
        let afterDeletion = try await collection(of: laptop)
        XCTAssertEqual(afterDeletion.count, 2, "one request that deletes three zones is one database change")
    }
}
