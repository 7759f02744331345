@_spi(Testing) import Stratus
import StratusToolkit
import XCTest
import _StratusTestSupport

/// The conflict recipe: a save that lost a race with another device merges into the server's
/// record and is saved again.
final class RecipeConflictTests: RecipeTestCase {
    /// The party as John's device saved it, and the same record edited by his phone since.
    private func partyEditedElsewhere(attendees: [String], serverAttendees: [String], extra: (CKRecord) -> Void = { _ in }) async throws -> CKRecord {
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party"))
        party["attendees"] = attendees
        party["title"] = "Clowns at the park"
        let mine = try await database.save(party)
        let phone = server.container(identifier: identifier, account: "john").privateCloudDatabase
        let theirs = try await phone.record(for: party.recordID)
        theirs["attendees"] = serverAttendees
        extra(theirs)
        try await phone.save(theirs)
        server.isRecordingWrites = true
        return mine
    }

    func testThePartyAttendeesMergeKeepsBothSidesAdditions() async throws {
        let mine = try await partyEditedElsewhere(attendees: ["John"], serverAttendees: ["John", "Alice"])
        mine["attendees"] = ["John", "Bob"]
        let saved = try await database.saveResolvingConflicts(mine)
        XCTAssertEqual(saved["attendees"] as? [String], ["John", "Alice", "Bob"])
        let stored = try await database.record(for: mine.recordID)
        XCTAssertEqual(stored["attendees"] as? [String], ["John", "Alice", "Bob"])
        XCTAssertEqual(stored.recordChangeTag, saved.recordChangeTag)
        try await assertEachSavedRecordWrittenOnce([mine.recordID: .success(saved)])
    }

    func testRemovalsMadeByEitherSideStayRemoved() async throws {
        let mine = try await partyEditedElsewhere(attendees: ["A", "B", "C"], serverAttendees: ["A", "C", "E"])
        mine["attendees"] = ["A", "B", "D"]
        let saved = try await database.saveResolvingConflicts(mine)
        XCTAssertEqual(saved["attendees"] as? [String], ["A", "E", "D"], "B removed by the server, C by the client, E and D added")
    }

    func testTheDefaultMergeAppliesOnlyTheKeysTheClientChanged() async throws {
        let mine = try await partyEditedElsewhere(attendees: ["John"], serverAttendees: ["John"]) { $0["title"] = "Clowns at the beach" }
        mine["location"] = "Brighton"
        let saved = try await database.saveResolvingConflicts(mine)
        XCTAssertEqual(saved["title"] as? String, "Clowns at the beach", "the server's change to a key the client did not touch stays")
        XCTAssertEqual(saved["location"] as? String, "Brighton")
    }

    func testACustomMergeGetsTheServerClientAndAncestorRecords() async throws {
        let mine = try await partyEditedElsewhere(attendees: ["John"], serverAttendees: ["John", "Alice"])
        mine["attendees"] = ["John", "Bob"]
        let seen = Captured<[[String]]>([])
        let saved = try await database.saveResolvingConflicts(mine) { server, client, ancestor in
            seen.value = [server, client, ancestor].map { ($0?["attendees"] as? [String]) ?? [] }
            server["attendees"] = ["everyone"]
            return server
        }
        XCTAssertEqual(seen.value, [["John", "Alice"], ["John", "Bob"], ["John"]])
        XCTAssertEqual(saved["attendees"] as? [String], ["everyone"])
    }

    func testConflictsAreRetriedAtMostTheAttemptLimit() async throws {
        let mine = try await partyEditedElsewhere(attendees: ["John"], serverAttendees: ["John", "Alice"])
        mine["attendees"] = ["John", "Bob"]
        let start = server.requestCount
        // Merging into the client's record keeps its old change tag, so it conflicts every time.
        let results = try await database.saveResolvingConflicts([mine], maximumAttempts: 3) { _, client, _ in client }
        XCTAssertEqual(results[mine.recordID]?.failureCode, .serverRecordChanged)
        XCTAssertEqual(server.requestCount - start, 3)
        XCTAssertTrue(server.recordedWrites.isEmpty)
    }

    func testAMergeThatThrowsGivesUpWithItsError() async throws {
        struct Refused: Error {}
        let mine = try await partyEditedElsewhere(attendees: ["John"], serverAttendees: ["John", "Alice"])
        mine["attendees"] = ["John", "Bob"]
        let results = try await database.saveResolvingConflicts([mine]) { _, _, _ in throw Refused() }
        guard case .failure(let error)? = results[mine.recordID] else { return XCTFail("expected the merge's error") }
        XCTAssertTrue(error is Refused)
        XCTAssertTrue(server.recordedWrites.isEmpty)
    }

    func testInAnAtomicZoneTheMergedRecordIsSavedWithItsCompanions() async throws {
        let zoneID = try await zone("Party")
        let party = record("party", in: zoneID)
        party["attendees"] = ["John"]
        let mine = try await database.save(party)
        let phone = server.container(identifier: identifier, account: "john").privateCloudDatabase
        let theirs = try await phone.record(for: party.recordID)
        theirs["attendees"] = ["John", "Alice"]
        try await phone.save(theirs)
        server.isRecordingWrites = true

        mine["attendees"] = ["John", "Bob"]
        let invitation = record("invitation", in: zoneID)
        let operation = ConflictResolvingSaveOperation(database: database, recordsToSave: [mine, invitation])
        let results = Captured<[CKRecord.ID: Result<CKRecord, any Error>]>([:])
        let done = expectation(description: "finished")
        operation.perRecordSaveBlock = { recordID, result in results.value[recordID] = result }
        operation.modifyRecordsResultBlock = { _ in done.fulfill() }
        OperationQueue().addOperation(operation)
        await fulfillment(of: [done], timeout: 10)
        let saved = try XCTUnwrap(try results.value[mine.recordID]?.get())
        XCTAssertEqual(saved["attendees"] as? [String], ["John", "Alice", "Bob"])
        XCTAssertNotNil(try results.value[invitation.recordID]?.get())
        try await assertEachSavedRecordWrittenOnce(results.value)
    }

    func testMergeListsIsAThreeWayMerge() {
        func merge(_ ancestor: [String], _ server: [String], _ client: [String]) -> [String] {
            RecordMerge.mergeLists(ancestor: ancestor, server: server, client: client).compactMap { $0 as? String }
        }
        XCTAssertEqual(merge(["John"], ["John", "Alice"], ["John", "Bob"]), ["John", "Alice", "Bob"])
        XCTAssertEqual(merge([], ["A"], ["B", "A"]), ["A", "B"], "without an ancestor every client element counts as added")
        XCTAssertEqual(merge(["A", "B"], ["A", "B"], []), [], "the client removed everything")
        XCTAssertEqual(merge(["A"], ["A", "B"], ["A", "B"]), ["A", "B"], "both added the same element once")
    }
}
