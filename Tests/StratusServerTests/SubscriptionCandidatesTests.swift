import _StratusTestSupport
import Stratus
import XCTest

/// Query subscriptions that narrow by an equality look only at the changes holding their
/// value, and fire exactly as if every change had been evaluated.
final class SubscriptionCandidatesTests: ServerTestCase {
    private func subscription(_ id: String, _ format: String, _ arguments: Any...) -> CKQuerySubscription {
        let subscription = CKQuerySubscription(
            recordType: "Photo", predicate: NSPredicate(format: format, argumentArray: arguments), subscriptionID: id,
            options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]
        )
        let info = CKSubscription.NotificationInfo()
        info.alertBody = id
        subscription.notificationInfo = info
        return subscription
    }

    private func photo(_ name: String, party: String? = nil, size: Int, title: String = "") -> CKRecord {
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name))
        // The saved reference deletes itself with its party; the subscription's has no action.
        if let party { record["party"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: party), action: .deleteSelf) }
        record["size"] = size
        record["title"] = title
        return record
    }

    func testNarrowedSubscriptionsFireForEveryMatchingChangeOfABatchAndNoOther() async throws {
        let john = device("john"), laptop = device("john"), alice = device("alice")
        let inbox = PushInbox(laptop)
        let partyA = CKRecord.ID(recordName: "a")
        for subscription in [
            subscription("1-party-a", "party == %@", partyA),
            subscription("2-size-3-clowns", "size == 3 AND title BEGINSWITH %@", "C"),
            subscription("3-size-3", "size == %@", NSNumber(value: 3.0)),
            subscription("4-big", "size > 5"),
        ] {
            try await john.publicCloudDatabase.save(subscription)
        }
        for name in ["p1", "p2", "p3"] { try await john.publicCloudDatabase.save(subscription("0-\(name)", "recordID == %@", CKRecord.ID(recordName: name))) }
        let database = alice.publicCloudDatabase
        let party = CKRecord(recordType: "Party", recordID: partyA)
        _ = try await database.modifyRecords(saving: [
            party,
            photo("p1", party: "a", size: 3, title: "Clowns"),
            photo("p2", size: 3, title: "Bob"),
            photo("p3", size: 10, title: "Clowns"),
        ], deleting: [], atomically: false)
        let p2 = try await database.record(for: CKRecord.ID(recordName: "p2"))
        p2["size"] = 4
        _ = try await database.modifyRecords(saving: [p2], deleting: [CKRecord.ID(recordName: "p1")], atomically: false)
        await server.deliverPendingPushes()

        let fired = inbox.queryNotifications.map { "\($0.subscriptionID ?? "?") \($0.recordID?.recordName ?? "?") \($0.queryNotificationReason.rawValue)" }
        let created = CKQueryNotification.Reason.recordCreated.rawValue, updated = CKQueryNotification.Reason.recordUpdated.rawValue
        let deleted = CKQueryNotification.Reason.recordDeleted.rawValue
        XCTAssertEqual(fired, [
            // First request: subscriptions in the order of their IDs, each in the order of the changes.
            "0-p1 p1 \(created)", "0-p2 p2 \(created)", "0-p3 p3 \(created)",
            "1-party-a p1 \(created)", "2-size-3-clowns p1 \(created)", "3-size-3 p1 \(created)", "3-size-3 p2 \(created)",
            "4-big p3 \(created)",
            // Second request: p2 no longer matches size 3 (silent); p1 matched before its deletion.
            "0-p1 p1 \(deleted)", "0-p2 p2 \(updated)",
            "1-party-a p1 \(deleted)", "2-size-3-clowns p1 \(deleted)", "3-size-3 p1 \(deleted)",
        ])
    }
}
