import _StratusTestSupport
import Foundation
import Stratus
import XCTest

/// On random histories of changes by three devices of one account, with pushes delivered,
/// held, coalesced, dropped, and devices going offline and back: the notification collection
/// gives each device every notification exactly once (and one read entry for each notification
/// any device marked read), and a device that reads the collection and fetches the zone's
/// changes when told to ends with the server's content.
final class NotificationHistoryTests: ServerTestCase {
    private let zoneID = CKRecordZone.ID(zoneName: "Notes")

    /// What one device knows.
    private final class Device {
        let container: CKContainer
        let inbox: PushInbox
        var collectionToken: [UInt8]?
        /// For each notification ID, the kinds of entries read, in order.
        var entries: [String: [WireNotification.Kind]] = [:]
        var zoneToken: CKServerChangeToken?
        var records: [String: String] = [:]
        /// Pushes handled when the device last fetched the zone.
        var pushesSeen = 0
        var isOffline = false

        init(_ container: CKContainer) {
            self.container = container
            inbox = PushInbox(container)
        }
    }

    private func readCollection(_ device: Device, using generator: inout SeededGenerator) async throws {
        var more = true
        while more {
            let response = try await server.notificationChanges(WireNotificationChangesRequest(
                context: rawContext(device.container.privateCloudDatabase),
                sinceToken: device.collectionToken,
                resultsLimit: Int.random(in: 1...3, using: &generator)
            ))
            for notification in response.notifications {
                guard let id = notification.notificationID else { return XCTFail("a collection entry without an ID") }
                device.entries[id, default: []].append(notification.kind)
            }
            device.collectionToken = response.token
            more = response.moreComing
        }
    }

    private func fetchZone(_ device: Device) async throws {
        var more = true
        while more {
            let batch = try await device.container.privateCloudDatabase.recordZoneChanges(inZoneWith: zoneID, since: device.zoneToken)
            for (recordID, result) in batch.modificationResultsByID {
                device.records[recordID.recordName] = try result.get().record["text"] as? String
            }
            for deletion in batch.deletions { device.records[deletion.recordID.recordName] = nil }
            device.zoneToken = batch.changeToken
            more = batch.moreComing
        }
        device.pushesSeen = device.inbox.notifications.count
    }

