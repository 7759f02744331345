import Stratus
import XCTest

// Subscription code as CloudKit's documentation and the talks write it, with `import Stratus`
// only.

final class SubscriptionSnippetsTests: XCTestCase {
    func testTheCurrentSubscriptionAPICompilesAndRuns() async throws {
        let server = CloudServer(clock: ManualClock())
        let container = server.container(identifier: "iCloud.com.example.clowns", account: "john")
        let database = container.privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Notes")
        try await database.save(zone)

        // A query subscription, as the documentation makes one.
        let predicate = NSPredicate(format: "attendees > %@", NSNumber(value: 10))
        let subscription = CKQuerySubscription(recordType: "Party", predicate: predicate, subscriptionID: "big-parties", options: [.firesOnRecordCreation, .firesOnRecordUpdate])
        let notification = CKSubscription.NotificationInfo()
        notification.alertBody = "A big party was planned"
        notification.soundName = "default"
        notification.desiredKeys = ["title"]
        subscription.notificationInfo = notification
        try await database.save(subscription)

        // A zone subscription and a database subscription with silent pushes.
        let zoneSubscription = CKRecordZoneSubscription(zoneID: zone.zoneID, subscriptionID: "notes-changed")
        let silent = CKSubscription.NotificationInfo(shouldSendContentAvailable: true)
        zoneSubscription.notificationInfo = silent
        let databaseSubscription = CKDatabaseSubscription(subscriptionID: "private-changes")
        databaseSubscription.notificationInfo = silent
        let operation = CKModifySubscriptionsOperation(subscriptionsToSave: [zoneSubscription, databaseSubscription], subscriptionIDsToDelete: nil)
        operation.qualityOfService = .utility
        let saved = expectation(description: "saved")
        operation.modifySubscriptionsResultBlock = { result in
            if case .failure(let error) = result { XCTFail("\(error)") }
            saved.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [saved], timeout: 10)

        // Checking what exists, as sync code does at launch.
        let fetch = CKFetchSubscriptionsOperation.fetchAllSubscriptionsOperation()
        var ids: [CKSubscription.ID] = []
        let fetched = expectation(description: "fetched")
        fetch.perSubscriptionResultBlock = { subscriptionID, result in
            if case .success = result { ids.append(subscriptionID) }
        }
        fetch.fetchSubscriptionsResultBlock = { _ in fetched.fulfill() }
        database.add(fetch)
        await fulfillment(of: [fetched], timeout: 10)
        XCTAssertEqual(ids, ["big-parties", "notes-changed", "private-changes"])

        let existing = try await database.allSubscriptions()
        for case let query as CKQuerySubscription in existing {
            XCTAssertEqual(query.recordType, "Party")
            XCTAssertTrue(query.querySubscriptionOptions.contains(.firesOnRecordCreation))
        }
        let results = try await database.subscriptions(for: ["notes-changed", "gone"])
        if case .failure(let error as CKError) = results["gone"] {
            XCTAssertEqual(error.code, .unknownItem)
        } else {
            XCTFail("expected unknownItem")
        }
        let (_, deleteResults) = try await database.modifySubscriptions(saving: [], deleting: ["notes-changed"])
        XCTAssertNotNil(try? deleteResults["notes-changed"]?.get())
        try await database.deleteSubscription(withID: "private-changes")
        let remaining = try await database.subscription(for: "big-parties")
        XCTAssertEqual(remaining.subscriptionType, .query)
    }

    @available(*, deprecated)
    func testTheTalksSubscriptionCodeCompilesAndRuns() throws {
        let server = CloudServer(clock: ManualClock())
        let publicDatabase = server.container(identifier: "iCloud.com.example.clowns", account: "john").publicCloudDatabase

        // WWDC 2014 "Advanced CloudKit": subscribe to new parties near the user.
        let predicate = NSPredicate(format: "attendees > %@", NSNumber(value: 10))
        let subscription = CKSubscription(recordType: "Party", predicate: predicate, options: .firesOnRecordCreation)
        let notificationInfo = CKNotificationInfo()
        notificationInfo.alertLocalizationKey = "NEW_PARTY_ALERT_KEY"
        notificationInfo.shouldBadge = true
        subscription.notificationInfo = notificationInfo
        let saved = expectation(description: "saved")
        publicDatabase.save(subscription) { subscription, error in
            XCTAssertNil(error)
            XCTAssertTrue(subscription is CKQuerySubscription)
            saved.fulfill()
        }

        let operation = CKModifySubscriptionsOperation(subscriptionsToSave: [CKSubscription(recordType: "Clown", predicate: NSPredicate(value: true), subscriptionID: "clowns", options: [.firesOnRecordCreation, .firesOnRecordDeletion])], subscriptionIDsToDelete: [])
        operation.subscriptionsToSave?.forEach { $0.notificationInfo = notificationInfo }
        let modified = expectation(description: "modified")
        operation.modifySubscriptionsCompletionBlock = { saved, deleted, error in
            XCTAssertEqual(saved?.map(\.subscriptionID), ["clowns"])
            XCTAssertEqual(deleted, [])
            XCTAssertNil(error)
            modified.fulfill()
        }
        publicDatabase.add(operation)

        let fetch = CKFetchSubscriptionsOperation(subscriptionIDs: ["clowns", "nobody"])
        fetch.addDependency(operation)
        let fetched = expectation(description: "fetched")
        fetch.fetchSubscriptionCompletionBlock = { subscriptionsByID, error in
            XCTAssertNotNil(subscriptionsByID?["clowns"])
            let partial = (error as? CKError)?.partialErrorsByItemID
            XCTAssertEqual((partial?["nobody"] as? CKError)?.code, .unknownItem)
            fetched.fulfill()
        }
        publicDatabase.add(fetch)
        wait(for: [saved, modified, fetched], timeout: 10)
    }
}
