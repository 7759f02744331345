import Foundation
import Stratus
import StratusCore
import XCTest

/// The three deprecated notification-collection operations, as the 2014 talk uses them:
/// fetching the notifications the server kept (every subclass, in order, from a token, page by
/// page), marking them read for every device, setting the badge; their errors, one request per
/// operation, and cancellation.
///
/// John's laptop subscribes and fetches; his phone makes the changes. The operations are
/// deprecated, so every test that uses them is marked deprecated too.
final class NotificationCollectionOperationsTests: OperationTestCase {
    private var laptop: CKContainer!
    private var phone: CKContainer!
    private let notes = CKRecordZone.ID(zoneName: "Notes")

    override func setUp() {
        super.setUp()
        laptop = database.container
        phone = server.container(identifier: identifier, account: "john")
    }

    override func tearDown() {
        laptop = nil
        phone = nil
        super.tearDown()
    }

    // MARK: - Helpers

    private func makeNotesZone() async throws {
        _ = try await laptop.privateCloudDatabase.save(CKRecordZone(zoneID: notes))
    }

    private func silentInfo(desiredKeys: [String]? = nil, badge: Bool = false) -> CKSubscription.NotificationInfo {
        let info = CKSubscription.NotificationInfo()
        info.desiredKeys = desiredKeys
        if badge { info.shouldBadge = true } else { info.shouldSendContentAvailable = true }
        return info
    }

    /// A subscription to every new note in the Notes zone, with the note's text.
    private func subscribeToNewNotes(badge: Bool = false) async throws {
        try await makeNotesZone()
        let subscription = CKQuerySubscription(recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "new-notes", options: [.firesOnRecordCreation])
        subscription.zoneID = notes
        subscription.notificationInfo = silentInfo(desiredKeys: ["text"], badge: badge)
        _ = try await laptop.privateCloudDatabase.save(subscription)
    }

