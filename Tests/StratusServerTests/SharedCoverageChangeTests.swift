import Foundation
import Stratus
import XCTest

/// What a participant's next zone change fetch, from the token they kept, reports when records
/// leave or enter their share other than by a save of each: a parent deleted with its child
/// (in one request, or through a `deleteSelf` cascade), and a record moved out of the shared
/// hierarchy or back in, with the records below it. At the `CloudService` boundary.
final class SharedCoverageChangeTests: ShareTestCase {
    private var mary: CKDatabase!
    private var bob: CKDatabase!

    override func setUp() {
        super.setUp()
        mary = device("mary").sharedCloudDatabase
        bob = device("bob").sharedCloudDatabase
        server.setEmailAddress("mary@example.com", forAccount: "mary")
        server.setEmailAddress("bob@example.com", forAccount: "bob")
    }

    override func tearDown() {
        mary = nil
        bob = nil
        super.tearDown()
    }

    /// The Party zone as shared databases name it.
    private var sharedParty: WireZoneID {
        WireZoneID(zoneName: party.zoneName, ownerName: server.userRecordName(account: "john", containerIdentifier: identifier))
    }

    /// Accepts the share at `url` for the user of `database`.
    private func accept(_ url: String?, for database: CKDatabase) async throws {
        let url = try XCTUnwrap(url)
        let response = try await server.acceptShares(WireAcceptSharesRequest(context: rawContext(database), ids: [url]))
        _ = try XCTUnwrap(response.results.first).result.get()
    }

    /// The Party zone's changes for the user of `database` since `token`.
    private func changes(for database: CKDatabase, since token: [UInt8]?) async throws -> WireRecordChangesResponse {
        try await server.recordChanges(WireRecordChangesRequest(context: rawContext(database), zoneID: sharedParty, sinceToken: token))
    }

    /// John's "party" (shared with mary) with "ann" under it and "plus-one" under ann, and a
    /// "picnic" (shared with bob) with a "cake"; each accepted, and the zone fetched by each.
    private func twoShares() async throws -> (mary: [UInt8], bob: [UInt8]) {
        try await makeZone()
        try await modify([item("party"), item("ann", parent: "party"), item("plus-one", parent: "ann"), item("picnic"), item("cake", parent: "picnic")])
        let (_, partyShare) = try await shareRoot("party", participants: [invitee("mary@example.com")])
        let (_, picnicShare) = try await shareRoot("picnic", as: "picnic-share", participants: [invitee("bob@example.com")])
        try await accept(partyShare.shareInfo?.url, for: mary)
        try await accept(picnicShare.shareInfo?.url, for: bob)
        let marys = try await changes(for: mary, since: nil)
        let bobs = try await changes(for: bob, since: nil)
        XCTAssertEqual(Set(marys.changed.map(\.recordID.recordName)), ["party", "ann", "plus-one", "share"])
        return (marys.token, bobs.token)
    }

    private func changedNames(_ response: WireRecordChangesResponse) -> Set<String> {
        Set(response.changed.map(\.recordID.recordName))
    }

    private func deletedNames(_ response: WireRecordChangesResponse) -> Set<String> {
        Set(response.deleted.map(\.recordID.recordName))
    }

    func testAParentDeletedWithItsChildInOneRequestReachesTheParticipantAsTwoDeletions() async throws {
        let (token, _) = try await twoShares()

        let response = try await modify(deleting: ["ann", "plus-one"])
        XCTAssertEqual(response.deleteResults.count, 2)

        let later = try await changes(for: mary, since: token)
        XCTAssertEqual(deletedNames(later), ["ann", "plus-one"])
    }

    func testADeleteSelfCascadeReachesTheParticipantAsDeletions() async throws {
        let (token, _) = try await twoShares()
        var note = item("note", parent: "plus-one")
        note.record.fields["about"] = .reference(WireReference(recordID: WireRecordID(recordName: "plus-one", zoneID: party), action: .deleteSelf))
        try await modify([note])
        let withNote = try await changes(for: mary, since: token)
        XCTAssertTrue(changedNames(withNote).contains("note"))

        try await modify(deleting: ["plus-one"])

        let later = try await changes(for: mary, since: withNote.token)
        XCTAssertEqual(deletedNames(later), ["plus-one", "note"])
    }

