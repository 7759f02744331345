import Foundation
import Stratus
import XCTest

/// User records are the server's: no client creates, takes over or deletes one, and only its
/// user changes it.
final class UserRecordTests: ServerTestCase {
    private func userRecordID(_ account: String) -> CKRecord.ID {
        CKRecord.ID(recordName: server.userRecordName(account: account, containerIdentifier: identifier))
    }

    func testAnotherAccountCannotSquatAUserRecordBeforeItsUserComes() async throws {
        let alice = device("alice").publicCloudDatabase
        let squat = CKRecord(recordType: "Users", recordID: userRecordID("john"))
        await assertThrowsCKError(.permissionFailure) { try await alice.save(squat) }
        let namesake = CKRecord(recordType: "Note", recordID: userRecordID("john"))
        await assertThrowsCKError(.permissionFailure) { try await alice.save(namesake) }

        // Through the service directly, without the client: the same answer.
        let raw = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(alice),
            saves: [WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: userRecordID("john").recordName), recordType: "Users"))]
        ))
        guard case .failure(let error)? = raw.saveResults.first?.result else { return XCTFail("a client created a user record") }
        XCTAssertEqual(error.code, .permissionFailure)

        let john = device("john")
        _ = try await john.publicCloudDatabase.allRecordZones()
        let record = try await device("alice").publicCloudDatabase.record(for: userRecordID("john"))
        XCTAssertEqual(record.recordType, "Users")
        XCTAssertEqual(record.creatorUserRecordID?.recordName, userRecordID("john").recordName)
    }

    func testNobodyDeletesAUserRecordNotEvenItsUser() async throws {
        let john = device("john")
        let recordID = try await john.userRecordID()
        await assertThrowsCKError(.permissionFailure) { try await john.privateCloudDatabase.deleteRecord(withID: recordID) }
        await assertThrowsCKError(.permissionFailure) { try await john.publicCloudDatabase.deleteRecord(withID: recordID) }
        let raw = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(john.privateCloudDatabase), deletes: [WireRecordID(recordName: recordID.recordName)]))
        guard case .failure(let error)? = raw.deleteResults.first?.result else { return XCTFail("a user record was deleted") }
        XCTAssertEqual(error.code, .permissionFailure)
        _ = try await john.privateCloudDatabase.record(for: recordID)
        _ = try await john.publicCloudDatabase.record(for: recordID)
    }

    func testOnlyItsUserChangesAUserRecordWhateverTheRoles() async throws {
        let john = device("john")
        let recordID = try await john.userRecordID()
        var permissions = server.permissions(forRecordType: "Users", containerIdentifier: identifier)
        permissions.world = [.read, .write, .create]
        server.setPermissions(permissions, forRecordType: "Users", containerIdentifier: identifier)

        let alice = device("alice").publicCloudDatabase
        let takeover = try await alice.record(for: recordID)
        takeover["nickname"] = "not john"
        await assertThrowsCKError(.permissionFailure) { try await alice.save(takeover) }
        let forced = try await alice.modifyRecords(saving: [takeover], deleting: [], savePolicy: .allKeys, atomically: false)
        XCTAssertEqual(code(forced.saveResults[recordID].map { $0.map { $0 as CKRecord } }), .permissionFailure)

        let own = try await john.publicCloudDatabase.record(for: recordID)
        own["nickname"] = "Johnny"
        let saved = try await john.publicCloudDatabase.save(own)
        XCTAssertEqual(saved["nickname"] as? String, "Johnny")
    }

    func testAUserRecordHoldsNoDeleteSelfReference() async throws {
        let john = device("john")
        let recordID = try await john.userRecordID()
        let target = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "target"))
        _ = try await john.privateCloudDatabase.save(target)
        let own = try await john.privateCloudDatabase.record(for: recordID)
        own["anchor"] = CKRecord.Reference(recordID: target.recordID, action: .deleteSelf)
        await assertThrowsCKError(.invalidArguments) { try await john.privateCloudDatabase.save(own) }
    }
}
