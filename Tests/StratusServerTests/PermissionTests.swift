import Stratus
import XCTest

/// Security roles in the public database, per record type.
final class PermissionTests: ServerTestCase {
    private let partyID = CKRecord.ID(recordName: "bash")

    func testDefaultRolesLetEveryoneReadSignedInUsersCreateAndTheCreatorWrite() async throws {
        let john = device("john").publicCloudDatabase
        let alice = device("alice").publicCloudDatabase
        let guest = device(nil).publicCloudDatabase
        let party = try await john.save(CKRecord(recordType: "Party", recordID: partyID))
        let seen = try await guest.record(for: partyID)
        XCTAssertEqual(seen.recordChangeTag, party.recordChangeTag)

        let alicesCopy = try await alice.record(for: partyID)
        alicesCopy["title"] = "Alice's edit"
        await assertThrowsCKError(.permissionFailure) { try await alice.save(alicesCopy) }
        await assertThrowsCKError(.permissionFailure) { try await alice.deleteRecord(withID: self.partyID) }

        party["title"] = "John's edit"
        let edited = try await john.save(party)
        XCTAssertEqual(edited["title"] as? String, "John's edit")
        try await john.deleteRecord(withID: partyID)
    }

    func testPermissionsSetOnTheServerLetSignedInUsersWrite() async throws {
        var partyRoles = RecordPermissions.default
        partyRoles.authenticated.insert(.write)
        server.setPermissions(partyRoles, forRecordType: "Party", containerIdentifier: identifier)
        XCTAssertEqual(server.permissions(forRecordType: "Party", containerIdentifier: identifier), partyRoles)
        XCTAssertEqual(server.permissions(forRecordType: "Clown", containerIdentifier: identifier), .default)

        _ = try await device("john").publicCloudDatabase.save(CKRecord(recordType: "Party", recordID: partyID))
        let alice = device("alice").publicCloudDatabase
        let copy = try await alice.record(for: partyID)
        copy["title"] = "Alice's edit"
        let saved = try await alice.save(copy)
        XCTAssertEqual(saved["title"] as? String, "Alice's edit")
    }

    func testWithoutWorldReadOnlySignedInUsersRead() async throws {
        server.setPermissions(RecordPermissions(world: [], authenticated: [.read, .create], creator: [.read, .write]), forRecordType: "Secret", containerIdentifier: identifier)
        _ = try await device("john").publicCloudDatabase.save(CKRecord(recordType: "Secret", recordID: CKRecord.ID(recordName: "s")))
        await assertThrowsCKError(.permissionFailure) { try await self.device(nil).publicCloudDatabase.record(for: CKRecord.ID(recordName: "s")) }
        let seen = try await device("alice").publicCloudDatabase.record(for: CKRecord.ID(recordName: "s"))
        XCTAssertEqual(seen.recordType, "Secret")
    }

    func testWithoutCreateNobodyCreates() async {
        server.setPermissions(RecordPermissions(world: [.read], authenticated: [.read], creator: [.read, .write]), forRecordType: "Locked", containerIdentifier: identifier)
        await assertThrowsCKError(.permissionFailure) { try await self.device("john").publicCloudDatabase.save(CKRecord(recordType: "Locked")) }
    }

    func testRolesDoNotApplyToThePrivateDatabase() async throws {
        server.setPermissions(RecordPermissions(world: [], authenticated: [], creator: []), forRecordType: "Note", containerIdentifier: identifier)
        let database = device("john").privateCloudDatabase
        let saved = try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n")))
        saved["text"] = "mine"
        _ = try await database.save(saved)
        _ = try await database.record(for: saved.recordID)
        try await database.deleteRecord(withID: saved.recordID)
    }
}
