import Foundation
import Stratus
import XCTest

/// The finer rules of a participant's writes through the shared database: what a record's
/// `parent` chain is after the save decides whether the participant may write it, the share is
/// never a parent, a shared root stays where its owner put it, and a save that leaves the parent
/// alone is judged by the parent the server keeps.
final class SharedWriteRulesTests: SharedDatabaseTestCase {
    private func sharedID(_ name: String) async throws -> CKRecord.ID {
        CKRecord.ID(recordName: name, zoneID: try await sharedZoneID())
    }

    /// John's party with ann and ben shared read-write with mary, who accepted.
    @discardableResult
    private func shareWithMary() async throws -> CKShare {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"], permission: .readWrite)
        try await accept(share.url, as: mary)
        return share
    }

    private func code<Value>(of result: Result<Value, any Error>?) -> CKError.Code? {
        guard case .failure(let error)? = result else { return nil }
        return (error as? CKError)?.code
    }

    // MARK: The parent chain after the save

    func testAParticipantCannotCutARecordOutOfTheShareByParentingItUnderItsOwnChild() async throws {
        try await shareWithMary()
        let cleo = CKRecord(recordType: "Attendee", recordID: try await sharedID("cleo"))
        cleo.parent = CKRecord.Reference(recordID: try await sharedID("ann"), action: .none)
        _ = try await mary.sharedCloudDatabase.modifyRecords(saving: [cleo], deleting: [])

        // ann's parent would become cleo, whose parent is ann: a loop that no longer reaches
        // the party, so neither record would be shared any more.
        let ann = try await mary.sharedCloudDatabase.record(for: try await sharedID("ann"))
        ann.parent = CKRecord.Reference(recordID: cleo.recordID, action: .none)
        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [ann], deleting: [], atomically: false)

