import Foundation
import Stratus
import XCTest

/// Writing through the shared database: what a participant's permission lets them change in
/// the owner's zone, and what it does not.
final class SharedDatabaseWriteTests: SharedDatabaseTestCase {
    private func sharedID(_ name: String) async throws -> CKRecord.ID {
        CKRecord.ID(recordName: name, zoneID: try await sharedZoneID())
    }

    func testAReadWriteParticipantAddsAndEditsRecordsUnderTheSharedRoot() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"], permission: .readWrite)
        try await accept(share.url, as: mary)
        let partyID = try await sharedID("party")

        let cleo = CKRecord(recordType: "Attendee", recordID: try await sharedID("cleo"))
        cleo["name"] = "Cleo"
        cleo.parent = CKRecord.Reference(recordID: partyID, action: .none)
        let party = try await mary.sharedCloudDatabase.record(for: partyID)
        party["title"] = "Bigger Top Bash"
        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [cleo, party], deleting: [])
        let savedCleo = try XCTUnwrap(try saves[cleo.recordID]?.get())
        XCTAssertEqual(savedCleo.recordID.zoneID, partyID.zoneID, "results name the zone as the participant does")

        let johnsCleo = try await john.privateCloudDatabase.record(for: recordID("cleo"))
        XCTAssertEqual(johnsCleo["name"] as? String, "Cleo")
        XCTAssertEqual(johnsCleo.parent?.recordID, recordID("party"), "the owner sees the parent in his own zone")
        let marysUser = try await mary.userRecordID()
        XCTAssertEqual(johnsCleo.creatorUserRecordID?.recordName, marysUser.recordName)
        let johnsParty = try await john.privateCloudDatabase.record(for: recordID("party"))
        XCTAssertEqual(johnsParty["title"] as? String, "Bigger Top Bash")
    }

    func testAParticipantCannotWriteOutsideTheShare() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"], permission: .readWrite)
        try await accept(share.url, as: mary)

        let loose = CKRecord(recordType: "Attendee", recordID: try await sharedID("loose"))
        let underDiary = CKRecord(recordType: "Note", recordID: try await sharedID("note"))
        underDiary.parent = CKRecord.Reference(recordID: try await sharedID("diary"), action: .none)
        let overwrite = CKRecord(recordType: "Diary", recordID: try await sharedID("diary"))
        overwrite["text"] = "mine now"
        let diaryID = try await sharedID("diary")
        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [loose, underDiary, overwrite], deleting: [], atomically: false)
        let (_, deletes) = try await mary.sharedCloudDatabase.modifyRecords(saving: [], deleting: [diaryID], atomically: false)

        for record in [loose, underDiary, overwrite] {
            XCTAssertEqual(code(of: saves[record.recordID]), .permissionFailure, record.recordID.recordName)
        }
        XCTAssertEqual(code(of: deletes[diaryID]), .unknownItem, "an unshared record reads as missing")
        let diary = try await john.privateCloudDatabase.record(for: recordID("diary"))
        XCTAssertEqual(diary["text"] as? String, "not for anyone else", "nothing of the owner's changed")
    }

    func testAReadOnlyParticipantIsRefusedEveryWrite() async throws {
        try await seedParty()
        let share = try await share(with: ["bob@example.com"], permission: .readOnly)
        try await accept(share.url, as: bob)
        let partyID = try await sharedID("party")
        let party = try await bob.sharedCloudDatabase.record(for: partyID)
        party["title"] = "Bob's party"
        let extra = CKRecord(recordType: "Attendee", recordID: try await sharedID("dan"))
        extra.parent = CKRecord.Reference(recordID: partyID, action: .none)

        let annID = try await sharedID("ann")
        let (saves, deletes) = try await bob.sharedCloudDatabase.modifyRecords(saving: [party, extra], deleting: [annID], atomically: false)

        XCTAssertEqual(code(of: saves[party.recordID]), .permissionFailure)
        XCTAssertEqual(code(of: saves[extra.recordID]), .permissionFailure)
        XCTAssertEqual(code(of: deletes[annID]), .permissionFailure)
        let johnsParty = try await john.privateCloudDatabase.record(for: recordID("party"))
        XCTAssertEqual(johnsParty["title"] as? String, "Big Top Bash")
    }

    func testAParticipantCannotSaveTheShareButLeavesItByDeletingIt() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"], permission: .readWrite)
        try await accept(share.url, as: mary)
        let shareID = try await sharedID(share.recordID.recordName)
        let fetchedShare = try await mary.sharedCloudDatabase.record(for: shareID)
        let marysShare = try XCTUnwrap(fetchedShare as? CKShare)
        marysShare.publicPermission = .readWrite
        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [marysShare], deleting: [], atomically: false)
        XCTAssertEqual(code(of: saves[shareID]), .permissionFailure)
        let first = try await mary.sharedCloudDatabase.databaseChanges(since: nil)

        let (_, deletes) = try await mary.sharedCloudDatabase.modifyRecords(saving: [], deleting: [shareID])

        XCTAssertNil(code(of: deletes[shareID]), "leaving succeeds")
        let johnsFetched = try await john.privateCloudDatabase.record(for: share.recordID)
        let johnsShare = try XCTUnwrap(johnsFetched as? CKShare)
        XCTAssertEqual(johnsShare.participants.map(\.role), [.owner], "mary left; the share stays")
        let after = try await mary.sharedCloudDatabase.databaseChanges(since: first.changeToken)
        let zone = try await sharedZoneID()
        XCTAssertEqual(after.deletions.map(\.zoneID), [zone])
    }

    func testAQueryInTheSharedDatabaseSeesOnlyCoveredRecords() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let zone = try await sharedZoneID()
        let partyReference = CKRecord.Reference(recordID: try await sharedID("party"), action: .none)

        let attendees = try await mary.sharedCloudDatabase.records(matching: CKQuery(recordType: "Attendee", predicate: NSPredicate(format: "parent == %@", partyReference)), inZoneWith: zone, desiredKeys: nil)
        XCTAssertEqual(Set(attendees.matchResults.map(\.0.recordName)), ["ann", "ben"])
        let diaries = try await mary.sharedCloudDatabase.records(matching: CKQuery(recordType: "Diary", predicate: NSPredicate(value: true)), inZoneWith: zone, desiredKeys: nil)
        XCTAssertTrue(diaries.matchResults.isEmpty)
        await assertCKError(.zoneNotFound) {
            _ = try await self.bob.sharedCloudDatabase.records(matching: CKQuery(recordType: "Attendee", predicate: NSPredicate(value: true)), inZoneWith: zone, desiredKeys: nil)
        }
    }

    private func code<Value>(of result: Result<Value, any Error>?) -> CKError.Code? {
        guard case .failure(let error)? = result else { return nil }
        return (error as? CKError)?.code
    }
}
