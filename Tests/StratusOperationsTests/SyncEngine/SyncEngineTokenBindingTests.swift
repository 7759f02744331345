import Foundation
import Stratus
import XCTest

/// A state's change tokens belong to its user: an engine never sends a token the state cannot
/// vouch for, and a token the server refuses is dropped and its scope fetched from the start,
/// so an engine never wedges on tokens it cannot use.
final class SyncEngineTokenBindingTests: SyncEngineTestCase {
    private let notes = CKRecordZone.ID(zoneName: "Notes")

    /// John's state after he fetched his notes: it holds a database token and a zone token.
    private func johnsFetchedState() async throws -> CKSyncEngine.State.Serialization {
        try await seedNotes("john", zones: ["Notes"], notesPerZone: 2, prefix: "j")
        let john = notesDevice("john")
        try await john.engine.fetchChanges()
        XCTAssertEqual(john.delegate.fetchedRecordIDs.count, 2)
        return try XCTUnwrap(john.delegate.lastSerialization)
    }

    /// `serialization` with the user it belongs to taken out, as a state saved by a damaged or
    /// hand-edited store would come back.
    private func withoutUser(_ serialization: CKSyncEngine.State.Serialization) throws -> CKSyncEngine.State.Serialization {
        let strings = try JSONDecoder().decode([String].self, from: try JSONEncoder().encode([serialization]))
        let blob = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(strings.first)))
        let header = blob.prefix(5)
        var body = try XCTUnwrap(try JSONSerialization.jsonObject(with: blob.dropFirst(5)) as? [String: Any])
        XCTAssertNotNil(body.removeValue(forKey: "userRecordName"), "the state named its user")
        XCTAssertNotNil(body["databaseToken"], "the state holds a database token")
        let forged = header + (try JSONSerialization.data(withJSONObject: body))
        let json = try JSONEncoder().encode([forged.base64EncodedString()])
        return try XCTUnwrap(try JSONDecoder().decode([CKSyncEngine.State.Serialization].self, from: json).first)
    }

    func testAStateWithoutAUserCarryingAnotherUsersTokensIsNotWedgedAndFetchesTheNewUsersData() async throws {
        let forged = try withoutUser(try await johnsFetchedState())
        try await seedNotes("mary", zones: ["Diary"], notesPerZone: 3, prefix: "m")

        let mary = notesDevice("mary", serialization: forged)
        let maryID = try await mary.container.userRecordID()
        try await mary.engine.fetchChanges()

        XCTAssertEqual(mary.delegate.events.compactMap(\.accountChangeType), [.signIn(currentUser: maryID)])
        XCTAssertEqual(Set(mary.delegate.fetchedRecordIDs.map(\.recordName)), ["m0000", "m0001", "m0002"], "mary's data, fetched from the start")
        XCTAssertFalse(mary.delegate.names.contains("didFetchRecordZoneChanges(error)"), "no zone of john's was fetched")

        // Later fetches go on from mary's own tokens.
        let more = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "m0003", zoneID: CKRecordZone.ID(zoneName: "Diary")))
        _ = try await server.container(identifier: identifier, account: "mary").privateCloudDatabase.save(more)
        mary.delegate.clearEvents()
        try await mary.engine.fetchChanges()
        XCTAssertEqual(mary.delegate.fetchedRecordIDs.map(\.recordName), ["m0003"])
        try await mary.engine.fetchChanges()
    }

    func testAStateWithoutAUserKeepsItsPendingChangesButDropsTheTokens() async throws {
        let forged = try withoutUser(try await johnsFetchedState())
        let mary = notesDevice("mary", serialization: forged)
        mary.engine.state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: "draft", zoneID: notes))])
        let databaseChangesBefore = requests(.databaseChanges)

        try await mary.engine.fetchChanges()

        XCTAssertEqual(requests(.databaseChanges) - databaseChangesBefore, 1, "one fetch from the start, no token refused first")
        XCTAssertEqual(mary.engine.state.pendingRecordZoneChanges, [.saveRecord(CKRecord.ID(recordName: "draft", zoneID: notes))], "what the app added stays")
    }

    func testTokensTheServerRefusesAreDroppedAndEachScopeIsFetchedFromTheStart() async throws {
        let johnsState = try await johnsFetchedState()
        // The same account on a server that never issued these tokens (its data restored
        // elsewhere): the user matches, the tokens do not.
        let otherServer = CloudServer(clock: clock)
        server = otherServer
        try await seedNotes("john", zones: ["Notes"], notesPerZone: 3, prefix: "k")

        let john = notesDevice("john", serialization: johnsState)
        try await john.engine.fetchChanges()

        XCTAssertEqual(john.delegate.events.compactMap(\.accountChangeType), [], "the same user")
        XCTAssertEqual(Set(john.delegate.fetchedRecordIDs.map(\.recordName)), ["k0000", "k0001", "k0002"])
        XCTAssertFalse(john.delegate.names.contains("didFetchRecordZoneChanges(error)"), "the zone token was dropped, not reported")
        john.delegate.clearEvents()
        try await john.engine.fetchChanges()
        XCTAssertEqual(john.delegate.fetchedRecordIDs, [], "the new tokens are used")
    }
}
