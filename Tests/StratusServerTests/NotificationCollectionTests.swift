import Foundation
import Stratus
import XCTest

/// The notification collection's endpoints, called on the `CloudService` directly as a network
/// transport would: what `notifications/changes` returns and in which order, paging, read
/// entries, marking read, the badge, expired and foreign tokens, and that one account never
/// reaches another's collection.
///
/// John's laptop subscribes; his phone makes the changes, so every notification comes from a
/// save on another device of the same account, as in the 2014 talk's story.
final class NotificationCollectionTests: ServerTestCase {
    private var laptop: CKContainer!
    private var phone: CKContainer!
    private let notes = CKRecordZone.ID(zoneName: "Notes")

    override func setUp() {
        super.setUp()
        laptop = device("john")
        phone = device("john")
    }

    override func tearDown() {
        laptop = nil
        phone = nil
        super.tearDown()
    }

    // MARK: - Helpers

    /// Creates the Notes zone and a query subscription on it that fires for every new note,
    /// with the note's text, and badges when asked.
    private func subscribeToNewNotes(badge: Bool = false) async throws {
        _ = try await laptop.privateCloudDatabase.save(CKRecordZone(zoneID: notes))
        let subscription = CKQuerySubscription(recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "new-notes", options: [.firesOnRecordCreation])
        subscription.zoneID = notes
        let info = CKSubscription.NotificationInfo()
        info.desiredKeys = ["text"]
        if badge { info.shouldBadge = true } else { info.shouldSendContentAvailable = true }
        subscription.notificationInfo = info
        _ = try await laptop.privateCloudDatabase.save(subscription)
    }

