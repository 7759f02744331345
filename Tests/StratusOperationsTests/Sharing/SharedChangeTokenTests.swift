import Foundation
import Stratus
import XCTest

/// A participant's change token for a shared zone holds only while their shares of the zone
/// stay the same: when a share of theirs is added to the zone or taken away, what they may see
/// changed in ways the zone's change history does not tell, and the old token is
/// `changeTokenExpired` (fetch again from nil), as CloudKit answers for a history it cannot
/// continue. A record moved into or out of a shared hierarchy (taking the records below it
/// along) keeps the token: the next fetch from it reports the records as changed or deleted.
final class SharedChangeTokenTests: SharedDatabaseTestCase {
    /// John's zone with the party (ann, ben) shared read-write with mary, and a picnic with a
    /// cake under it, not shared yet; mary accepted the party and fetched the zone.
    private func setUpTwoRoots() async throws -> (party: CKShare, token: CKServerChangeToken) {
        try await seedParty()
        try await seedPicnic()
        let party = try await share(with: ["mary@example.com"])
        try await accept(party.url, as: mary)
        let first = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: try await sharedZoneID(), since: nil)
        XCTAssertFalse(first.modificationResultsByID.keys.contains { $0.recordName == "cake" })
        return (party, first.changeToken)
    }

    private func names(_ changes: (modificationResultsByID: [CKRecord.ID: Result<CKDatabase.RecordZoneChange.Modification, any Error>], deletions: [CKDatabase.RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool)) -> Set<String> {
        Set(changes.modificationResultsByID.keys.map(\.recordName))
    }

    func testANewShareOfTheZoneExpiresTheParticipantsToken() async throws {
        let (_, token) = try await setUpTwoRoots()
        let picnicShare = try await share("picnic", with: ["mary@example.com"])
        try await accept(picnicShare.url, as: mary)
        let zone = try await sharedZoneID()

        // The cake was there before the token: continuing from it would never bring it.
        await assertCKError(.changeTokenExpired) { _ = try await self.mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: token) }
        let fresh = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: nil)
        XCTAssertTrue(names(fresh).isSuperset(of: ["party", "ann", "ben", "picnic", "cake"]))
    }

    func testLosingOneOfTwoSharesExpiresTheParticipantsToken() async throws {
        let (_, _) = try await setUpTwoRoots()
        let picnicShare = try await share("picnic", with: ["mary@example.com"])
        try await accept(picnicShare.url, as: mary)
        let zone = try await sharedZoneID()
        let both = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: nil)
        XCTAssertTrue(names(both).contains("cake"))

        _ = try await john.privateCloudDatabase.modifyRecords(saving: [], deleting: [picnicShare.recordID])

        // Mary still sees the zone through the party, but no longer the picnic, and nothing in
        // the zone's history after her token says so.
        await assertCKError(.changeTokenExpired) { _ = try await self.mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: both.changeToken) }
        let fresh = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: nil)
        XCTAssertFalse(names(fresh).contains("cake"))
        XCTAssertTrue(names(fresh).contains("ann"))
    }

    func testBeingRemovedFromOneOfTwoSharesExpiresTheParticipantsToken() async throws {
        let (_, _) = try await setUpTwoRoots()
        let picnicShare = try await share("picnic", with: ["mary@example.com"])
        try await accept(picnicShare.url, as: mary)
        let zone = try await sharedZoneID()
        let both = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: nil)

        let fetched = try await john.privateCloudDatabase.record(for: picnicShare.recordID)
        let current = try XCTUnwrap(fetched as? CKShare)
        current.removeParticipant(try XCTUnwrap(current.participants.first { $0.role != .owner }))
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [current], deleting: [])

        await assertCKError(.changeTokenExpired) { _ = try await self.mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: both.changeToken) }
    }

    func testMovingARecordIntoTheShareReportsItAndTheRecordsBelowItFromTheKeptToken() async throws {
        let (_, token) = try await setUpTwoRoots()
        let zone = try await sharedZoneID()

        // The picnic moves under the party with its cake, which was saved long before.
        let picnic = try await john.privateCloudDatabase.record(for: recordID("picnic"))
        picnic.parent = CKRecord.Reference(recordID: recordID("party"), action: .none)
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [picnic], deleting: [])

        let later = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: token)
        XCTAssertTrue(names(later).isSuperset(of: ["picnic", "cake"]))
        XCTAssertEqual(later.deletions.map(\.recordID.recordName), [])
    }

    func testMovingARecordOutOfTheShareReportsItAndTheRecordsBelowItAsDeletedThenBackAsChanged() async throws {
        let (_, token) = try await setUpTwoRoots()
        let zone = try await sharedZoneID()
        let plusOne = CKRecord(recordType: "Attendee", recordID: recordID("plus-one"))
        plusOne.parent = CKRecord.Reference(recordID: recordID("ann"), action: .none)
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [plusOne], deleting: [])
        let withPlusOne = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: token)
        XCTAssertTrue(names(withPlusOne).contains("plus-one"))

        // Ann leaves the party for the picnic, which mary does not see, taking her plus-one.
        let ann = try await john.privateCloudDatabase.record(for: recordID("ann"))
        ann.parent = CKRecord.Reference(recordID: recordID("picnic"), action: .none)
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [ann], deleting: [])

        let out = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: withPlusOne.changeToken)
        XCTAssertEqual(Set(out.deletions.map(\.recordID.recordName)), ["ann", "plus-one"])
        XCTAssertFalse(names(out).contains("ann"))
        await assertCKError(.unknownItem) { _ = try await self.mary.sharedCloudDatabase.record(for: CKRecord.ID(recordName: "ann", zoneID: zone)) }

        // Back under the party: both are reported again.
        let moved = try await john.privateCloudDatabase.record(for: recordID("ann"))
        moved.parent = CKRecord.Reference(recordID: recordID("party"), action: .none)
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [moved], deleting: [])

        let back = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: out.changeToken)
        XCTAssertTrue(names(back).isSuperset(of: ["ann", "plus-one"]))
        XCTAssertEqual(back.deletions.map(\.recordID.recordName), [])
    }

    func testTheTokenHoldsWhileTheParticipantsSharesStayTheSame() async throws {
        let (party, token) = try await setUpTwoRoots()
        let zone = try await sharedZoneID()

        // Writes, a permission change, another account joining and a share of the zone that
        // is not mary's change nothing she may see beyond what the history tells.
        let ann = try await john.privateCloudDatabase.record(for: recordID("ann"))
        ann["name"] = "Ann Marie"
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [ann], deleting: [recordID("ben")])
        let fetched = try await john.privateCloudDatabase.record(for: party.recordID)
        let current = try XCTUnwrap(fetched as? CKShare)
        current.participants.first { $0.role != .owner }?.permission = .readOnly
        let bob = try await john.shareParticipant(forEmailAddress: "bob@example.com")
        current.addParticipant(bob)
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [current], deleting: [])
        try await accept(party.url, as: self.bob)
        let picnicShare = try await share("picnic", with: ["bob@example.com"])
        try await accept(picnicShare.url, as: self.bob)

        let later = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: token)
        XCTAssertTrue(names(later).contains("ann"))
        XCTAssertFalse(names(later).contains("cake"), "the picnic is bob's, not mary's")
        XCTAssertEqual(later.deletions.map(\.recordID.recordName), ["ben"])
    }
}
