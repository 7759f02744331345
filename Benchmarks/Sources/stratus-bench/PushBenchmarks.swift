import Foundation
import Stratus
import Synchronization

/// What subscriptions cost the write path: saves one per request in a zone watched by a zone
/// subscription and a query subscription, each firing into the notification collection and
/// pushing to two other devices (waited for), next to the same saves with no subscriptions.
enum PushBenchmarks {
    static let count = 10_000

    static func run() async throws {
        let plain = try await fastest(of: 3) { try await saves(subscribed: false) }
        let subscribed = try await fastest(of: 3) { try await saves(subscribed: true) }
        report("\(count) saves, one per request, firing a zone and a query subscription that push to 2 devices, against no subscriptions", stratus: subscribed, baseline: plain)
    }

    private static func saves(subscribed: Bool) async throws {
        let server = CloudServer(clock: ManualClock())
        let phone = server.container(identifier: "iCloud.com.example.bench", account: "push")
        let database = phone.privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Notes")
        _ = try await database.save(CKRecordZone(zoneID: zoneID))
        let received = Atomic(0)
        let devices = (0..<2).map { _ in server.container(identifier: "iCloud.com.example.bench", account: "push") }
        if subscribed {
            let zone = CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "zone")
            zone.notificationInfo = CKSubscription.NotificationInfo(shouldSendContentAvailable: true)
            let query = CKQuerySubscription(recordType: "Note", predicate: NSPredicate(format: "order >= %d", 0), subscriptionID: "query")
            query.notificationInfo = CKSubscription.NotificationInfo(alertBody: "A note", desiredKeys: ["title"])
            _ = try await database.modifySubscriptions(saving: [zone, query], deleting: [])
            for device in devices { device.registerForPushNotifications { _ in received.add(1, ordering: .relaxed) } }
        }
        for index in 0..<count {
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "note-\(index)", zoneID: zoneID))
            note["title"] = "Note \(index)"
            note["order"] = index
            _ = try await database.save(note)
        }
        await server.deliverPendingPushes()
        let expected = subscribed ? 2 * 2 * count : 0
        guard received.load(ordering: .relaxed) == expected else {
            throw Miscount(what: "the pushes received", counted: received.load(ordering: .relaxed), expected: expected)
        }
        blackHole(devices)
    }
}