    /// The phone saves one note per request, so each makes one notification per subscription.
    private func phoneSaves(_ names: [String]) async throws {
        for name in names {
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: notes))
            note["text"] = "text of \(name)"
            _ = try await phone.privateCloudDatabase.save(note)
        }
    }

    /// What one fetch operation reported.
    private struct Fetched {
        var notifications: [CKNotification]
        var token: CKServerChangeToken?
        var error: (any Error)?
        var moreComing: Bool
        var events: [String]

        var code: CKError.Code? { (error as? CKError)?.code }
        var recordNames: [String?] { notifications.map { ($0 as? CKQueryNotification)?.recordID?.recordName } }
    }

    /// Runs one fetch operation on `device` and collects what it reports.
    @available(*, deprecated)
    private func fetch(_ device: CKContainer, since token: CKServerChangeToken?, limit: Int? = nil) async -> Fetched {
        let operation = CKFetchNotificationChangesOperation(previousServerChangeToken: token)
        if let limit { operation.resultsLimit = limit }
        let log = EventLog()
        nonisolated(unsafe) var notifications: [CKNotification] = []
        nonisolated(unsafe) var result: (CKServerChangeToken?, (any Error)?)?
        nonisolated(unsafe) var moreComingSeen = false
        let done = expectation(description: "fetch completion")
        operation.notificationChangedBlock = { notification in
            log.callback("changed")
            notifications.append(notification)
        }
        operation.fetchNotificationChangesCompletionBlock = { [unowned operation] token, error in
            log.callback("completion")
            moreComingSeen = operation.moreComing
            result = (token, error)
            done.fulfill()
        }
        device.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.overlapCount, 0)
        return Fetched(notifications: notifications, token: result?.0, error: result?.1, moreComing: moreComingSeen, events: log.all)
    }

    /// Runs one mark-read operation on `device`.
    @available(*, deprecated)
    private func markRead(_ device: CKContainer, _ notificationIDs: [CKNotification.ID]) async -> ([CKNotification.ID]?, (any Error)?) {
        let operation = CKMarkNotificationsReadOperation(notificationIDsToMarkRead: notificationIDs)
        nonisolated(unsafe) var result: ([CKNotification.ID]?, (any Error)?)?
        let done = expectation(description: "mark completion")
        operation.markNotificationsReadCompletionBlock = { marked, error in
            result = (marked, error)
            done.fulfill()
        }
        device.add(operation)
        await fulfillment(of: [done], timeout: 10)
        return result ?? (nil, nil)
    }

    /// Runs one badge operation on `device`; its error.
    @available(*, deprecated)
    private func setBadge(_ device: CKContainer, _ value: Int) async -> (any Error)? {
        let operation = CKModifyBadgeOperation(badgeValue: value)
        nonisolated(unsafe) var result: (any Error)?
        let done = expectation(description: "badge completion")
        operation.modifyBadgeCompletionBlock = { error in
            result = error
            done.fulfill()
        }
        device.add(operation)
        await fulfillment(of: [done], timeout: 10)
        return result
    }

    private var johnsBadge: Int { server.badgeValue(account: "john", containerIdentifier: identifier) }

    // MARK: - Defaults

    @available(*, deprecated)
    func testDefaultsAreCloudKits() {
        let fetch = CKFetchNotificationChangesOperation()
        XCTAssertNil(fetch.previousServerChangeToken)
        XCTAssertEqual(fetch.resultsLimit, 0)
        XCTAssertFalse(fetch.moreComing)
        XCTAssertNil(fetch.notificationChangedBlock)
        XCTAssertNil(fetch.fetchNotificationChangesCompletionBlock)
        let token = CKServerChangeToken(bytes: Data([1, 2, 3]))
        XCTAssertEqual(CKFetchNotificationChangesOperation(previousServerChangeToken: token).previousServerChangeToken, token)

        let mark = CKMarkNotificationsReadOperation()
        XCTAssertNil(mark.notificationIDs)
        let ids = [CKNotification.ID(value: "a"), CKNotification.ID(value: "b")]
        XCTAssertEqual(CKMarkNotificationsReadOperation(notificationIDsToMarkRead: ids).notificationIDs, ids)

        XCTAssertEqual(CKModifyBadgeOperation().badgeValue, 0)
        XCTAssertEqual(CKModifyBadgeOperation(badgeValue: 4).badgeValue, 4)
        XCTAssertEqual(CKModifyBadgeOperation().qualityOfService, .default)
    }

    // MARK: - Fetching

    @available(*, deprecated)
    func testAFetchFromNilReportsEveryNotificationInOrderAsItsSubclassThenTheTokenInOneRequest() async throws {
        try await makeNotesZone()
        let query = CKQuerySubscription(recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "new-notes", options: [.firesOnRecordCreation])
        query.zoneID = notes
        query.notificationInfo = silentInfo(desiredKeys: ["text"])
        _ = try await laptop.privateCloudDatabase.save(query)
        try await phoneSaves(["a"])
        try await laptop.privateCloudDatabase.deleteSubscription(withID: "new-notes")

        let zone = CKRecordZoneSubscription(zoneID: notes, subscriptionID: "notes-zone")
        zone.notificationInfo = silentInfo()
        _ = try await laptop.privateCloudDatabase.save(zone)
        try await phoneSaves(["b"])
        try await laptop.privateCloudDatabase.deleteSubscription(withID: "notes-zone")

        let everything = CKDatabaseSubscription(subscriptionID: "everything")
        everything.notificationInfo = silentInfo()
        _ = try await laptop.privateCloudDatabase.save(everything)
        try await phoneSaves(["c"])

        let before = server.requestCount
        let fetched = await fetch(laptop, since: nil)
        XCTAssertEqual(server.requestCount, before + 1)
        XCTAssertNil(fetched.error)
        XCTAssertNotNil(fetched.token)
        XCTAssertFalse(fetched.moreComing)
        XCTAssertEqual(fetched.events, ["changed", "changed", "changed", "completion"])
        XCTAssertEqual(fetched.notifications.map(\.notificationType), [.query, .recordZone, .database])

        let first = try XCTUnwrap(fetched.notifications[0] as? CKQueryNotification)
        XCTAssertEqual(first.recordID, CKRecord.ID(recordName: "a", zoneID: notes))
        XCTAssertEqual(first.queryNotificationReason, .recordCreated)
        XCTAssertEqual(first.recordFields?["text"] as? String, "text of a")
        XCTAssertEqual(first.databaseScope, .private)
        XCTAssertEqual(first.subscriptionID, "new-notes")

        let second = try XCTUnwrap(fetched.notifications[1] as? CKRecordZoneNotification)
        XCTAssertEqual(second.recordZoneID, notes)
        XCTAssertEqual(second.databaseScope, .private)
        XCTAssertEqual(second.subscriptionID, "notes-zone")

        let third = try XCTUnwrap(fetched.notifications[2] as? CKDatabaseNotification)
        XCTAssertEqual(third.databaseScope, .private)
        XCTAssertEqual(third.subscriptionID, "everything")

        for notification in fetched.notifications {
            XCTAssertNotNil(notification.notificationID)
            XCTAssertEqual(notification.containerIdentifier, identifier)
            XCTAssertEqual(notification.subscriptionOwnerUserRecordID?.recordName, server.userRecordName(account: "john", containerIdentifier: identifier))
            XCTAssertFalse(notification.isPruned)
        }
        XCTAssertEqual(Set(fetched.notifications.compactMap(\.notificationID)).count, 3)
    }

    @available(*, deprecated)
    func testAFetchFromATokenReportsOnlyTheNotificationsAddedSince() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b"])
        let first = await fetch(laptop, since: nil)
        XCTAssertEqual(first.recordNames, ["a", "b"])

        let nothing = await fetch(laptop, since: first.token)
        XCTAssertNil(nothing.error)
        XCTAssertEqual(nothing.notifications.count, 0)
        XCTAssertEqual(nothing.events, ["completion"])

        try await phoneSaves(["c"])
        let second = await fetch(laptop, since: nothing.token)
        XCTAssertEqual(second.recordNames, ["c"])
        XCTAssertNotEqual(second.token, first.token)
    }

    @available(*, deprecated)
    func testAKeptTokenWorksAfterAnArchiveRoundTrip() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let first = await fetch(laptop, since: nil)
        let token = try XCTUnwrap(first.token)
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let restored = try XCTUnwrap(NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: data))
        try await phoneSaves(["b"])
        let second = await fetch(laptop, since: restored)
        XCTAssertNil(second.error)
        XCTAssertEqual(second.recordNames, ["b"])
    }

    @available(*, deprecated)
    func testResultsLimitPagesWithMoreComingAndEachOperationIsOneRequest() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b", "c", "d", "e"])
        var token: CKServerChangeToken?
        var pages: [[String?]] = []
        var moreComing: [Bool] = []
        let before = server.requestCount
        repeat {
            let page = await fetch(laptop, since: token, limit: 2)
            XCTAssertNil(page.error)
            pages.append(page.recordNames)
            moreComing.append(page.moreComing)
            token = page.token
        } while moreComing.last == true && pages.count < 10
        XCTAssertEqual(pages, [["a", "b"], ["c", "d"], ["e"]])
        XCTAssertEqual(moreComing, [true, true, false])
        XCTAssertEqual(server.requestCount, before + 3, "the operation sends one request; the caller runs the next")
    }

    @available(*, deprecated)
    func testANegativeResultsLimitLetsTheServerChoose() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b"])
        let fetched = await fetch(laptop, since: nil, limit: -5)
        XCTAssertNil(fetched.error)
        XCTAssertEqual(fetched.recordNames, ["a", "b"])
    }

    // MARK: - Marking read

    @available(*, deprecated)
    func testMarkingReadOnOneDeviceShowsAnotherDeviceExactlyOneReadEntryFromItsOldToken() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b"])
        let phoneSaw = await fetch(phone, since: nil)
        let laptopSaw = await fetch(laptop, since: nil)
        let readID = try XCTUnwrap(laptopSaw.notifications.first?.notificationID)

        let before = server.requestCount
        let (marked, error) = await markRead(laptop, [readID])
        XCTAssertNil(error)
        XCTAssertEqual(marked, [readID])
        XCTAssertEqual(server.requestCount, before + 1)

        let update = await fetch(phone, since: phoneSaw.token)
        XCTAssertNil(update.error)
        XCTAssertEqual(update.notifications.count, 1)
        let entry = try XCTUnwrap(update.notifications.first)
        XCTAssertEqual(entry.notificationType, .readNotification)
        XCTAssertEqual(entry.notificationID, readID)
        XCTAssertTrue(type(of: entry) == CKNotification.self, "a read entry is a plain CKNotification, not \(type(of: entry))")
        XCTAssertNil(entry.subscriptionID)
        XCTAssertNil(entry.subscriptionOwnerUserRecordID)
        XCTAssertEqual(entry.containerIdentifier, identifier)
    }

    @available(*, deprecated)
    func testAFetchFromNilShowsAMarkedNotificationOnlyAsRead() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b"])
        let before = await fetch(laptop, since: nil)
        let readID = try XCTUnwrap(before.notifications.first?.notificationID)
        _ = await markRead(phone, [readID])

        let after = await fetch(laptop, since: nil)
        XCTAssertEqual(after.notifications.map(\.notificationType), [.query, .readNotification])
        XCTAssertEqual(after.notifications.map(\.notificationID), [before.notifications[1].notificationID, readID])
        XCTAssertEqual(after.notifications.filter { $0.notificationID == readID }.count, 1)
    }

    @available(*, deprecated)
    func testMarkingTwiceSucceedsBothTimesAndAddsNoSecondReadEntry() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let fetched = await fetch(laptop, since: nil)
        let readID = try XCTUnwrap(fetched.notifications.first?.notificationID)

        let first = await markRead(laptop, [readID, readID])
        XCTAssertNil(first.1)
        XCTAssertEqual(first.0, [readID], "an ID named twice is reported once")
        let second = await markRead(phone, [readID])
        XCTAssertNil(second.1)
        XCTAssertEqual(second.0, [readID])

        let update = await fetch(laptop, since: fetched.token)
        XCTAssertEqual(update.notifications.map(\.notificationType), [.readNotification])
    }

    @available(*, deprecated)
    func testAnUnknownIDIsAPartialFailureKeyedByItsIDAndTheOthersAreMarked() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let fetched = await fetch(laptop, since: nil)
        let readID = try XCTUnwrap(fetched.notifications.first?.notificationID)
        let unknown = CKNotification.ID(value: "no-such-notification")

        let (marked, error) = await markRead(laptop, [unknown, readID])
        XCTAssertEqual(marked, [readID])
        let partial = try XCTUnwrap(error as? CKError)
        XCTAssertEqual(partial.code, .partialFailure)
        let items = try XCTUnwrap(partial.partialErrorsByItemID)
        XCTAssertEqual(items.count, 1)
        XCTAssertEqual((items[unknown] as? CKError)?.code, .unknownItem)
        XCTAssertNil(items[readID])

        let update = await fetch(laptop, since: fetched.token)
        XCTAssertEqual(update.notifications.map(\.notificationID), [readID], "the known ID was marked")
    }

    @available(*, deprecated)
    func testMoreThanFourHundredIDsFailAsAWholeWithLimitExceeded() async {
        let ids = (0...400).map { CKNotification.ID(value: "id-\($0)") }
        let (marked, error) = await markRead(laptop, ids)
        XCTAssertNil(marked)
        XCTAssertEqual((error as? CKError)?.code, .limitExceeded)
    }

    @available(*, deprecated)
    func testMarkingNothingSucceedsWithoutARequest() async {
        let before = server.requestCount
        let (marked, error) = await markRead(laptop, [])
        XCTAssertNil(error)
        XCTAssertEqual(marked, [])
        XCTAssertEqual(server.requestCount, before)
    }

    // MARK: - Badge

    @available(*, deprecated)
    func testTheBadgeIsSetOnTheServerAndBadgingNotificationsCountUpFromIt() async throws {
        try await subscribeToNewNotes(badge: true)
        try await phoneSaves(["a", "b"])
        XCTAssertEqual(johnsBadge, 2)
        let before = server.requestCount
        let cleared = await setBadge(laptop, 0)
        XCTAssertNil(cleared)
        XCTAssertEqual(server.requestCount, before + 1)
        XCTAssertEqual(johnsBadge, 0)
        try await phoneSaves(["c"])
        XCTAssertEqual(johnsBadge, 1)
        let set = await setBadge(phone, 9)
        XCTAssertNil(set)
        XCTAssertEqual(johnsBadge, 9)
    }

    @available(*, deprecated)
    func testANegativeBadgeFailsWithInvalidArguments() async {
        _ = await setBadge(laptop, 2)
        let error = await setBadge(laptop, -1)
        XCTAssertEqual((error as? CKError)?.code, .invalidArguments)
        XCTAssertEqual(johnsBadge, 2)
    }

    // MARK: - Tokens

    @available(*, deprecated)
    func testAnExpiredTokenFailsWithChangeTokenExpiredAndAFetchFromNilRecovers() async throws {
        server.notificationHistoryLimit = 4
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let old = await fetch(laptop, since: nil)
        XCTAssertNil(old.error)
        try await phoneSaves(["b", "c", "d", "e", "f"])

        let expired = await fetch(laptop, since: old.token)
        XCTAssertEqual(expired.code, .changeTokenExpired)
        XCTAssertNil(expired.token)
        XCTAssertEqual(expired.events, ["completion"])

        let recovered = await fetch(laptop, since: nil)
        XCTAssertNil(recovered.error)
        // At least the newest 4 are kept, and at most a quarter more (see notificationHistoryLimit).
        XCTAssertEqual(recovered.recordNames.suffix(4), ["c", "d", "e", "f"])
        XCTAssertLessThanOrEqual(recovered.recordNames.count, 5)
        XCTAssertFalse(recovered.recordNames.contains("a"))
    }

    @available(*, deprecated)
    func testAnAlteredTokenOrAnotherAccountsTokenFailsWithInvalidArguments() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let first = await fetch(laptop, since: nil)
        let johns = try XCTUnwrap(first.token)

        var bytes = johns.bytes
        bytes[bytes.count / 2] ^= 0x40
        let altered = await fetch(laptop, since: CKServerChangeToken(bytes: bytes))
        XCTAssertEqual(altered.code, .invalidArguments)
        XCTAssertNil(altered.token)

        let forged = await fetch(laptop, since: CKServerChangeToken(bytes: Data("not a token".utf8)))
        XCTAssertEqual(forged.code, .invalidArguments)

        let ann = server.container(identifier: identifier, account: "ann")
        let annWithJohns = await fetch(ann, since: johns)
        XCTAssertEqual(annWithJohns.code, .invalidArguments)
        XCTAssertEqual(annWithJohns.notifications.count, 0)

        let databaseToken = try await laptop.privateCloudDatabase.databaseChanges(since: nil).changeToken
        let wrongKind = await fetch(laptop, since: databaseToken)
        XCTAssertEqual(wrongKind.code, .invalidArguments, "a database token is not a notification token")
    }

    // MARK: - Accounts

    @available(*, deprecated)
    func testAnotherAccountCannotReadOrMarkThisAccountsNotifications() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let johns = await fetch(laptop, since: nil)
        let readID = try XCTUnwrap(johns.notifications.first?.notificationID)
        let ann = server.container(identifier: identifier, account: "ann")

        let annFetch = await fetch(ann, since: nil)
        XCTAssertNil(annFetch.error)
        XCTAssertEqual(annFetch.notifications.count, 0)

        let (marked, error) = await markRead(ann, [readID])
        XCTAssertEqual(marked, [])
        let partial = try XCTUnwrap(error as? CKError)
        XCTAssertEqual(partial.code, .partialFailure)
        XCTAssertEqual((partial.partialErrorsByItemID?[readID] as? CKError)?.code, .unknownItem)

        let johnAfter = await fetch(laptop, since: johns.token)
        XCTAssertEqual(johnAfter.notifications.count, 0, "John's notification is still unread")
    }

    @available(*, deprecated)
    func testWithoutAnAccountEveryOperationFailsWithNotAuthenticated() async {
        let guest = server.container(identifier: identifier, account: nil)
        let fetched = await fetch(guest, since: nil)
        XCTAssertEqual(fetched.code, .notAuthenticated)
        XCTAssertNil(fetched.token)
        let (marked, markError) = await markRead(guest, [CKNotification.ID(value: "x")])
        XCTAssertNil(marked)
        XCTAssertEqual((markError as? CKError)?.code, .notAuthenticated)
        let badgeError = await setBadge(guest, 0)
        XCTAssertEqual((badgeError as? CKError)?.code, .notAuthenticated)
    }

    // MARK: - Cancellation

    @available(*, deprecated)
    func testCancelledBeforeStartEachOperationReportsOperationCancelledAndSendsNothing() async {
        let before = server.requestCount
        let log = EventLog()
        let done = expectation(description: "three completions")
        done.expectedFulfillmentCount = 3

        let fetch = CKFetchNotificationChangesOperation()
        fetch.notificationChangedBlock = { _ in log.append("fetch changed") }
        fetch.fetchNotificationChangesCompletionBlock = { token, error in
            log.append("fetch \(token == nil) \((error as? CKError)?.code == .operationCancelled)")
            done.fulfill()
        }
        let mark = CKMarkNotificationsReadOperation(notificationIDsToMarkRead: [CKNotification.ID(value: "x")])
        mark.markNotificationsReadCompletionBlock = { marked, error in
            log.append("mark \(marked == nil) \((error as? CKError)?.code == .operationCancelled)")
            done.fulfill()
        }
        let badge = CKModifyBadgeOperation(badgeValue: 3)
        badge.modifyBadgeCompletionBlock = { error in
            log.append("badge \((error as? CKError)?.code == .operationCancelled)")
            done.fulfill()
        }
        for operation in [fetch, mark, badge] as [CKOperation] {
            operation.cancel()
            laptop.add(operation)
        }
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(Set(log.all), ["fetch true true", "mark true true", "badge true"])
        XCTAssertEqual(server.requestCount, before)
        XCTAssertEqual(johnsBadge, 0)
    }
}
