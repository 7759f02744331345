import Foundation
import Stratus
import XCTest

/// Share metadata and acceptance at the `CloudService` boundary (`records/resolve`,
/// `records/accept`): how the server finds a share by URL, what accepting writes in the
/// owner's zone, how an invitation by address finds its account, the participant's shared
/// database and subscriptions, the public share's limit, and the request-level errors.
final class ShareAcceptServerTests: ShareTestCase {
    private var mary: CKDatabase!
    private var sam: CKDatabase!

    override func setUp() {
        super.setUp()
        mary = device("mary").privateCloudDatabase
        sam = device("sam").privateCloudDatabase
        server.setEmailAddress("mary@example.com", forAccount: "mary")
    }

    override func tearDown() {
        mary = nil
        sam = nil
        super.tearDown()
    }

    private func user(_ account: String) -> String {
        server.userRecordName(account: account, containerIdentifier: identifier)
    }

    /// The Party zone as shared databases name it.
    private var sharedParty: WireZoneID {
        WireZoneID(zoneName: party.zoneName, ownerName: user("john"))
    }

    /// One URL's metadata for the user of `database`.
    private func metadata(_ url: String, for database: CKDatabase, root: Bool = false, keys: [String]? = nil) async throws -> Result<WireShareMetadata, WireError> {
        let response = try await server.lookupShareMetadata(WireShareMetadataLookupRequest(
            context: rawContext(database), shareURLs: [url], shouldFetchRootRecord: root, rootRecordDesiredKeys: keys
        ))
        XCTAssertEqual(response.results.map(\.id), [url])
        return response.results.first?.result ?? .failure(WireError(.internalError, "no result"))
    }

    /// Accepts one URL for the user of `database`.
    private func accept(_ url: String, for database: CKDatabase) async throws -> Result<WireRecord, WireError> {
        let response = try await server.acceptShares(WireAcceptSharesRequest(context: rawContext(database), ids: [url]))
        XCTAssertEqual(response.results.map(\.id), [url])
        return response.results.first?.result ?? .failure(WireError(.internalError, "no result"))
    }

    private func failureCode<T>(_ result: Result<T, WireError>) -> CKErrorCode? {
        guard case .failure(let error) = result else { return nil }
        return error.code
    }

    /// The error code of one URL's metadata for the user of `database`; nil for a success.
    private func metadataCode(_ url: String, for database: CKDatabase) async throws -> CKErrorCode? {
        failureCode(try await metadata(url, for: database))
    }

    /// The error code of accepting one URL for the user of `database`; nil for a success.
    private func acceptCode(_ url: String, for database: CKDatabase) async throws -> CKErrorCode? {
        failureCode(try await accept(url, for: database))
    }

    /// Asserts that `body` throws a `WireError` with `code`.
    private func assertThrows(_ code: CKErrorCode, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> Void) async {
        do {
            try await body()
            XCTFail("expected \(code), got success", file: file, line: line)
        } catch let error as WireError {
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        } catch {
            XCTFail("expected \(code), got \(error)", file: file, line: line)
        }
    }

    /// The participants of the stored share named "share".
    private func storedParticipants() async throws -> [WireShareParticipant] {
        try await stored("share").shareInfo?.participants ?? []
    }

