import Stratus
import XCTest

/// Storage quotas of private and public databases, and the development schema that the first
/// save of a record type or field creates.
final class QuotaAndSchemaTests: ServerTestCase {
    // MARK: - Helpers

    /// A note of exactly `4 + length` bytes of field data: the key `text` and `length` ASCII bytes.
    private func note(_ name: String, length: Int = 100, zone: CKRecordZone.ID = .default) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        record["text"] = String(repeating: "a", count: length)
        return record
    }

    private func assertMissing(_ id: CKRecord.ID, in db: CKDatabase, file: StaticString = #filePath, line: UInt = #line) async throws {
        let results = try await db.records(for: [id])
        XCTAssertEqual(code(results[id]), .unknownItem, "\(id.recordName) should not exist", file: file, line: line)
    }

    private func field(_ kind: WireFieldValue.Kind, encrypted: Bool = false) -> ServerSchema.FieldType {
        ServerSchema.FieldType(kind: kind, isEncrypted: encrypted)
    }

    // MARK: - Private quota

    func testStorageUsedCountsTheFieldDataOfSavedRecords() async throws {
        let db = device("john").privateCloudDatabase
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 0)
        _ = try await db.save(note("a"))
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104)
        _ = try await db.save(note("b", length: 10))
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104 + 14)
    }

    func testASaveOverTheQuotaThrowsQuotaExceededAndStoresNothing() async throws {
        server.setQuota(bytes: 150, forAccount: "john")
        let db = device("john").privateCloudDatabase
        _ = try await db.save(note("first"))
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104)

        let second = note("second")
        await assertThrowsCKError(.quotaExceeded) { try await db.save(second) }
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104)
        try await assertMissing(second.recordID, in: db)
    }

    func testABatchOverTheQuotaFailsWholeEvenWhenNotAtomic() async throws {
        server.setQuota(bytes: 150, forAccount: "john")
        let db = device("john").privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Party")).zoneID
        let records = [note("a"), note("b", zone: zone)]
        await assertThrowsCKError(.quotaExceeded) {
            try await db.modifyRecords(saving: records, deleting: [], atomically: false)
        }
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 0)
        for record in records { try await assertMissing(record.recordID, in: db) }
    }

    func testASaveExactlyAtTheQuotaSucceeds() async throws {
        server.setQuota(bytes: 104, forAccount: "john")
        let db = device("john").privateCloudDatabase
        _ = try await db.save(note("a"))
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104)
        await assertThrowsCKError(.quotaExceeded) { try await db.save(self.note("b", length: 0)) }
    }

    func testDeletingARecordFreesItsStorage() async throws {
        server.setQuota(bytes: 150, forAccount: "john")
        let db = device("john").privateCloudDatabase
        let first = note("first")
        _ = try await db.save(first)
        let second = note("second")
        await assertThrowsCKError(.quotaExceeded) { try await db.save(second) }

        try await db.deleteRecord(withID: first.recordID)
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 0)
        _ = try await db.save(second)
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104)
    }

    func testCascadedDeletionsFreeTheirStorageToo() async throws {
        let db = device("john").privateCloudDatabase
        let target = note("target")
        let source = note("source", length: 0)
        source["owner"] = CKRecord.Reference(recordID: target.recordID, action: .deleteSelf)
        _ = try await db.modifyRecords(saving: [target, source], deleting: [])
        XCTAssertGreaterThan(server.storageUsed(byAccount: "john"), 104)

        try await db.deleteRecord(withID: target.recordID)
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 0)
    }

    func testDeletingAZoneFreesTheStorageOfItsRecords() async throws {
        let db = device("john").privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Party")).zoneID
        _ = try await db.modifyRecords(saving: [note("a", zone: zone), note("b", zone: zone)], deleting: [])
        _ = try await db.save(note("kept"))
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 3 * 104)

        try await db.deleteRecordZone(withID: zone)
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104)
    }

    func testChangingARecordChargesTheDifference() async throws {
        let db = device("john").privateCloudDatabase
        let saved = try await db.save(note("a"))
        saved["text"] = String(repeating: "b", count: 10)
        _ = try await db.save(saved)
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 14)
    }

    func testStorageCountsAssetFiles() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("quota-\(UUID().uuidString).bin")
        try Data(count: 1000).write(to: file)
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        let db = device("john").privateCloudDatabase
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p"))
        record["image"] = CKAsset(fileURL: file)
        _ = try await db.save(record)
        XCTAssertEqual(server.storageUsed(byAccount: "john"), "image".utf8.count + 1000)

        try await db.deleteRecord(withID: record.recordID)
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 0)
    }

    func testTheQuotaCoversTheAccountInEveryContainer() async throws {
        server.setQuota(bytes: 150, forAccount: "john")
        let clowns = device("john").privateCloudDatabase
        let circus = server.container(identifier: "iCloud.com.example.circus", account: "john").privateCloudDatabase
        _ = try await clowns.save(note("a"))
        await assertThrowsCKError(.quotaExceeded) { try await circus.save(self.note("b")) }
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104)
    }

    func testAnotherAccountHasItsOwnQuota() async throws {
        server.setQuota(bytes: 150, forAccount: "john")
        let alice = device("alice").privateCloudDatabase
        _ = try await alice.save(note("a"))
        _ = try await alice.save(note("b"))
        XCTAssertEqual(server.storageUsed(byAccount: "alice"), 208)
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 0)
    }

    func testLiftingTheQuotaAllowsTheSave() async throws {
        server.setQuota(bytes: 50, forAccount: "john")
        let db = device("john").privateCloudDatabase
        let record = note("a")
        await assertThrowsCKError(.quotaExceeded) { try await db.save(record) }
        server.setQuota(bytes: nil, forAccount: "john")
        _ = try await db.save(record)
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104)
    }

    // MARK: - Public quota

    func testThePublicQuotaLimitsThePublicDatabaseOfAllUsers() async throws {
        server.setPublicQuota(bytes: 150, containerIdentifier: identifier)
        let john = device("john").publicCloudDatabase
        let alice = device("alice").publicCloudDatabase
        _ = try await john.save(note("johns"))
        XCTAssertEqual(server.publicStorageUsed(containerIdentifier: identifier), 104)

        let alices = note("alices")
        await assertThrowsCKError(.quotaExceeded) { try await alice.save(alices) }
        XCTAssertEqual(server.publicStorageUsed(containerIdentifier: identifier), 104)
        try await assertMissing(alices.recordID, in: alice)
        // Public records are not charged to the user's own quota.
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 0)
    }

    func testThePublicQuotaDoesNotLimitPrivateDatabases() async throws {
        server.setPublicQuota(bytes: 50, containerIdentifier: identifier)
        let db = device("john").privateCloudDatabase
        _ = try await db.save(note("a"))
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 104)
        XCTAssertEqual(server.publicStorageUsed(containerIdentifier: identifier), 0)
    }

    func testAPrivateQuotaDoesNotLimitThePublicDatabase() async throws {
        server.setQuota(bytes: 50, forAccount: "john")
        let db = device("john").publicCloudDatabase
        _ = try await db.save(note("a"))
        XCTAssertEqual(server.publicStorageUsed(containerIdentifier: identifier), 104)
    }

    func testDeletingAPublicRecordFreesPublicStorage() async throws {
        server.setPublicQuota(bytes: 150, containerIdentifier: identifier)
        let db = device("john").publicCloudDatabase
        let first = note("first")
        _ = try await db.save(first)
        try await db.deleteRecord(withID: first.recordID)
        XCTAssertEqual(server.publicStorageUsed(containerIdentifier: identifier), 0)
        _ = try await db.save(note("second"))
    }

    // MARK: - Schema

    func testTheFirstSaveOfARecordTypeCreatesItAndItsFields() async throws {
        XCTAssertNil(server.schema(containerIdentifier: identifier).recordTypes["Party"])
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p"))
        party["title"] = "Clowns"
        party["attendees"] = 12
        party["when"] = Date(timeIntervalSince1970: 0)
        party["tags"] = ["fun", "loud"]
        party.encryptedValues["secret"] = "balloons"
        _ = try await device("john").privateCloudDatabase.save(party)

        let fields = server.schema(containerIdentifier: identifier).recordTypes["Party"]
        XCTAssertEqual(fields, [
            "title": field(.string),
            "attendees": field(.int64),
            "when": field(.date),
            "tags": field(.list(.string)),
            "secret": field(.string, encrypted: true),
        ])
    }

    func testALaterSaveAddsNewFieldsToTheType() async throws {
        let db = device("john").privateCloudDatabase
        let first = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p1"))
        first["title"] = "Clowns"
        _ = try await db.save(first)
        let second = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p2"))
        second["rating"] = 4.5
        _ = try await db.save(second)
        XCTAssertEqual(server.schema(containerIdentifier: identifier).recordTypes["Party"], ["title": field(.string), "rating": field(.double)])
    }

    func testTheSchemaBelongsToTheContainerNotTheDatabase() async throws {
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p"))
        party["title"] = "Clowns"
        _ = try await device("john").publicCloudDatabase.save(party)
        XCTAssertEqual(server.schema(containerIdentifier: identifier).recordTypes["Party"], ["title": field(.string)])
        XCTAssertNil(server.schema(containerIdentifier: "iCloud.com.example.circus").recordTypes["Party"])

        let clash = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "q"))
        clash["title"] = 3
        await assertThrowsCKError(.invalidArguments) { try await self.device("alice").privateCloudDatabase.save(clash) }
    }

    func testAValueOfAnotherTypeForAnExistingFieldFailsAndNamesTheField() async throws {
        let db = device("john").privateCloudDatabase
        let first = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p1"))
        first["title"] = "Clowns"
        _ = try await db.save(first)

        let second = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p2"))
        second["title"] = 12
        let error = await assertThrowsCKError(.invalidArguments) { try await db.save(second) }
        XCTAssertTrue(error?.localizedDescription.contains("title") ?? false, "\(String(describing: error))")
        XCTAssertEqual(server.schema(containerIdentifier: identifier).recordTypes["Party"], ["title": field(.string)])
        try await assertMissing(second.recordID, in: db)
    }

    func testChangingAFieldsTypeOnTheSameRecordFails() async throws {
        let db = device("john").privateCloudDatabase
        let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p"))
        record["when"] = Date(timeIntervalSince1970: 0)
        let saved = try await db.save(record)
        saved["when"] = "tomorrow"
        let error = await assertThrowsCKError(.invalidArguments) { try await db.save(saved) }
        XCTAssertTrue(error?.localizedDescription.contains("when") ?? false, "\(String(describing: error))")
        let fetched = try await db.record(for: record.recordID)
        XCTAssertEqual(fetched["when"] as? Date, Date(timeIntervalSince1970: 0))
    }

    func testATypeMismatchFailsOnlyItsItemInANonAtomicBatch() async throws {
        let db = device("john").privateCloudDatabase
        let first = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p1"))
        first["title"] = "Clowns"
        _ = try await db.save(first)

        let wrong = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "wrong"))
        wrong["title"] = 12
        let right = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "right"))
        right["title"] = "Mimes"
        let (saveResults, _) = try await db.modifyRecords(saving: [wrong, right], deleting: [], atomically: false)
        XCTAssertEqual(code(saveResults[wrong.recordID]), .invalidArguments)
        XCTAssertNotNil(try? saveResults[right.recordID]?.get())
    }

    func testTheSameFieldNameInAnotherRecordTypeIsIndependent() async throws {
        let db = device("john").privateCloudDatabase
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p"))
        party["title"] = "Clowns"
        let clown = CKRecord(recordType: "Clown", recordID: CKRecord.ID(recordName: "c"))
        clown["title"] = 1
        _ = try await db.modifyRecords(saving: [party, clown], deleting: [])
        let schema = server.schema(containerIdentifier: identifier)
        XCTAssertEqual(schema.recordTypes["Party"]?["title"], field(.string))
        XCTAssertEqual(schema.recordTypes["Clown"]?["title"], field(.int64))
    }

    func testAnEncryptedValueForAPlainFieldFails() async throws {
        let db = device("john").privateCloudDatabase
        let first = CKRecord(recordType: "Diary", recordID: CKRecord.ID(recordName: "d1"))
        first["entry"] = "Dear diary"
        _ = try await db.save(first)
        let second = CKRecord(recordType: "Diary", recordID: CKRecord.ID(recordName: "d2"))
        second.encryptedValues["entry"] = "Dear secret diary"
        let error = await assertThrowsCKError(.invalidArguments) { try await db.save(second) }
        XCTAssertTrue(error?.localizedDescription.contains("entry") ?? false, "\(String(describing: error))")
    }

    func testAnEmptyListTakesTheTypeOfTheFirstTypedList() async throws {
        let db = device("john").privateCloudDatabase
        let empty = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p1"))
        empty["tags"] = [String]()
        _ = try await db.save(empty)
        let strings = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p2"))
        strings["tags"] = ["fun"]
        _ = try await db.save(strings)
        XCTAssertEqual(server.schema(containerIdentifier: identifier).recordTypes["Party"]?["tags"], field(.list(.string)))

        let numbers = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p3"))
        numbers["tags"] = [1, 2]
        await assertThrowsCKError(.invalidArguments) { try await db.save(numbers) }
    }
}