    func testARecordMovedOutIsADeletionWithItsChildrenAndMovedBackAChangeWithoutExpiringTheToken() async throws {
        let (token, bobsToken) = try await twoShares()
        let ann = try await stored("ann")

        try await modify([item("ann", parent: "picnic", tag: ann.changeTag)])

        let out = try await changes(for: mary, since: token)
        XCTAssertEqual(deletedNames(out), ["ann", "plus-one"])
        XCTAssertFalse(changedNames(out).contains("ann"))
        let bobs = try await changes(for: bob, since: bobsToken)
        XCTAssertTrue(changedNames(bobs).isSuperset(of: ["ann", "plus-one"]), "they came into bob's share")
        XCTAssertEqual(deletedNames(bobs), [])

        let moved = try await stored("ann")
        try await modify([item("ann", parent: "party", tag: moved.changeTag)])

        let back = try await changes(for: mary, since: out.token)
        XCTAssertTrue(changedNames(back).isSuperset(of: ["ann", "plus-one"]))
        XCTAssertEqual(deletedNames(back), [])
        let bobsAfter = try await changes(for: bob, since: bobs.token)
        XCTAssertEqual(deletedNames(bobsAfter), ["ann", "plus-one"])
    }

    func testAMoveReachesTheRecordsBelowARecordTheSameRequestEdits() async throws {
        let (_, _) = try await twoShares()
        try await modify([item("guest", parent: "plus-one")])
        let token = try await changes(for: mary, since: nil).token
        let ann = try await stored("ann")
        let plusOne = try await stored("plus-one")

        try await modify([item("ann", parent: "picnic", tag: ann.changeTag), item("plus-one", tag: plusOne.changeTag, fields: ["note": .string("edited")])])

        let later = try await changes(for: mary, since: token)
        XCTAssertEqual(deletedNames(later), ["ann", "plus-one", "guest"])
    }

    func testARecordMovedOutChangesTheZoneInTheParticipantsDatabaseChanges() async throws {
        _ = try await twoShares()
        let before = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(mary)))
        let ann = try await stored("ann")

        try await modify([item("ann", parent: "picnic", tag: ann.changeTag)])

        let after = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(mary), sinceToken: before.token))
        XCTAssertEqual(after.changedZoneIDs, [sharedParty], "mary's copy of the zone has something to drop")
    }

    func testARecordThatLeftTheShareIsADeletionEvenWhenDeletedBeforeTheFetch() async throws {
        let (token, _) = try await twoShares()
        let plusOne = try await stored("plus-one")
        try await modify([item("plus-one", parent: "picnic", tag: plusOne.changeTag)])

        try await modify(deleting: ["plus-one"])

        let later = try await changes(for: mary, since: token)
        XCTAssertEqual(deletedNames(later), ["plus-one"])
    }

    func testARecordThatLeftIsReportedGoneOnceNotAgainAtEachLaterEdit() async throws {
        let (token, _) = try await twoShares()
        let ann = try await stored("ann")
        try await modify([item("ann", parent: "picnic", tag: ann.changeTag)])
        let out = try await changes(for: mary, since: token)
        XCTAssertEqual(deletedNames(out), ["ann", "plus-one"])
        let databaseToken = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(mary))).token

        let moved = try await stored("ann")
        try await modify([item("ann", tag: moved.changeTag, fields: ["note": .string("edited")])])
        try await modify(deleting: ["plus-one"])

        let later = try await changes(for: mary, since: out.token)
        XCTAssertEqual(deletedNames(later), [], "mary was told they left; their later changes are not hers to see")
        XCTAssertEqual(changedNames(later), [])
        let zones = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(mary), sinceToken: databaseToken))
        XCTAssertEqual(zones.changedZoneIDs, [], "nothing in mary's shared database changed")
        let fromBefore = try await changes(for: mary, since: token)
        XCTAssertEqual(deletedNames(fromBefore), ["ann", "plus-one"], "a token from before the move still learns they are gone")
    }
}
