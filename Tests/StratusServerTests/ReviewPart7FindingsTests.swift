import Foundation
import Stratus
import XCTest

/// Review of part 7: defects found in subscription firing, push delivery and the notification
/// collection. Each test fails against the code as reviewed (the last three crashed the
/// process).
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

    /// A push handler that holds the last reference to another device released that device
    /// inside the push lock when it was replaced or dropped; the device, going away, took the
    /// lock again and the process died ("Recursive call to lock Mutex").
    func testReviewPart7ReleasingAHandlerThatHoldsTheLastReferenceToADeviceDoesNotDeadlock() async throws {
        var phone: CKContainer? = device("john")
        var laptop: CKContainer? = device("john")
        laptop?.registerForPushNotifications { [phone] _ in _ = phone }
        phone = nil
        laptop?.unregisterForPushNotifications()

        var tablet: CKContainer? = device("john")
        laptop?.registerForPushNotifications { [tablet] _ in _ = tablet }
        tablet = nil
        laptop?.registerForPushNotifications { _ in }             // replaces the handler

        var watch: CKContainer? = device("john")
        laptop?.registerForPushNotifications { [watch] _ in _ = watch }
        watch = nil
        laptop = nil                                              // the laptop itself goes away
        await server.deliverPendingPushes()
        XCTAssertTrue(server.pushLog.isEmpty)
    }

    /// `limit + slack` overflowed for the largest limits.
    func testReviewPart7TheLargestHistoryLimitsDoNotOverflow() async throws {
        server.notificationHistoryLimit = .max
        server.changeHistoryLimit = .max
        let phone = device("john"), laptop = device("john")
        let database = phone.privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Notes")
        _ = try await database.save(zone)
        let subscription = CKRecordZoneSubscription(zoneID: zone.zoneID, subscriptionID: "notes")
        subscription.notificationInfo = silentInfo()
        try await database.save(subscription)
        let note = try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n", zoneID: zone.zoneID)))
        try await database.deleteRecord(withID: note.recordID)
        let stored = try await collection(of: laptop)
        XCTAssertEqual(stored.count, 2)
    }

    /// `dropsNext += count` overflowed.
    func testReviewPart7DroppingMorePushesThanAnIntHoldsSaturates() async throws {
        server.dropNextPushes(.max)
        server.dropNextPushes(1)
        let phone = device("john"), laptop = device("john")
        _ = PushInbox(laptop)
        let subscription = CKQuerySubscription(recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "all")
        subscription.notificationInfo = silentInfo()
        try await phone.publicCloudDatabase.save(subscription)
        _ = try await phone.publicCloudDatabase.save(CKRecord(recordType: "Note"))
        await server.deliverPendingPushes()
        XCTAssertEqual(server.pushLog(for: laptop).map(\.fate), [.dropped])
    }
}