    /// John shares the record "party", inviting `participants`; the saved share's URL.
    private func sharedParty(inviting participants: [WireShareParticipant] = [], publicPermission: WireParticipantPermission = .none) async throws -> String {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: participants, publicPermission: publicPermission)
        return try XCTUnwrap(share.shareInfo?.url)
    }

    // MARK: - Accepting writes the share

    func testAcceptingIsAWriteOfTheShareInTheOwnersZoneHistory() async throws {
        let url = try await sharedParty(inviting: [invitee("mary@example.com", permission: .readWrite)])
        let before = try await server.recordChanges(WireRecordChangesRequest(context: rawContext(john), zoneID: party))
        let tagBefore = try await stored("share").changeTag

        let accepted = try await accept(url, for: mary).get()

        XCTAssertEqual(accepted.recordID, WireRecordID(recordName: "share", zoneID: sharedParty), "as in her shared database")
        let herself = try XCTUnwrap(accepted.shareInfo?.participants.first { $0.role == .privateUser })
        XCTAssertEqual(herself.identity.userRecordName, WireZoneID.currentUserOwnerName, "she finds herself as the current user")
        XCTAssertEqual(herself.acceptanceStatus, .accepted)
        XCTAssertEqual(herself.permission, .readWrite)

        let share = try await stored("share")
        XCTAssertNotEqual(share.changeTag, tagBefore)
        XCTAssertEqual(share.changeTag, accepted.changeTag)
        XCTAssertEqual(share.lastModifiedUserRecordName, user("mary"), "the accepting user changed the share")
        XCTAssertEqual(share.shareInfo?.participants.first { $0.role == .privateUser }?.identity.userRecordName, user("mary"))
        let after = try await server.recordChanges(WireRecordChangesRequest(context: rawContext(john), zoneID: party, sinceToken: before.token))
        XCTAssertEqual(after.changed.map(\.recordID.recordName), ["share"], "the acceptance is in the zone's history")
        XCTAssertEqual(after.changed.first?.changeTag, share.changeTag)
    }

    func testAnInvitationByAnAddressNoAccountHadIsTakenByTheAccountThatNowHasIt() async throws {
        let url = try await sharedParty(inviting: [invitee("lee@example.com")])
        let invited = try await storedParticipants()
        XCTAssertNil(invited.last?.identity.userRecordName, "no account had the address")
        server.setEmailAddress("Lee@Example.com ", forAccount: "lee")
        let lee = device("lee").privateCloudDatabase

        let seen = try await metadata(url, for: lee).get()
        XCTAssertEqual(seen.participantRole, .privateUser)
        XCTAssertEqual(seen.participantStatus, .pending)
        XCTAssertEqual(seen.share.shareInfo?.participants.last?.identity.userRecordName, WireZoneID.currentUserOwnerName, "the invitation by her address reads as hers")
        let looked = try await storedParticipants()
        XCTAssertNil(looked.last?.identity.userRecordName, "looking changes nothing")

        _ = try await accept(url, for: lee).get()

        let afterwards = try await storedParticipants()
        let invitation = try XCTUnwrap(afterwards.last)
        XCTAssertEqual(invitation.identity.userRecordName, user("lee"), "from now on the share names her account")
        XCTAssertTrue(invitation.identity.hasiCloudAccount)
        XCTAssertEqual(invitation.acceptanceStatus, .accepted)
        let leesShared = device("lee").sharedCloudDatabase
        let changes = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(leesShared)))
        XCTAssertEqual(changes.changedZoneIDs, [sharedParty])
    }

    func testTheOwnersLaterSaveKeepsTheAcceptance() async throws {
        let url = try await sharedParty(inviting: [invitee("mary@example.com")])
        _ = try await accept(url, for: mary).get()
        let current = try await stored("share")

        let response = try await modify([share(participants: current.shareInfo?.participants ?? [], tag: current.changeTag, fields: ["title": .string("Renamed")])])
        let resaved = try saved(response, 0)

        XCTAssertEqual(resaved.shareInfo?.participants.first { $0.role == .privateUser }?.acceptanceStatus, .accepted)
    }

    // MARK: - The shared database

    func testTheParticipantsSharedDatabaseReportsTheOwnersZoneByItsOwnersName() async throws {
        let url = try await sharedParty(inviting: [invitee("mary@example.com")])
        let marysShared = device("mary").sharedCloudDatabase
        let empty = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(marysShared)))
        XCTAssertTrue(empty.changedZoneIDs.isEmpty, "looking at metadata shares nothing")
        _ = try await metadata(url, for: mary).get()
        let stillEmpty = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(marysShared), sinceToken: empty.token))
        XCTAssertTrue(stillEmpty.changedZoneIDs.isEmpty)

        _ = try await accept(url, for: mary).get()

        let changes = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(marysShared), sinceToken: empty.token))
        XCTAssertEqual(changes.changedZoneIDs, [sharedParty])
        let samsShared = device("sam").sharedCloudDatabase
        let sams = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(samsShared)))
        XCTAssertTrue(sams.changedZoneIDs.isEmpty, "nothing of john's zone reaches anyone else")
    }

    func testAnotherAcceptanceIsAChangeOfTheZoneForThoseWhoAlreadySeeIt() async throws {
        server.setEmailAddress("ann@example.com", forAccount: "ann")
        let url = try await sharedParty(inviting: [invitee("mary@example.com"), invitee("ann@example.com")])
        let marysShared = device("mary").sharedCloudDatabase
        _ = try await accept(url, for: mary).get()
        let seen = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(marysShared)))
        XCTAssertEqual(seen.changedZoneIDs, [sharedParty])

        let ann = device("ann").privateCloudDatabase
        _ = try await accept(url, for: ann).get()

        let changes = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(marysShared), sinceToken: seen.token))
        XCTAssertEqual(changes.changedZoneIDs, [sharedParty], "the share she sees changed")
        let zoneChanges = try await server.recordChanges(WireRecordChangesRequest(context: rawContext(marysShared), zoneID: sharedParty))
        let share = try XCTUnwrap(zoneChanges.changed.first { $0.recordID.recordName == "share" })
        XCTAssertEqual(share.shareInfo?.participants.filter { $0.acceptanceStatus == .accepted }.count, 3, "the owner, mary and ann")
    }

    func testAcceptingFiresTheOwnersSubscriptionsAndTheParticipantsDatabaseSubscription() async throws {
        let url = try await sharedParty(inviting: [invitee("mary@example.com")])
        let info = WireNotificationInfo(shouldSendContentAvailable: true)
        let marysShared = device("mary").sharedCloudDatabase
        _ = try await server.modifySubscriptions(WireSubscriptionsModifyRequest(context: rawContext(john), saves: [WireSubscription(subscriptionID: "johns", kind: .database, notificationInfo: info)]))
        _ = try await server.modifySubscriptions(WireSubscriptionsModifyRequest(context: rawContext(marysShared), saves: [WireSubscription(subscriptionID: "marys", kind: .database, notificationInfo: info)]))
        let johnsBefore = try await server.notificationChanges(WireNotificationChangesRequest(context: rawContext(john)))
        let marysBefore = try await server.notificationChanges(WireNotificationChangesRequest(context: rawContext(marysShared)))

        _ = try await accept(url, for: mary).get()

        let johns = try await server.notificationChanges(WireNotificationChangesRequest(context: rawContext(john), sinceToken: johnsBefore.token))
        XCTAssertEqual(johns.notifications.map(\.subscriptionID), ["johns"], "the owner's zone changed")
        let marys = try await server.notificationChanges(WireNotificationChangesRequest(context: rawContext(marysShared), sinceToken: marysBefore.token))
        XCTAssertEqual(marys.notifications.map(\.subscriptionID), ["marys"], "a zone appeared in her shared database")
        XCTAssertEqual(marys.notifications.first?.databaseScope, .shared)
    }

    // MARK: - Finding shares by URL

    func testAShareDeletedAndMadeAgainForTheSameRootAnswersAtTheSameURL() async throws {
        let url = try await sharedParty(inviting: [invitee("mary@example.com")])
        _ = try await metadata(url, for: mary).get()
        try await modify(deleting: ["share"])
        let stopped = try await metadataCode(url, for: mary)
        XCTAssertEqual(stopped, .unknownItem, "the owner stopped sharing")

        let again = try await shareRoot("party", as: "share2", participants: [invitee("mary@example.com")])

        XCTAssertEqual(again.share.shareInfo?.url, url)
        let seen = try await metadata(url, for: mary).get()
        XCTAssertEqual(seen.share.recordID.recordName, "share2")
        XCTAssertEqual(seen.hierarchicalRootRecordID, WireRecordID(recordName: "party", zoneID: sharedParty))
    }

    func testADeletedZoneTakesItsSharesURLsWithIt() async throws {
        let url = try await sharedParty(inviting: [invitee("mary@example.com")])
        _ = try await metadata(url, for: mary).get()

        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(john), deletes: [party]))

        let seen = try await metadataCode(url, for: mary)
        let accepted = try await acceptCode(url, for: mary)
        XCTAssertEqual(seen, .unknownItem)
        XCTAssertEqual(accepted, .unknownItem)
    }

    func testTheRootRecordIsShownAsTheParticipantSeesIt() async throws {
        try await makeZone()
        try await modify([item("party", fields: ["title": .string("Bash"), "secret": .string("cake")])])
        let (_, share) = try await shareRoot("party", participants: [invitee("mary@example.com")])
        let url = try XCTUnwrap(share.shareInfo?.url)

        let seen = try await metadata(url, for: mary, root: true, keys: ["title"]).get()

        let root = try XCTUnwrap(seen.rootRecord)
        XCTAssertEqual(root.recordID, WireRecordID(recordName: "party", zoneID: sharedParty))
        XCTAssertEqual(root.fields, ["title": .string("Bash")])
        XCTAssertEqual(root.share?.recordID, WireRecordID(recordName: "share", zoneID: sharedParty))
        XCTAssertEqual(seen.ownerIdentity.userRecordName, user("john"))
    }

    // MARK: - Public shares

    func testAFullPublicShareRefusesAnotherPublicUserWithTooManyParticipants() async throws {
        let url = try await sharedParty(publicPermission: .readWrite)
        for index in 1..<WireShareRules.maximumParticipants {
            let joined = try await accept(url, for: device("guest\(index)").privateCloudDatabase).get()
            XCTAssertEqual(joined.shareInfo?.participants.count, index + 1)
        }

        let refused = try await acceptCode(url, for: sam)
        XCTAssertEqual(refused, .tooManyParticipants)
        let participants = try await storedParticipants()
        XCTAssertEqual(participants.count, WireShareRules.maximumParticipants)
        let first = try await metadata(url, for: device("guest1").privateCloudDatabase).get()
        XCTAssertEqual(first.participantStatus, .accepted, "those who joined stay")
    }

    // MARK: - The requests

    func testTheEndpointsAreRecordedUnderCloudKitWebServicesNames() async throws {
        let url = try await sharedParty(inviting: [invitee("mary@example.com")])
        _ = try await metadata(url, for: mary)
        XCTAssertEqual(server.requestLog.last?.endpoint, .lookupShareMetadata)
        _ = try await accept(url, for: mary)
        XCTAssertEqual(server.requestLog.last?.endpoint, .acceptShares)
        XCTAssertEqual(RecordedRequest.Endpoint.lookupShareMetadata.subpath, "records/resolve")
        XCTAssertEqual(RecordedRequest.Endpoint.acceptShares.subpath, "records/accept")
    }

    func testTooManyURLsOrNoAccountFailTheWholeRequest() async throws {
        let urls = Array(repeating: ShareRulesURL.unknown, count: WireLimits.maximumItemsPerRequest + 1)
        await assertThrows(.limitExceeded) {
            _ = try await self.server.lookupShareMetadata(WireShareMetadataLookupRequest(context: self.rawContext(self.mary), shareURLs: urls))
        }
        await assertThrows(.limitExceeded) {
            _ = try await self.server.acceptShares(WireAcceptSharesRequest(context: self.rawContext(self.mary), ids: urls))
        }
        let guest = device(nil).privateCloudDatabase
        await assertThrows(.notAuthenticated) {
            _ = try await self.server.lookupShareMetadata(WireShareMetadataLookupRequest(context: self.rawContext(guest), shareURLs: [ShareRulesURL.unknown]))
        }
        await assertThrows(.notAuthenticated) {
            _ = try await self.server.acceptShares(WireAcceptSharesRequest(context: self.rawContext(guest), ids: [ShareRulesURL.unknown]))
        }
    }

    func testAnythingButAShareURLIsUnknownItem() async throws {
        _ = try await sharedParty(inviting: [invitee("mary@example.com")])
        for url in [ShareRulesURL.unknown, "", "https://example.com/share/abc", "not a url"] {
            let seen = try await metadataCode(url, for: mary)
            let accepted = try await acceptCode(url, for: mary)
            XCTAssertEqual(seen, .unknownItem, url)
            XCTAssertEqual(accepted, .unknownItem, url)
        }
    }
}

/// URLs no share has.
private enum ShareRulesURL {
    static let unknown = "https://www.icloud.com/share/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
}