    /// The phone saves one note per request, so each makes one notification.
    private func phoneSaves(_ names: [String]) async throws {
        for name in names {
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: notes))
            note["text"] = "text of \(name)"
            _ = try await phone.privateCloudDatabase.save(note)
        }
    }

    private func changes(_ device: CKContainer, since token: [UInt8]?, limit: Int = 0) async throws -> WireNotificationChangesResponse {
        try await server.notificationChanges(WireNotificationChangesRequest(context: rawContext(device.privateCloudDatabase), sinceToken: token, resultsLimit: limit))
    }

    private func markRead(_ device: CKContainer, _ notificationIDs: [String]) async throws -> WireMarkNotificationsReadResponse {
        try await server.markNotificationsRead(WireMarkNotificationsReadRequest(context: rawContext(device.privateCloudDatabase), ids: notificationIDs))
    }

    private func setBadge(_ device: CKContainer, _ value: Int) async throws {
        try await server.modifyBadge(WireModifyBadgeRequest(context: rawContext(device.privateCloudDatabase), badgeValue: value))
    }

    /// Asserts that `body` throws the server's `WireError` with `code`.
    private func assertThrowsWireError<T>(
        _ code: CKError.Code,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ body: () async throws -> T
    ) async {
        do {
            _ = try await body()
            XCTFail("expected \(code), got success", file: file, line: line)
        } catch let error as WireError {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        } catch {
            XCTFail("expected \(code), got \(error)", file: file, line: line)
        }
    }

    /// The record names the query notifications of `response` are about, in order.
    private func recordNames(_ response: WireNotificationChangesResponse) -> [String?] {
        response.notifications.map { $0.recordID?.recordName }
    }

    // MARK: - Fetching

    func testFetchFromNilReturnsEveryNotificationInTheOrderTheChangesHappenedWithWhatItCarries() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b", "c"])

        let response = try await changes(laptop, since: nil)
        XCTAssertEqual(recordNames(response), ["a", "b", "c"])
        XCTAssertFalse(response.moreComing)
        XCTAssertEqual(Set(response.notifications.compactMap(\.notificationID)).count, 3, "each notification has its own ID")
        for notification in response.notifications {
            XCTAssertEqual(notification.kind, .query)
            XCTAssertEqual(notification.queryReason, .recordCreated)
            XCTAssertEqual(notification.subscriptionID, "new-notes")
            XCTAssertEqual(notification.containerIdentifier, identifier)
            XCTAssertEqual(notification.databaseScope, .private)
            XCTAssertFalse(notification.isPruned)
        }
        XCTAssertEqual(response.notifications.first?.recordFields?["text"], .string("text of a"))

        let fromPhone = try await changes(phone, since: nil)
        XCTAssertEqual(fromPhone.notifications, response.notifications, "every device of the account reads the same collection")
    }

    func testATokenResumesAfterTheNotificationsAlreadyFetched() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b"])
        let first = try await changes(laptop, since: nil)
        XCTAssertEqual(recordNames(first), ["a", "b"])

        let nothingNew = try await changes(laptop, since: first.token)
        XCTAssertEqual(nothingNew.notifications, [])
        XCTAssertFalse(nothingNew.moreComing)

        try await phoneSaves(["c", "d"])
        let second = try await changes(laptop, since: nothingNew.token)
        XCTAssertEqual(recordNames(second), ["c", "d"])
        let again = try await changes(laptop, since: first.token)
        XCTAssertEqual(recordNames(again), ["c", "d"], "a token can be used again")
    }

    func testResultsLimitPagesTheCollectionWithMoreComingUntilTheLastPage() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b", "c", "d", "e"])
        var token: [UInt8]?
        var pages: [[String?]] = []
        var moreComing: [Bool] = []
        repeat {
            let page = try await changes(laptop, since: token, limit: 2)
            pages.append(recordNames(page))
            moreComing.append(page.moreComing)
            token = page.token
        } while moreComing.last == true && pages.count < 10
        XCTAssertEqual(pages, [["a", "b"], ["c", "d"], ["e"]])
        XCTAssertEqual(moreComing, [true, true, false])
    }

    func testAnExactlyFullLastPageSaysNoMoreComing() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b"])
        let page = try await changes(laptop, since: nil, limit: 2)
        XCTAssertEqual(recordNames(page), ["a", "b"])
        XCTAssertFalse(page.moreComing)
    }

    func testAZeroLimitLetsTheServerReturnTwoHundredAndALargerLimitIsCappedThere() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves((0..<201).map { "n\($0)" })
        for limit in [0, 1_000] {
            let first = try await changes(laptop, since: nil, limit: limit)
            XCTAssertEqual(first.notifications.count, 200, "limit \(limit)")
            XCTAssertTrue(first.moreComing, "limit \(limit)")
            let rest = try await changes(laptop, since: first.token, limit: limit)
            XCTAssertEqual(recordNames(rest), ["n200"], "limit \(limit)")
            XCTAssertFalse(rest.moreComing, "limit \(limit)")
        }
    }

    func testANegativeLimitIsInvalidArguments() async throws {
        await assertThrowsWireError(.invalidArguments) { try await self.changes(self.laptop, since: nil, limit: -1) }
    }

    func testAnAccountWithNoNotificationsGetsAnEmptyPageAndAUsableToken() async throws {
        let empty = try await changes(laptop, since: nil)
        XCTAssertEqual(empty.notifications, [])
        XCTAssertFalse(empty.moreComing)
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let next = try await changes(laptop, since: empty.token)
        XCTAssertEqual(recordNames(next), ["a"])
    }

    // MARK: - Marking read

    func testMarkingReadShowsEachDeviceTheNotificationOnceMoreAsAReadEntryWithOnlyItsID() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b"])
        let laptopSaw = try await changes(laptop, since: nil)
        let phoneSaw = try await changes(phone, since: nil)
        let readID = try XCTUnwrap(laptopSaw.notifications.first?.notificationID)

        let marked = try await markRead(laptop, [readID])
        XCTAssertEqual(marked.results.map(\.id), [readID])
        XCTAssertNotNil(try? marked.results.first?.result.get())

        for (device, token) in [(laptop!, laptopSaw.token), (phone!, phoneSaw.token)] {
            let update = try await changes(device, since: token)
            XCTAssertEqual(update.notifications.count, 1)
            let entry = try XCTUnwrap(update.notifications.first)
            XCTAssertEqual(entry.kind, .readNotification)
            XCTAssertEqual(entry.notificationID, readID)
            XCTAssertEqual(entry.containerIdentifier, identifier)
            XCTAssertNil(entry.subscriptionID)
            XCTAssertNil(entry.recordID)
            XCTAssertNil(entry.recordFields)
            XCTAssertNil(entry.queryReason)
        }
    }

    func testFromNilAReadNotificationAppearsOnlyAsReadAfterTheUnreadOnes() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b"])
        let before = try await changes(laptop, since: nil)
        let readID = try XCTUnwrap(before.notifications.first?.notificationID)
        _ = try await markRead(phone, [readID])

        let after = try await changes(laptop, since: nil)
        XCTAssertEqual(after.notifications.map(\.kind), [.query, .readNotification])
        XCTAssertEqual(after.notifications.map(\.notificationID), [before.notifications[1].notificationID, readID])
    }

    func testANotificationMarkedReadBeforeADeviceReachedItComesOnlyOnceAsRead() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a", "b", "c"])
        let all = try await changes(phone, since: nil)
        let firstPage = try await changes(laptop, since: nil, limit: 1)
        XCTAssertEqual(recordNames(firstPage), ["a"])
        let bID = try XCTUnwrap(all.notifications[1].notificationID)
        _ = try await markRead(phone, [bID])

        let rest = try await changes(laptop, since: firstPage.token)
        XCTAssertEqual(rest.notifications.map(\.kind), [.query, .readNotification])
        XCTAssertEqual(rest.notifications.map(\.notificationID), [all.notifications[2].notificationID, bID])
    }

    func testMarkingTwiceOrNamingAnIDTwiceSucceedsAndAddsNoSecondReadEntry() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let fetched = try await changes(laptop, since: nil)
        let readID = try XCTUnwrap(fetched.notifications.first?.notificationID)
        let once = try await markRead(laptop, [readID, readID])
        XCTAssertEqual(once.results.count, 2)
        XCTAssertTrue(once.results.allSatisfy { (try? $0.result.get()) != nil })
        let afterOnce = try await changes(laptop, since: fetched.token)

        let twice = try await markRead(phone, [readID])
        XCTAssertNotNil(try? twice.results.first?.result.get())
        let afterTwice = try await changes(laptop, since: afterOnce.token)
        XCTAssertEqual(afterOnce.notifications.map(\.kind), [.readNotification])
        XCTAssertEqual(afterTwice.notifications, [], "marking a read notification again changes nothing")
    }

    func testAnUnknownIDFailsAloneWithUnknownItem() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let fetched = try await changes(laptop, since: nil)
        let readID = try XCTUnwrap(fetched.notifications.first?.notificationID)
        let response = try await markRead(laptop, ["no-such-notification", readID])
        XCTAssertEqual(response.results.map(\.id), ["no-such-notification", readID])
        guard case .failure(let error) = response.results[0].result else { return XCTFail("an unknown ID was marked") }
        XCTAssertEqual(error.code, .unknownItem)
        XCTAssertNotNil(try? response.results[1].result.get())
    }

    func testMoreThanFourHundredIDsInOneRequestAreLimitExceeded() async throws {
        let ids = (0...400).map { "id-\($0)" }
        await assertThrowsWireError(.limitExceeded) { try await self.markRead(self.laptop, ids) }
        let four = try await markRead(laptop, Array(ids.prefix(400)))
        XCTAssertEqual(four.results.count, 400)
    }

    // MARK: - Badge

    func testTheBadgeIsSetAndReadBackAndBadgingNotificationsCountUpFromIt() async throws {
        try await subscribeToNewNotes(badge: true)
        try await phoneSaves(["a", "b"])
        XCTAssertEqual(server.badgeValue(account: "john", containerIdentifier: identifier), 2)
        try await setBadge(laptop, 0)
        XCTAssertEqual(server.badgeValue(account: "john", containerIdentifier: identifier), 0)
        try await phoneSaves(["c"])
        XCTAssertEqual(server.badgeValue(account: "john", containerIdentifier: identifier), 1)
        try await setBadge(phone, 7)
        XCTAssertEqual(server.badgeValue(account: "john", containerIdentifier: identifier), 7)
        XCTAssertEqual(server.badgeValue(account: "ann", containerIdentifier: identifier), 0)
    }

    func testANegativeBadgeIsInvalidArgumentsAndLeavesTheBadge() async throws {
        try await setBadge(laptop, 3)
        await assertThrowsWireError(.invalidArguments) { try await self.setBadge(self.laptop, -1) }
        XCTAssertEqual(server.badgeValue(account: "john", containerIdentifier: identifier), 3)
    }

    func testABadgeAtTheLargestIntegerStaysThereWhenANotificationBadges() async throws {
        try await subscribeToNewNotes(badge: true)
        try await setBadge(laptop, .max)
        try await phoneSaves(["a"])
        XCTAssertEqual(server.badgeValue(account: "john", containerIdentifier: identifier), .max)
    }

    // MARK: - Tokens

    func testATokenOlderThanTheKeptHistoryExpiresAndAFetchFromNilRecovers() async throws {
        server.notificationHistoryLimit = 4
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let old = try await changes(laptop, since: nil)
        try await phoneSaves(["b", "c", "d", "e", "f"])

        await assertThrowsWireError(.changeTokenExpired) { try await self.changes(self.laptop, since: old.token) }
        let recovered = try await changes(laptop, since: nil)
        // At least the newest 4 are kept, and at most a quarter more (see notificationHistoryLimit).
        let kept = recordNames(recovered)
        XCTAssertEqual(kept.suffix(4), ["c", "d", "e", "f"], "the newest notifications are kept")
        XCTAssertLessThanOrEqual(kept.count, 5)
        XCTAssertFalse(kept.contains("a"), "the oldest notification was dropped")
        let next = try await changes(laptop, since: recovered.token)
        XCTAssertEqual(next.notifications, [])
        // A dropped notification cannot be marked any more.
        let droppedID = try XCTUnwrap(old.notifications.first?.notificationID)
        let dropped = try await markRead(laptop, [droppedID])
        guard case .failure(let error) = dropped.results.first?.result else { return XCTFail("a dropped notification was marked") }
        XCTAssertEqual(error.code, .unknownItem)
    }

    func testEverySingleAlteredByteOfATokenIsInvalidArguments() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let token = try await changes(laptop, since: nil).token
        for index in token.indices {
            var altered = token
            altered[index] ^= 0x01
            await assertThrowsWireError(.invalidArguments) { try await self.changes(self.laptop, since: altered) }
        }
        for forged in [[], Array(token.dropLast()), token + [0], Array(repeating: 0, count: token.count)] as [[UInt8]] {
            await assertThrowsWireError(.invalidArguments) { try await self.changes(self.laptop, since: forged) }
        }
    }

    func testATokenOfAnotherAccountContainerServerOrChangeListIsInvalidArguments() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let johns = try await changes(laptop, since: nil).token
        let ann = device("ann")
        await assertThrowsWireError(.invalidArguments) { try await self.changes(ann, since: johns) }

        let otherContainer = server.container(identifier: "iCloud.com.example.other", account: "john")
        await assertThrowsWireError(.invalidArguments) { try await self.changes(otherContainer, since: johns) }

        let otherServer = CloudServer(clock: clock)
        let elsewhere = otherServer.container(identifier: identifier, account: "john")
        let foreign = try await otherServer.notificationChanges(WireNotificationChangesRequest(context: rawContext(elsewhere.privateCloudDatabase))).token
        await assertThrowsWireError(.invalidArguments) { try await self.changes(self.laptop, since: foreign) }

        let context = rawContext(laptop.privateCloudDatabase)
        let databaseToken = try await server.databaseChanges(WireDatabaseChangesRequest(context: context)).token
        let zoneToken = try await server.recordChanges(WireRecordChangesRequest(context: context, zoneID: WireZoneID(zoneName: "Notes"))).token
        for token in [databaseToken, zoneToken] {
            await assertThrowsWireError(.invalidArguments) { try await self.changes(self.laptop, since: token) }
        }
        // Nor is a notification token a database or zone token.
        await assertThrowsWireError(.invalidArguments) {
            try await self.server.databaseChanges(WireDatabaseChangesRequest(context: context, sinceToken: johns))
        }
        await assertThrowsWireError(.invalidArguments) {
            try await self.server.recordChanges(WireRecordChangesRequest(context: context, zoneID: WireZoneID(zoneName: "Notes"), sinceToken: johns))
        }
    }

    // MARK: - Accounts

    func testAnotherAccountNeitherSeesNorMarksThisAccountsNotifications() async throws {
        try await subscribeToNewNotes()
        try await phoneSaves(["a"])
        let johns = try await changes(laptop, since: nil)
        let readID = try XCTUnwrap(johns.notifications.first?.notificationID)
        let ann = device("ann")

        let annSees = try await changes(ann, since: nil)
        XCTAssertEqual(annSees.notifications, [])
        let annMarks = try await markRead(ann, [readID])
        guard case .failure(let error) = annMarks.results.first?.result else { return XCTFail("Ann marked John's notification") }
        XCTAssertEqual(error.code, .unknownItem)
        try await setBadge(ann, 5)

        let johnAfter = try await changes(laptop, since: johns.token)
        XCTAssertEqual(johnAfter.notifications, [], "Ann's requests changed nothing in John's collection")
        XCTAssertEqual(server.badgeValue(account: "john", containerIdentifier: identifier), 0)
        XCTAssertEqual(server.badgeValue(account: "ann", containerIdentifier: identifier), 5)
    }

    func testWithoutAnAccountEveryEndpointIsNotAuthenticated() async throws {
        let guest = device(nil)
        await assertThrowsWireError(.notAuthenticated) { try await self.changes(guest, since: nil) }
        await assertThrowsWireError(.notAuthenticated) { try await self.markRead(guest, ["x"]) }
        await assertThrowsWireError(.notAuthenticated) { try await self.setBadge(guest, 0) }
    }

    func testEachEndpointCallIsOneRequest() async throws {
        let before = server.requestCount
        _ = try await changes(laptop, since: nil)
        _ = try await markRead(laptop, ["x"])
        try await setBadge(laptop, 1)
        XCTAssertEqual(server.requestCount, before + 3)
    }
}
