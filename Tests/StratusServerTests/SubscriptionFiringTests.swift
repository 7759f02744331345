import _StratusTestSupport
import Stratus
import XCTest

/// The pushes one device received, in order.
final class PushInbox: Sendable {
    private let received = Captured<[CKNotification]>([])

    /// Registers `device` for pushes, collecting them here.
    init(_ device: CKContainer) {
        device.registerForPushNotifications { [received] notification in received.value.append(notification) }
    }

    var notifications: [CKNotification] { received.value }
    var queryNotifications: [CKQueryNotification] { notifications.compactMap { $0 as? CKQueryNotification } }
}

/// When subscriptions fire, what their notifications say, and who gets the pushes.
final class SubscriptionFiringTests: ServerTestCase {
    private let zoneID = CKRecordZone.ID(zoneName: "Notes")

    private func info(alert: String? = "Something changed", silent: Bool = false) -> CKSubscription.NotificationInfo {
        let info = CKSubscription.NotificationInfo()
        info.alertBody = alert
        info.shouldSendContentAvailable = silent
        return info
    }

    private func querySubscription(_ id: String, predicate: NSPredicate, options: CKQuerySubscription.Options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]) -> CKQuerySubscription {
        let subscription = CKQuerySubscription(recordType: "Party", predicate: predicate, subscriptionID: id, options: options)
        subscription.notificationInfo = info()
        return subscription
    }

    private func party(_ name: String, size: Int) -> CKRecord {
        let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: name))
        record["size"] = size
        return record
    }

    /// The account's notification collection, read through the service.
    private func collection(of device: CKContainer) async throws -> [WireNotification] {
        try await server.notificationChanges(WireNotificationChangesRequest(context: rawContext(device.privateCloudDatabase))).notifications
    }

    // MARK: Query subscriptions

    func testQuerySubscriptionFiresForCreatesAndUpdatesThatMatchAfterAndDeletesThatMatchedBefore() async throws {
        let john = device("john"), johnsLaptop = device("john"), alice = device("alice")
        let inbox = PushInbox(johnsLaptop)
        try await john.publicCloudDatabase.save(querySubscription("big", predicate: NSPredicate(format: "size > 5")))
        let database = alice.publicCloudDatabase

        let record = try await database.save(party("p1", size: 10))        // created, matches
        record["size"] = 12
        let updated = try await database.save(record)                         // updated, still matches
        updated["size"] = 2
        let small = try await database.save(updated)                          // stops matching: silent
        small["size"] = 7
        let again = try await database.save(small)                            // starts matching: an update
        _ = try await database.save(party("p2", size: 1))                     // never matches
        try await database.deleteRecord(withID: again.recordID)               // matched before: deleted
        await server.deliverPendingPushes()

        let pushed = inbox.queryNotifications
        XCTAssertEqual(pushed.map(\.queryNotificationReason), [.recordCreated, .recordUpdated, .recordUpdated, .recordDeleted])
        XCTAssertEqual(Set(pushed.compactMap(\.recordID?.recordName)), ["p1"])
        XCTAssertEqual(pushed.map(\.subscriptionID), Array(repeating: "big", count: 4))
        XCTAssertEqual(pushed.first?.databaseScope, .public)
        XCTAssertEqual(pushed.first?.containerIdentifier, identifier)
        XCTAssertEqual(server.pushLog(for: johnsLaptop).first?.notification.alertBody, "Something changed")
        let stored = try await collection(of: john)
        XCTAssertEqual(stored.map(\.queryReason), [.recordCreated, .recordUpdated, .recordUpdated, .recordDeleted])
        XCTAssertEqual(Set(stored.compactMap(\.notificationID)).count, 4, "every notification has its own ID")
        XCTAssertEqual(pushed.map { $0.notificationID?.description }, stored.map(\.notificationID).map { $0.map { CKNotification.ID(value: $0).description } })
    }

    func testDeletionFiresOnlyWhenTheRecordMatchedBeforeIt() async throws {
        let john = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        try await john.publicCloudDatabase.save(querySubscription("gone", predicate: NSPredicate(format: "size > 5"), options: .firesOnRecordDeletion))
        let saved = try await john.publicCloudDatabase.save(party("p", size: 10))
        saved["size"] = 1
        let small = try await john.publicCloudDatabase.save(saved)
        try await john.publicCloudDatabase.deleteRecord(withID: small.recordID)
        _ = try await john.publicCloudDatabase.save(party("q", size: 9))
        try await john.publicCloudDatabase.deleteRecord(withID: CKRecord.ID(recordName: "q"))
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.queryNotifications.map(\.queryNotificationReason), [.recordDeleted])
        XCTAssertEqual(inbox.queryNotifications.first?.recordID?.recordName, "q")
    }

    func testFiresOnceDeletesTheSubscriptionAfterItsFirstNotification() async throws {
        let john = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        let database = john.publicCloudDatabase
        try await database.save(querySubscription("once", predicate: NSPredicate(value: true), options: [.firesOnRecordCreation, .firesOnce]))
        _ = try await database.modifyRecords(saving: [party("a", size: 1), party("b", size: 2)], deleting: [])
        _ = try await database.save(party("c", size: 3))
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.notifications.count, 1)
        let remaining = try await collection(of: john)
        XCTAssertEqual(remaining.count, 1)
        await assertThrowsCKError(.unknownItem) { try await database.subscription(for: "once") }
    }

    func testQuerySubscriptionLimitedToAZoneIgnoresOtherZones() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        let database = phone.privateCloudDatabase
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID), CKRecordZone(zoneName: "Other")], deleting: [])
        let subscription = querySubscription("notes-only", predicate: NSPredicate(value: true))
        subscription.zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: try await phone.userRecordID().recordName)
        try await database.save(subscription)
        _ = try await database.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "in", zoneID: zoneID)))
        _ = try await database.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "out", zoneID: CKRecordZone.ID(zoneName: "Other"))))
        _ = try await database.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "default")))
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.queryNotifications.compactMap(\.recordID?.recordName), ["in"])
    }

    func testQueryNotificationCarriesDesiredKeysAndLocalizationArgumentsFromTheRecord() async throws {
        let john = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        let subscription = querySubscription("keys", predicate: NSPredicate(value: true))
        let info = CKSubscription.NotificationInfo()
        info.alertLocalizationKey = "PARTY_%@_%@"
        info.alertLocalizationArgs = ["name", "size", "missing"]
        info.desiredKeys = ["name", "size", "when", "photo", "tags"]
        info.collapseIDKey = "name"
        info.titleLocalizationArgs = ["size"]
        info.subtitleLocalizationArgs = ["when"]
        info.soundName = "horn.caf"
        info.category = "PARTY"
        info.shouldSendMutableContent = true
        subscription.notificationInfo = info
        try await john.publicCloudDatabase.save(subscription)
        let record = party("p", size: 8)
        record["name"] = "Bozo"
        record["when"] = Date(timeIntervalSinceReferenceDate: 1000)
        record["photo"] = Data([1, 2, 3])
        record["tags"] = ["a", "b"]
        _ = try await john.publicCloudDatabase.save(record)
        await server.deliverPendingPushes()

        let notification = try XCTUnwrap(inbox.queryNotifications.first)
        XCTAssertEqual(server.pushLog(for: laptop).first?.notification.alertLocalizationArgs, ["Bozo", "8", ""])
        XCTAssertEqual(notification.recordFields?["name"] as? String, "Bozo")
        XCTAssertEqual((notification.recordFields?["size"] as? NSNumber)?.intValue, 8)
        XCTAssertEqual(notification.recordFields?["when"] as? Date, Date(timeIntervalSinceReferenceDate: 1000))
        XCTAssertNil(notification.recordFields?["photo"], "bytes never travel in a push")
        XCTAssertNil(notification.recordFields?["tags"], "lists never travel in a push")
        let pushed = try XCTUnwrap(server.pushLog(for: laptop).first?.notification)
        XCTAssertEqual(pushed.collapseID, "Bozo")
        XCTAssertEqual(pushed.titleLocalizationArgs, ["8"])
        XCTAssertEqual(pushed.subtitleLocalizationArgs, ["2001-01-01T00:16:40Z"])
        XCTAssertEqual(pushed.soundName, "horn.caf")
        XCTAssertEqual(pushed.category, "PARTY")
        XCTAssertTrue(pushed.mutableContent)
        XCTAssertFalse(pushed.contentAvailable)
        let johnsID = try await john.userRecordID()
        XCTAssertEqual(notification.subscriptionOwnerUserRecordID?.recordName, johnsID.recordName)
    }

    func testPublicQuerySubscriptionFiresOnlyForRecordsItsOwnerMayRead() async throws {
        let john = device("john"), laptop = device("john"), alice = device("alice")
        let inbox = PushInbox(laptop)
        server.setPermissions(RecordPermissions(world: [], authenticated: [.create], creator: [.read, .write]), forRecordType: "Party", containerIdentifier: identifier)
        try await john.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(value: true)))
        _ = try await alice.publicCloudDatabase.save(party("alices", size: 1))
        _ = try await john.publicCloudDatabase.save(party("johns", size: 1))
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.queryNotifications.compactMap(\.recordID?.recordName), ["johns"])
        let stored = try await collection(of: john)
        XCTAssertEqual(stored.compactMap(\.recordID?.recordName), ["johns"])
    }

    // MARK: Zone and database subscriptions

    func testZoneSubscriptionFiresOncePerRequestForEveryChangeInItsZoneCascadesIncluded() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        let database = phone.privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneID: zoneID))
        let all = CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "zone")
        all.notificationInfo = info(alert: nil, silent: true)
        let children = CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "children")
        children.recordType = "Child"
        children.notificationInfo = info(alert: nil, silent: true)
        _ = try await database.modifySubscriptions(saving: [all, children], deleting: [])

        let parent = CKRecord(recordType: "Parent", recordID: CKRecord.ID(recordName: "parent", zoneID: zoneID))
        let child = CKRecord(recordType: "Child", recordID: CKRecord.ID(recordName: "child", zoneID: zoneID))
        child["owner"] = CKRecord.Reference(record: parent, action: .deleteSelf)
        _ = try await database.modifyRecords(saving: [parent, child], deleting: [])     // both fire once
        _ = try await database.save(CKRecord(recordType: "Parent", recordID: CKRecord.ID(recordName: "other", zoneID: zoneID))) // zone only
        _ = try await database.modifyRecords(saving: [], deleting: [parent.recordID])     // cascade: both fire
        await server.deliverPendingPushes()

        let fired = inbox.notifications.compactMap { $0 as? CKRecordZoneNotification }
        XCTAssertEqual(fired.count, inbox.notifications.count)
        XCTAssertEqual(fired.map(\.subscriptionID), ["children", "zone", "zone", "children", "zone"], "subscriptions fire in the order of their IDs")
        XCTAssertEqual(fired.first?.recordZoneID?.zoneName, "Notes")
        XCTAssertEqual(fired.first?.databaseScope, .private)
        XCTAssertTrue(server.pushLog(for: laptop).allSatisfy { $0.priority == 5 }, "silent pushes go at priority 5")
    }

    func testDatabaseSubscriptionFiresForCustomZonesOnlyAndForZoneCreationAndDeletion() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        let database = phone.privateCloudDatabase
        let subscription = CKDatabaseSubscription(subscriptionID: "db")
        subscription.notificationInfo = info(alert: nil, silent: true)
        try await database.save(subscription)
        _ = try await database.save(CKRecord(recordType: "Note"))                      // default zone: nothing
        _ = try await database.save(CKRecordZone(zoneID: zoneID))                      // zone created
        _ = try await database.save(CKRecordZone(zoneID: zoneID))                      // exists already: nothing
        _ = try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(zoneID: zoneID))) // record
        try await database.deleteRecordZone(withID: zoneID)                            // zone deleted
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.notifications.count, 3)
        XCTAssertTrue(inbox.notifications.allSatisfy { $0.notificationType == .database && ($0 as? CKDatabaseNotification)?.databaseScope == .private })
    }

    func testPurgedZoneFiresDatabaseSubscriptionsToEveryDeviceOfTheAccount() async throws {
        let phone = device("john"), laptop = device("john")
        let phoneInbox = PushInbox(phone), laptopInbox = PushInbox(laptop)
        let database = phone.privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneID: zoneID))
        let subscription = CKDatabaseSubscription(subscriptionID: "db")
        subscription.notificationInfo = info(alert: nil, silent: true)
        try await database.save(subscription)
        XCTAssertTrue(server.purgeZone(named: "Notes", account: "john", containerIdentifier: identifier))
        await server.deliverPendingPushes()
        XCTAssertEqual(phoneInbox.notifications.count, 1, "the server made this change, so no device is left out")
        XCTAssertEqual(laptopInbox.notifications.count, 1)
    }

    // MARK: Who gets pushes

    func testTheDeviceThatMadeTheChangeAndOtherAccountsGetNoPushButTheCollectionKeepsIt() async throws {
        let phone = device("john"), laptop = device("john"), alice = device("alice")
        let phoneInbox = PushInbox(phone), laptopInbox = PushInbox(laptop), aliceInbox = PushInbox(alice)
        try await phone.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(value: true)))
        _ = try await phone.publicCloudDatabase.save(party("p", size: 1))
        await server.deliverPendingPushes()
        XCTAssertEqual(phoneInbox.notifications.count, 0)
        XCTAssertEqual(laptopInbox.notifications.count, 1)
        XCTAssertEqual(aliceInbox.notifications.count, 0)
        let stored = try await collection(of: phone)
        XCTAssertEqual(stored.count, 1)
        let alicesCollection = try await collection(of: alice)
        XCTAssertEqual(alicesCollection.count, 0)
    }

    func testPushesSentBeforeADeviceRegistersAreNotDelivered() async throws {
        let phone = device("john"), laptop = device("john")
        try await phone.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(value: true)))
        _ = try await phone.publicCloudDatabase.save(party("before", size: 1))
        let inbox = PushInbox(laptop)
        _ = try await phone.publicCloudDatabase.save(party("after", size: 1))
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.queryNotifications.compactMap(\.recordID?.recordName), ["after"])
        XCTAssertEqual(server.pushLog(for: laptop).count, 1, "nothing is sent to a device that has not registered")
    }

    func testAChangeMadeWithoutTheClientStillFires() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        try await phone.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(format: "size > 5")))
        let saved = try await rawSave(WireRecord(recordID: WireRecordID(recordName: "raw"), recordType: "Party", fields: ["size": .int64(9)]), to: phone.publicCloudDatabase)
        XCTAssertNoThrow(try saved.get())
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.queryNotifications.compactMap(\.recordID?.recordName), ["raw"])
    }

    func testPriorityBadgeAndPushLog() async throws {
        let phone = device("john"), laptop = device("john")
        _ = PushInbox(laptop)
        let loud = querySubscription("loud", predicate: NSPredicate(value: true))
        loud.notificationInfo?.shouldBadge = true
        let quiet = querySubscription("quiet", predicate: NSPredicate(value: true))
        quiet.notificationInfo = info(alert: nil, silent: true)
        _ = try await phone.publicCloudDatabase.modifySubscriptions(saving: [loud, quiet], deleting: [])
        _ = try await phone.publicCloudDatabase.save(party("a", size: 1))
        _ = try await phone.publicCloudDatabase.save(party("b", size: 1))
        await server.deliverPendingPushes()
        let log = server.pushLog(for: laptop)
        XCTAssertEqual(log.map(\.notification.subscriptionID), ["loud", "quiet", "loud", "quiet"])
        XCTAssertEqual(log.map(\.priority), [10, 5, 10, 5])
        XCTAssertEqual(log.map(\.notification.badge), [1, nil, 2, nil])
        XCTAssertTrue(log.allSatisfy { $0.fate == .delivered })
        XCTAssertEqual(server.badgeValue(account: "john", containerIdentifier: identifier), 2)
    }

    func testAPushLargerThan4KBIsPrunedWhileTheCollectionKeepsEverything() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        let subscription = querySubscription("big", predicate: NSPredicate(value: true))
        subscription.notificationInfo?.alertBody = String(repeating: "x", count: 5000)
        subscription.notificationInfo?.desiredKeys = ["name"]
        try await phone.publicCloudDatabase.save(subscription)
        let record = party("p", size: 1)
        record["name"] = "Bozo"
        _ = try await phone.publicCloudDatabase.save(record)
        await server.deliverPendingPushes()

        let pushed = try XCTUnwrap(inbox.queryNotifications.first)
        XCTAssertTrue(pushed.isPruned)
        XCTAssertEqual(pushed.subscriptionID, "big", "the subscription ID is never pruned")
        XCTAssertNil(pushed.recordFields, "desiredKeys go before the alert body")
        XCTAssertLessThanOrEqual(server.pushLog(for: laptop).first?.payloadSize ?? .max, 4096)
        let stored = try await collection(of: phone)
        XCTAssertEqual(stored.first?.isPruned, false)
        XCTAssertEqual(stored.first?.recordFields?["name"], .string("Bozo"))
    }

    func testAPushRoundTripsThroughItsRemoteNotificationDictionary() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        try await phone.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(value: true)))
        _ = try await phone.publicCloudDatabase.save(party("p", size: 1))
        await server.deliverPendingPushes()
        let pushed = try XCTUnwrap(inbox.queryNotifications.first)
        let reread = try XCTUnwrap(CKNotification(fromRemoteNotificationDictionary: pushed.remoteNotificationDictionary) as? CKQueryNotification)
        XCTAssertEqual(reread.notificationID, pushed.notificationID)
        XCTAssertEqual(reread.recordID, pushed.recordID)
        XCTAssertEqual(reread.queryNotificationReason, .recordCreated)
        XCTAssertEqual(reread.subscriptionID, "all")
    }

    // MARK: Best-effort delivery

    func testHeldPushesWaitAndCoalesceToTheLatestPerDevice() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        try await phone.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(value: true)))
        server.holdsPushes = true
        server.coalescesPushes = true
        for index in 0..<3 { _ = try await phone.publicCloudDatabase.save(party("p\(index)", size: index)) }
        XCTAssertEqual(inbox.notifications.count, 0, "held pushes wait")
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.queryNotifications.compactMap(\.recordID?.recordName), ["p2"])
        XCTAssertEqual(server.pushLog(for: laptop).map(\.fate), [.coalesced, .coalesced, .delivered])
        let stored = try await collection(of: phone)
        XCTAssertEqual(stored.count, 3, "the collection keeps what coalescing dropped")
    }

    func testDroppedPushesAreLostButLogged() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        try await phone.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(value: true)))
        server.dropNextPushes(1)
        _ = try await phone.publicCloudDatabase.save(party("lost", size: 1))
        _ = try await phone.publicCloudDatabase.save(party("kept", size: 1))
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.queryNotifications.compactMap(\.recordID?.recordName), ["kept"])
        XCTAssertEqual(server.pushLog(for: laptop).map(\.fate), [.dropped, .delivered])
    }

    func testAnOfflineDeviceGetsOnlyTheLastPushWhenItComesBackAndCannotSendRequests() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        try await phone.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(value: true)))
        server.setOffline(true, for: laptop)
        let requestsBefore = server.requestCount
        await assertThrowsCKError(.networkUnavailable) { try await laptop.publicCloudDatabase.record(for: CKRecord.ID(recordName: "x")) }
        XCTAssertEqual(server.requestCount, requestsBefore, "an offline device's request never reaches the server")
        for index in 0..<3 { _ = try await phone.publicCloudDatabase.save(party("p\(index)", size: index)) }
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.notifications.count, 0)
        XCTAssertEqual(server.pushLog(for: laptop).map(\.fate), [.coalesced, .coalesced, .storedWhileOffline])

        server.setOffline(false, for: laptop)
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.queryNotifications.compactMap(\.recordID?.recordName), ["p2"])
        _ = try await laptop.publicCloudDatabase.record(for: CKRecord.ID(recordName: "p0"))
    }

    func testPushesFollowTheAccountTheDeviceIsSignedInToWhenTheyAreSent() async throws {
        let phone = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        try await phone.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(value: true)))
        server.signIn(laptop, as: "alice")
        _ = try await phone.publicCloudDatabase.save(party("p", size: 1))
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.notifications.count, 0, "the laptop is alice's now")
        laptop.unregisterForPushNotifications()
        server.signIn(laptop, as: "john")
        _ = try await phone.publicCloudDatabase.save(party("q", size: 1))
        await server.deliverPendingPushes()
        XCTAssertEqual(inbox.notifications.count, 0, "unregistered devices get nothing")
    }

    func testPushHandlersRunOneAtATimeInOrder() async throws {
        let phone = device("john"), laptop = device("john")
        let running = Captured(0), overlapped = Captured(false), order = Captured<[String]>([])
        laptop.registerForPushNotifications { notification in
            running.value += 1
            if running.value > 1 { overlapped.value = true }
            order.value.append((notification as? CKQueryNotification)?.recordID?.recordName ?? "?")
            running.value -= 1
        }
        try await phone.publicCloudDatabase.save(querySubscription("all", predicate: NSPredicate(value: true)))
        let records = (0..<20).map { party(String(format: "p%02d", $0), size: $0) }
        for record in records { _ = try await phone.publicCloudDatabase.save(record) }
        await server.deliverPendingPushes()
        XCTAssertFalse(overlapped.value)
        XCTAssertEqual(order.value, records.map(\.recordID.recordName))
    }
}