    private func serverContent(_ database: CKDatabase) async throws -> [String: String] {
        var texts: [String: String] = [:]
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
        for (recordID, result) in try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 1_000).matchResults {
            texts[recordID.recordName] = try result.get()["text"] as? String
        }
        return texts
    }

    func testEveryDeviceReadsEveryNotificationOnceAndEndsWithTheServersContent() async throws {
        let seed = ProcessInfo.processInfo.environment["STRATUS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))
        var generator = SeededGenerator(seed: seed)
        let devices = [device("john"), device("john"), device("john")].map(Device.init)
        let phone = devices[0]
        let database = phone.container.privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneID: zoneID))
        let first = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "first", zoneID: zoneID))
        first["text"] = "first"
        _ = try await database.save(first)
        let zoneSubscription = CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "notes")
        zoneSubscription.notificationInfo = CKSubscription.NotificationInfo(shouldSendContentAvailable: true)
        let querySubscription = CKQuerySubscription(recordType: "Note", predicate: NSPredicate(format: "text BEGINSWITH %@", "urgent"), subscriptionID: "urgent")
        let loud = CKSubscription.NotificationInfo()
        loud.alertBody = "Urgent note"
        querySubscription.notificationInfo = loud
        _ = try await database.modifySubscriptions(saving: [zoneSubscription, querySubscription], deleting: [])

        var markedRead: Set<String> = []
        var counter = 0
        for round in 0..<(80 * stressScale) {
            let online = devices.filter { !$0.isOffline }
            let writer = online[Int.random(in: 0..<online.count, using: &generator)]
            let names = Array(try await serverContent(writer.container.privateCloudDatabase).keys).sorted()
            let text = Bool.random(using: &generator) ? "urgent \(round)" : "plain \(round)"
            switch Int.random(in: 0..<6, using: &generator) {
            case 0 where !names.isEmpty:
                let name = names[Int.random(in: 0..<names.count, using: &generator)]
                _ = try await writer.container.privateCloudDatabase.deleteRecord(withID: CKRecord.ID(recordName: name, zoneID: zoneID))
            case 1...2 where !names.isEmpty:
                let edit = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: names[Int.random(in: 0..<names.count, using: &generator)], zoneID: zoneID))
                edit["text"] = text
                _ = try await writer.container.privateCloudDatabase.modifyRecords(saving: [edit], deleting: [], savePolicy: .changedKeys)
            default:
                let batch = (0..<Int.random(in: 1...3, using: &generator)).map { _ -> CKRecord in
                    counter += 1
                    let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "note-\(counter)", zoneID: zoneID))
                    record["text"] = text
                    return record
                }
                _ = try await writer.container.privateCloudDatabase.modifyRecords(saving: batch, deleting: [])
            }

            switch Int.random(in: 0..<8, using: &generator) {
            case 0: server.dropNextPushes(Int.random(in: 1...2, using: &generator))
            case 1: server.coalescesPushes.toggle()
            case 2: server.holdsPushes.toggle()
            case 3:
                let device = devices[Int.random(in: 1..<devices.count, using: &generator)]   // the phone stays online to write
                device.isOffline.toggle()
                server.setOffline(device.isOffline, for: device.container)
            case 4: await server.deliverPendingPushes()
            default: break
            }

            for device in devices where !device.isOffline {
                if device.inbox.notifications.count > device.pushesSeen || Int.random(in: 0..<8, using: &generator) == 0 {
                    try await fetchZone(device)
                }
                guard Int.random(in: 0..<4, using: &generator) == 0 else { continue }
                try await readCollection(device, using: &generator)
                let unread = device.entries.filter { $0.value == [.recordZone] || $0.value == [.query] }.keys.sorted()
                if !unread.isEmpty, Bool.random(using: &generator) {
                    let chosen = Array(unread.shuffled(using: &generator).prefix(2))
                    let response = try await server.markNotificationsRead(WireMarkNotificationsReadRequest(context: rawContext(device.container.privateCloudDatabase), ids: chosen))
                    XCTAssertTrue(response.results.allSatisfy { (try? $0.result.get()) != nil })
                    markedRead.formUnion(chosen)
                }
            }
        }

        server.holdsPushes = false
        for device in devices where device.isOffline {
            device.isOffline = false
            server.setOffline(false, for: device.container)
        }
        await server.deliverPendingPushes()
        var everything: [WireNotification] = []
        var token: [UInt8]?
        var more = true
        while more {
            let response = try await server.notificationChanges(WireNotificationChangesRequest(context: rawContext(database), sinceToken: token))
            everything += response.notifications
            token = response.token
            more = response.moreComing
        }
        let allIDs = Set(everything.compactMap(\.notificationID))
        let content = try await serverContent(database)
        let message = "run again with STRATUS_SEED=\(seed)"
        XCTAssertGreaterThan(allIDs.count, 0, message)
        for (index, device) in devices.enumerated() {
            try await readCollection(device, using: &generator)
            try await fetchZone(device)
            XCTAssertEqual(Set(device.entries.keys).symmetricDifference(allIDs).count, 0, "device \(index) saw every notification; \(message)")
            for (id, kinds) in device.entries {
                let expected: Bool = if markedRead.contains(id) {
                    kinds == [.readNotification] || kinds == [.recordZone, .readNotification] || kinds == [.query, .readNotification]
                } else {
                    kinds == [.recordZone] || kinds == [.query]
                }
                XCTAssertTrue(expected, "device \(index) read \(id) as \(kinds); marked read: \(markedRead.contains(id)); \(message)")
            }
            XCTAssertEqual(device.records, content, "device \(index) ends with the server's content; \(message)")
            let delivered = Set(device.inbox.notifications.compactMap { $0.notificationID?.value })
            XCTAssertTrue(delivered.isSubset(of: allIDs), "every push is in the collection; \(message)")
        }
        XCTAssertEqual(Set(everything.filter { $0.kind == .readNotification }.compactMap(\.notificationID)), markedRead, message)
    }
}
