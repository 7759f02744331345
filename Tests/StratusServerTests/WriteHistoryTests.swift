@_spi(Testing) import Stratus
import XCTest

/// The write-history testing SPI: what tests use to prove a client never reports a record
/// saved that the server does not hold, or writes one record twice.
final class WriteHistoryTests: ServerTestCase {
    func testWritesAreRecordedOnlyWhileRecordingWithTheirOperationAndDevice() async throws {
        let phone = device("john")
        let database = phone.privateCloudDatabase
        _ = try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "before")))
        XCTAssertTrue(server.recordedWrites.isEmpty, "nothing is recorded until asked")

        server.isRecordingWrites = true
        let parent = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "parent"))
        let child = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "child"))
        child["owner"] = CKRecord.Reference(record: parent, action: .deleteSelf)
        let operation = CKModifyRecordsOperation(recordsToSave: [parent, child])
        let done = expectation(description: "saved")
        operation.modifyRecordsResultBlock = { _ in done.fulfill() }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        let unchanged = try await database.record(for: parent.recordID)
        _ = try await database.modifyRecords(saving: [unchanged], deleting: [], savePolicy: .ifServerRecordUnchanged)
        try await database.deleteRecord(withID: parent.recordID)

        let writes = server.recordedWrites
        XCTAssertEqual(writes.map(\.recordID.recordName), ["parent", "child", "parent", "parent", "child"])
        XCTAssertEqual(writes.map(\.isDeletion), [false, false, false, true, true], "the cascade is a write too")
        XCTAssertEqual(writes.prefix(2).map(\.operationID), [operation.operationID, operation.operationID])
        XCTAssertTrue(writes.allSatisfy { $0.deviceID == phone.deviceID && $0.databaseScope == .private })
        XCTAssertNotEqual(writes[0].changeTag, writes[2].changeTag, "a save of an unchanged record still writes a new version")

        server.isRecordingWrites = false
        XCTAssertTrue(server.recordedWrites.isEmpty)
    }
}