        XCTAssertEqual(code(of: saves[ann.recordID]), .permissionFailure)
        let johnsAnn = try await john.privateCloudDatabase.record(for: recordID("ann"))
        XCTAssertEqual(johnsAnn.parent?.recordID, recordID("party"), "ann stays under the party")
        _ = try await mary.sharedCloudDatabase.record(for: try await sharedID("cleo"))
    }

    func testARecordStandingOnARefusedSaveOfTheSameRequestIsRefusedToo() async throws {
        try await shareWithMary()
        // The diary is not shared: mary may not move it under the party, so a note under the
        // diary would land outside the share, even though the request names the party as the
        // diary's new parent.
        let diary = CKRecord(recordType: "Diary", recordID: try await sharedID("diary"))
        diary.parent = CKRecord.Reference(recordID: try await sharedID("party"), action: .none)
        let note = CKRecord(recordType: "Note", recordID: try await sharedID("note"))
        note.parent = CKRecord.Reference(recordID: diary.recordID, action: .none)
        let before = try await john.privateCloudDatabase.record(for: recordID("diary"))

        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [diary, note], deleting: [], savePolicy: .changedKeys, atomically: false)

        XCTAssertEqual(code(of: saves[diary.recordID]), .permissionFailure)
        XCTAssertEqual(code(of: saves[note.recordID]), .permissionFailure)
        let after = try await john.privateCloudDatabase.record(for: recordID("diary"))
        XCTAssertEqual(after.recordChangeTag, before.recordChangeTag, "nothing of the unshared diary changed, its change tag included")
        await assertCKError(.unknownItem) { _ = try await self.john.privateCloudDatabase.record(for: self.recordID("note")) }
    }

    func testDeletingAParentWhoseChildStaysIsRefusedAndTheChildsEditInTheSameRequestStands() async throws {
        try await shareWithMary()
        let cleo = CKRecord(recordType: "Attendee", recordID: try await sharedID("cleo"))
        cleo.parent = CKRecord.Reference(recordID: try await sharedID("ann"), action: .none)
        _ = try await mary.sharedCloudDatabase.modifyRecords(saving: [cleo], deleting: [])

        // Deleting ann would leave cleo under a parent that is gone: the delete is refused,
        // deletes nothing, and cleo stays in the share, so her edit goes through.
        let edit = try await mary.sharedCloudDatabase.record(for: cleo.recordID)
        edit["name"] = "Cleo"
        let annID = try await sharedID("ann")
        let (saves, deletes) = try await mary.sharedCloudDatabase.modifyRecords(saving: [edit], deleting: [annID], atomically: false)

        XCTAssertEqual(code(of: deletes[annID]), .referenceViolation)
        XCTAssertNil(code(of: saves[edit.recordID]))
        let johnsCleo = try await john.privateCloudDatabase.record(for: recordID("cleo"))
        XCTAssertEqual(johnsCleo["name"] as? String, "Cleo")
        let ann = try await john.privateCloudDatabase.record(for: recordID("ann"))
        XCTAssertEqual(ann.recordID, recordID("ann"))
    }

    func testRecordsSavedTogetherCountWithTheirNewParents() async throws {
        try await shareWithMary()
        // A new branch under ann, saved child first: each record's chain runs through the
        // other's new parent.
        let leaf = CKRecord(recordType: "Note", recordID: try await sharedID("leaf"))
        let branch = CKRecord(recordType: "Note", recordID: try await sharedID("branch"))
        leaf.parent = CKRecord.Reference(recordID: branch.recordID, action: .none)
        branch.parent = CKRecord.Reference(recordID: try await sharedID("ann"), action: .none)

        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [leaf, branch], deleting: [])

        XCTAssertNil(code(of: saves[leaf.recordID]))
        XCTAssertNil(code(of: saves[branch.recordID]))
        let johnsLeaf = try await john.privateCloudDatabase.record(for: recordID("leaf"))
        XCTAssertEqual(johnsLeaf.parent?.recordID, recordID("branch"))
    }

    // MARK: The share is never a parent

    func testTheShareRecordIsNotAParentAParticipantMayUse() async throws {
        let share = try await shareWithMary()
        let note = CKRecord(recordType: "Note", recordID: try await sharedID("note"))
        note.parent = CKRecord.Reference(recordID: try await sharedID(share.recordID.recordName), action: .none)

        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [note], deleting: [], atomically: false)

        XCTAssertEqual(code(of: saves[note.recordID]), .permissionFailure)
        await assertCKError(.unknownItem) { _ = try await self.john.privateCloudDatabase.record(for: self.recordID("note")) }
    }

    // MARK: The root is the owner's

    func testOnlyTheOwnerMovesASharedRoot() async throws {
        try await shareWithMary()
        let party = try await mary.sharedCloudDatabase.record(for: try await sharedID("party"))
        party.parent = CKRecord.Reference(recordID: try await sharedID("ann"), action: .none)

        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [party], deleting: [], atomically: false)

        XCTAssertEqual(code(of: saves[party.recordID]), .permissionFailure)
        let johnsParty = try await john.privateCloudDatabase.record(for: recordID("party"))
        XCTAssertNil(johnsParty.parent, "the root keeps no parent")
    }

    func testAParticipantEditsTheRootsFieldsAndMayDeleteNeitherTheRootNorTheShareForEveryone() async throws {
        let share = try await shareWithMary()
        let party = try await mary.sharedCloudDatabase.record(for: try await sharedID("party"))
        party["title"] = "Bigger Top Bash"
        _ = try await mary.sharedCloudDatabase.modifyRecords(saving: [party], deleting: [])
        let johnsParty = try await john.privateCloudDatabase.record(for: recordID("party"))
        XCTAssertEqual(johnsParty["title"] as? String, "Bigger Top Bash")

        // Apple's CKShare.Participant documentation: only the owner can delete a shared
        // hierarchy's root record (deleting it would delete the share for everyone).
        let (_, deletes) = try await mary.sharedCloudDatabase.modifyRecords(saving: [], deleting: [party.recordID], atomically: false)
        XCTAssertEqual(code(of: deletes[party.recordID]), .permissionFailure)
        _ = try await john.privateCloudDatabase.record(for: recordID("party"))
        _ = try await john.privateCloudDatabase.record(for: share.recordID)
    }

    // MARK: deleteSelf references

    func testDeleteSelfReferencesToSharedRecordsAndTheOwnersOwnStayAllowed() async throws {
        try await shareWithMary()
        // John ties ann to his diary, which mary does not see.
        let johnsAnn = try await john.privateCloudDatabase.record(for: recordID("ann"))
        johnsAnn["tie"] = CKRecord.Reference(recordID: recordID("diary"), action: .deleteSelf)
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [johnsAnn], deleting: [])

        // Mary edits ann, sending every field back, john's reference included, and ties a
        // note of hers to ann.
        let ann = try await mary.sharedCloudDatabase.record(for: try await sharedID("ann"))
        ann["name"] = "Ann Marie"
        let note = CKRecord(recordType: "Note", recordID: try await sharedID("note"))
        note.parent = CKRecord.Reference(recordID: ann.recordID, action: .none)
        note["tie"] = CKRecord.Reference(recordID: ann.recordID, action: .deleteSelf)
        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [ann, note], deleting: [], savePolicy: .allKeys)

        XCTAssertNil(code(of: saves[ann.recordID]))
        XCTAssertNil(code(of: saves[note.recordID]))
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [], deleting: [recordID("ann")])
        await assertCKError(.unknownItem) { _ = try await self.john.privateCloudDatabase.record(for: self.recordID("note")) }
    }

    // MARK: A save that leaves the parent alone

    func testAChangedKeysSaveThatLeavesTheParentAloneIsJudgedByTheStoredParent() async throws {
        try await shareWithMary()
        // A record built from its ID alone, as an app that keeps only field values saves an
        // edit: it names no parent and does not change the one the server has.
        let ann = CKRecord(recordType: "Attendee", recordID: try await sharedID("ann"))
        ann["name"] = "Ann Marie"

        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [ann], deleting: [], savePolicy: .changedKeys)

        XCTAssertNil(code(of: saves[ann.recordID]), "\(String(describing: saves[ann.recordID]))")
        let johnsAnn = try await john.privateCloudDatabase.record(for: recordID("ann"))
        XCTAssertEqual(johnsAnn["name"] as? String, "Ann Marie")
        XCTAssertEqual(johnsAnn.parent?.recordID, recordID("party"), "the parent is kept")
    }

    func testAChangedKeysSaveOfAnUnsharedRecordIsStillRefused() async throws {
        try await shareWithMary()
        let diary = CKRecord(recordType: "Diary", recordID: try await sharedID("diary"))
        diary["text"] = "mine now"

        let (saves, _) = try await mary.sharedCloudDatabase.modifyRecords(saving: [diary], deleting: [], savePolicy: .changedKeys, atomically: false)

        XCTAssertEqual(code(of: saves[diary.recordID]), .permissionFailure)
        let johnsDiary = try await john.privateCloudDatabase.record(for: recordID("diary"))
        XCTAssertEqual(johnsDiary["text"] as? String, "not for anyone else")
    }
}
