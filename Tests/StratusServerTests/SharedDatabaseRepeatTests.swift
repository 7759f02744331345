import Foundation
import Stratus
import XCTest

/// A modify resent to a shared database with the same `clientChangeTokenData` is answered as a
/// repeat only for the records the caller's shares cover; any other item is applied as a new
/// request, under the sharing rules, so a resend never shows a participant a record outside
/// their share, nor anything once they have left it. At the `CloudService` boundary.
final class SharedDatabaseRepeatTests: ShareTestCase {
    private var bob: CKDatabase!

    override func setUp() {
        super.setUp()
        bob = device("bob").sharedCloudDatabase
        server.setEmailAddress("bob@example.com", forAccount: "bob")
    }

    override func tearDown() {
        bob = nil
        super.tearDown()
    }

    /// The Party zone as shared databases name it.
    private var sharedParty: WireZoneID {
        WireZoneID(zoneName: party.zoneName, ownerName: server.userRecordName(account: "john", containerIdentifier: identifier))
    }

    /// John's "party", shared read-write with bob (who accepted), and "secret" beside it, outside
    /// the share. Returns the share as saved.
    @discardableResult
    private func partySharedWithBob() async throws -> WireRecord {
        try await makeZone()
        try await modify([item("secret", fields: ["text": .string("john's eyes only")])])
        let (_, share) = try await shareRoot("party", participants: [invitee("bob@example.com", permission: .readWrite)])
        let url = try XCTUnwrap(share.shareInfo?.url)
        let accepted = try await server.acceptShares(WireAcceptSharesRequest(context: rawContext(bob), ids: [url]))
        _ = try XCTUnwrap(accepted.results.first).result.get()
        return share
    }

    /// Sends bob's modify to his shared database with `token`.
    private func bobSends(_ saves: [WireRecordSave], deleting deletes: [String] = [], token: Data) async throws -> WireRecordsModifyResponse {
        try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(bob),
            saves: saves,
            deletes: deletes.map { WireRecordID(recordName: $0, zoneID: sharedParty) },
            clientChangeTokenData: token
        ))
    }

    func testAResentSaveOfACoveredRecordIsAnsweredWithTheRecordAndWrittenOnce() async throws {
        try await partySharedWithBob()
        let note = item("note", zone: sharedParty, parent: "party", fields: ["text": .string("hi")])
        let first = try saved(try await bobSends([note], token: Data([1])), 0)
        let again = try saved(try await bobSends([note], token: Data([1])), 0)
        XCTAssertEqual(again.changeTag, first.changeTag, "the repeat wrote nothing")
    }

    func testAResentTokenDoesNotAnswerARecordOutsideTheShare() async throws {
        try await partySharedWithBob()
        _ = try saved(try await bobSends([item("note", zone: sharedParty, parent: "party")], token: Data([1])), 0)

        let probe = try await bobSends([item("secret", zone: sharedParty)], token: Data([1]))

        guard case .failure(let error)? = probe.saveResults.first?.result else {
            return XCTFail("a record outside bob's share was answered to him")
        }
        XCTAssertEqual(error.code, .permissionFailure, "answered as any save of a record outside the share")
        XCTAssertNil(error.serverRecord)
        let secret = try await stored("secret")
        XCTAssertEqual(secret.fields["text"], .string("john's eyes only"), "nothing written either")
    }

    func testAResentTokenShowsNothingOnceTheParticipantIsRemoved() async throws {
        let share = try await partySharedWithBob()
        let note = item("note", zone: sharedParty, parent: "party")
        _ = try saved(try await bobSends([note], token: Data([1])), 0)
        let current = try await stored(share.recordID.recordName)
        let owners = current.shareInfo?.participants.filter { $0.role == .owner } ?? []
        _ = try saved(try await modify([self.share(participants: owners, tag: current.changeTag)]), 0)

        let probe = try await bobSends([note, item("secret", zone: sharedParty)], deleting: ["party"], token: Data([1]))

        for result in probe.saveResults {
            guard case .failure(let error) = result.result else { return XCTFail("\(result.id.recordName) was answered to a removed participant") }
            XCTAssertNil(error.serverRecord)
        }
        guard case .failure? = probe.deleteResults.first?.result else { return XCTFail("a removed participant's delete was answered as done") }
        let party = try await fetch("party")
        XCTAssertNotNil(party)
    }
}
