import Stratus
import XCTest

/// Deleting a record that is the `parent` of a record that stays fails that item with
/// `referenceViolation` and deletes nothing, through the CloudKit API; a parent goes with its
/// children in one operation, or after them.
final class ParentDeletionOperationTests: OperationTestCase {
    private let zoneID = CKRecordZone.ID(zoneName: "Folders")

    /// A folder with one file under it, in a custom zone.
    private func seedFolder() async throws -> (folder: CKRecord.ID, file: CKRecord.ID) {
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        let folder = CKRecord(recordType: "Folder", recordID: CKRecord.ID(recordName: "folder", zoneID: zoneID))
        let file = CKRecord(recordType: "File", recordID: CKRecord.ID(recordName: "file", zoneID: zoneID))
        file.setParent(folder)
        try await seed([folder, file])
        return (folder.recordID, file.recordID)
    }

    func testDeletingAParentAloneFailsThatItemWithReferenceViolation() async throws {
        let (folder, file) = try await seedFolder()
        let operation = CKModifyRecordsOperation(recordsToSave: nil, recordIDsToDelete: [folder])
        operation.isAtomic = false
        let log = EventLog()
        operation.perRecordDeleteBlock = { recordID, result in log.append("\(recordID.recordName) \(result.failureCode.map { "\($0)" } ?? "ok")") }
        let done = expectation(description: "finished")
        operation.modifyRecordsResultBlock = { result in
            log.append("final \(result.failureCode.map { "\($0)" } ?? "ok")")
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(log.all, ["folder \(CKError.Code.referenceViolation)", "final \(CKError.Code.partialFailure)"])
        let kept = try await database.records(for: [folder, file])
        XCTAssertNotNil(try kept[folder]?.get())
        XCTAssertNotNil(try kept[file]?.get())
    }

    func testAParentDeletedWithItsChildInOneCallIsDeleted() async throws {
        let (folder, file) = try await seedFolder()

        let (_, deletes) = try await database.modifyRecords(saving: [], deleting: [folder, file])

        XCTAssertNil(deletes[folder]?.failureCode)
        XCTAssertNil(deletes[file]?.failureCode)
        let gone = try await database.records(for: [folder, file])
        XCTAssertEqual(gone[folder]?.failureCode, .unknownItem)
        XCTAssertEqual(gone[file]?.failureCode, .unknownItem)
    }
}

