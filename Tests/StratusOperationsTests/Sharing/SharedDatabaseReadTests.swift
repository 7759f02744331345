import Foundation
import Stratus
import XCTest

/// What a participant's shared database shows: the owner's zone once they accepted, the
/// records their share covers, and nothing else of the owner's.
final class SharedDatabaseReadTests: SharedDatabaseTestCase {
    func testAnAcceptedShareBringsTheOwnersZoneIntoTheSharedDatabase() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        let sharedZoneID = try await sharedZoneID()
        let before = try await mary.sharedCloudDatabase.allRecordZones()
        XCTAssertTrue(before.isEmpty, "nothing before accepting")

        try await accept(share.url, as: mary)

        let zones = try await mary.sharedCloudDatabase.allRecordZones()
        XCTAssertEqual(zones.map(\.zoneID), [sharedZoneID])
        let zone = try await mary.sharedCloudDatabase.recordZone(for: sharedZoneID)
        XCTAssertEqual(zone.zoneID.ownerName, sharedZoneID.ownerName, "the zone is named by its owner")
        let bobsZones = try await bob.sharedCloudDatabase.allRecordZones()
        XCTAssertTrue(bobsZones.isEmpty, "bob was not invited")
        let johnsZones = try await john.sharedCloudDatabase.allRecordZones()
        XCTAssertTrue(johnsZones.isEmpty, "an owner's own zones are not in their shared database")
    }

    func testTheParticipantReadsWhatTheShareCoversAndNothingElse() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let sharedZoneID = try await sharedZoneID()
        let shared = { (name: String) in CKRecord.ID(recordName: name, zoneID: sharedZoneID) }

        let party = try await mary.sharedCloudDatabase.record(for: shared("party"))
        XCTAssertEqual(party["title"] as? String, "Big Top Bash")
        XCTAssertEqual(party.recordID.zoneID, sharedZoneID)
        XCTAssertEqual(party.share?.recordID.recordName, share.recordID.recordName)
        let ann = try await mary.sharedCloudDatabase.record(for: shared("ann"))
        XCTAssertEqual(ann.parent?.recordID, shared("party"), "references name the owner's zone as the participant sees it")
        let fetchedShare = try await mary.sharedCloudDatabase.record(for: shared(share.recordID.recordName))
        XCTAssertNotNil(fetchedShare as? CKShare)

        await assertCKError(.unknownItem) { _ = try await self.mary.sharedCloudDatabase.record(for: shared("diary")) }
        await assertCKError(.unknownItem) { _ = try await self.mary.sharedCloudDatabase.record(for: shared("nobody")) }
        await assertCKError(.zoneNotFound) { _ = try await self.bob.sharedCloudDatabase.record(for: shared("party")) }
        let guessed = CKRecord.ID(recordName: "party", zoneID: CKRecordZone.ID(zoneName: "Secret", ownerName: sharedZoneID.ownerName))
        await assertCKError(.zoneNotFound) { _ = try await self.mary.sharedCloudDatabase.record(for: guessed) }
        let ownZone = CKRecord.ID(recordName: "party", zoneID: CKRecordZone.ID(zoneName: "Parties", ownerName: CKCurrentUserDefaultName))
        await assertCKError(.invalidArguments) { _ = try await self.mary.sharedCloudDatabase.record(for: ownZone) }
    }

    func testChangesOfTheSharedZoneBringOnlyCoveredRecords() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let sharedZoneID = try await sharedZoneID()

        let database = try await mary.sharedCloudDatabase.databaseChanges(since: nil)
        XCTAssertEqual(database.modifications.map(\.zoneID), [sharedZoneID])
        let changes = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: sharedZoneID, since: nil)
        let names = Set(changes.modificationResultsByID.keys.map(\.recordName))
        XCTAssertEqual(names, ["party", "ann", "ben", share.recordID.recordName])
        XCTAssertTrue(changes.deletions.isEmpty)

        // John deletes an attendee and his diary: mary learns of the attendee only.
        let beforeDatabase = database.changeToken
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [], deleting: [recordID("ben"), recordID("diary")])
        let later = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: sharedZoneID, since: changes.changeToken)
        XCTAssertEqual(later.deletions.map(\.recordID.recordName), ["ben"])
        XCTAssertTrue(later.modificationResultsByID.isEmpty || later.modificationResultsByID.keys.allSatisfy { $0.recordName == "party" })
        let databaseLater = try await mary.sharedCloudDatabase.databaseChanges(since: beforeDatabase)
        XCTAssertEqual(databaseLater.modifications.map(\.zoneID), [sharedZoneID], "the owner's write shows as a change of the zone")

        await assertCKError(.invalidArguments) { _ = try await self.bob.sharedCloudDatabase.recordZoneChanges(inZoneWith: sharedZoneID, since: changes.changeToken) }
    }

    func testRemovingTheParticipantTakesTheZoneAway() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let sharedZoneID = try await sharedZoneID()
        let first = try await mary.sharedCloudDatabase.databaseChanges(since: nil)

        let fetched = try await john.privateCloudDatabase.record(for: share.recordID)
        let current = try XCTUnwrap(fetched as? CKShare)
        let maryParticipant = try XCTUnwrap(current.participants.first { $0.role != .owner })
        current.removeParticipant(maryParticipant)
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [current], deleting: [])

        let after = try await mary.sharedCloudDatabase.databaseChanges(since: first.changeToken)
        XCTAssertEqual(after.deletions.map(\.zoneID), [sharedZoneID])
        await assertCKError(.zoneNotFound) { _ = try await self.mary.sharedCloudDatabase.record(for: CKRecord.ID(recordName: "party", zoneID: sharedZoneID)) }
        let zones = try await mary.sharedCloudDatabase.allRecordZones()
        XCTAssertTrue(zones.isEmpty)
    }

    func testDeletingTheShareTakesTheZoneAway() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let sharedZoneID = try await sharedZoneID()
        let first = try await mary.sharedCloudDatabase.databaseChanges(since: nil)

        _ = try await john.privateCloudDatabase.modifyRecords(saving: [], deleting: [share.recordID])

        let after = try await mary.sharedCloudDatabase.databaseChanges(since: first.changeToken)
        XCTAssertEqual(after.deletions.map(\.zoneID), [sharedZoneID])
    }

    func testDeletingTheZoneTakesItAway() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let sharedZoneID = try await sharedZoneID()
        let first = try await mary.sharedCloudDatabase.databaseChanges(since: nil)

        _ = try await john.privateCloudDatabase.modifyRecordZones(saving: [], deleting: [zoneID])

        let after = try await mary.sharedCloudDatabase.databaseChanges(since: first.changeToken)
        XCTAssertEqual(after.deletions.map(\.zoneID), [sharedZoneID])
        await assertCKError(.zoneNotFound) { _ = try await self.mary.sharedCloudDatabase.recordZone(for: sharedZoneID) }
    }
}
