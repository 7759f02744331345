import Stratus
import _StratusTestSupport
import XCTest

/// CloudKit's documented limits (`cloudkit-api.md` §14): 400 items and 2 MB of record data per
/// request, 1 MB of field data per record, and what counts toward those bytes.
final class LimitsTests: ServerTestCase {
    // MARK: - Helpers

    private func notes(_ count: Int, prefix: String) -> [CKRecord] {
        (0..<count).map { index in
            let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "\(prefix)-\(index)"))
            record["index"] = index
            return record
        }
    }

    /// A record whose field data (`WireRecord.byteSize`) is exactly `bytes`: the 4 bytes of the
    /// key `data` plus `bytes - 4` bytes of data.
    private func blob(_ name: String, bytes: Int, zoneID: CKRecordZone.ID = .default) -> CKRecord {
        let record = CKRecord(recordType: "Blob", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record["data"] = Data(repeating: 0xAB, count: bytes - 4)
        return record
    }

    /// Fetches `ids` in parts of at most 400, the most one fetch may name.
    private func fetch(_ ids: [CKRecord.ID], in database: CKDatabase) async throws -> [CKRecord.ID: Result<CKRecord, any Error>] {
        var results: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        for part in ids.parts(ofAtMost: 400) {
            results.merge(try await database.records(for: Array(part))) { first, _ in first }
        }
        return results
    }

    private func assertAllMissing(_ ids: [CKRecord.ID], in database: CKDatabase, file: StaticString = #filePath, line: UInt = #line) async throws {
        let results = try await fetch(ids, in: database)
        XCTAssertEqual(results.count, ids.count, file: file, line: line)
        for id in ids {
            XCTAssertEqual(code(results[id]), .unknownItem, "\(id.recordName) should not exist", file: file, line: line)
        }
    }

    private func assertAllPresent(_ ids: [CKRecord.ID], in database: CKDatabase, file: StaticString = #filePath, line: UInt = #line) async throws {
        let results = try await fetch(ids, in: database)
        XCTAssertEqual(results.count, ids.count, file: file, line: line)
        for id in ids {
            XCTAssertNotNil(try? results[id]?.get(), "\(id.recordName) should exist", file: file, line: line)
        }
    }

    // MARK: - Items per request

    func testFourHundredItemsInOneRequestAreAllSaved() async throws {
        let db = device("john").privateCloudDatabase
        let records = notes(400, prefix: "n")
        let before = server.requestCount
        let (saveResults, _) = try await db.modifyRecords(saving: records, deleting: [])
        XCTAssertEqual(server.requestCount, before + 1, "400 items are one request")
        XCTAssertEqual(saveResults.count, 400)
        for record in records {
            XCTAssertNotNil(try? saveResults[record.recordID]?.get(), "\(record.recordID.recordName) not saved")
        }
        try await assertAllPresent(records.map(\.recordID), in: db)
    }

    func testFourHundredAndOneItemsFailTheWholeRequest() async throws {
        let db = device("john").privateCloudDatabase
        let records = notes(401, prefix: "n")
        await assertThrowsCKError(.limitExceeded) {
            try await db.modifyRecords(saving: records, deleting: [], atomically: false)
        }
        try await assertAllMissing(records.map(\.recordID), in: db)
    }

    func testSavesAndDeletesCountTogetherTowardTheFourHundredItems() async throws {
        let db = device("john").privateCloudDatabase
        let existing = notes(201, prefix: "old")
        _ = try await db.modifyRecords(saving: Array(existing[..<200]), deleting: [])
        _ = try await db.modifyRecords(saving: [existing[200]], deleting: [])
        let fresh = notes(200, prefix: "new")

        await assertThrowsCKError(.limitExceeded) {
            try await db.modifyRecords(saving: fresh, deleting: existing.map(\.recordID), atomically: false)
        }
        try await assertAllPresent(existing.map(\.recordID), in: db)
        try await assertAllMissing(fresh.map(\.recordID), in: db)
    }

    // MARK: - Record IDs per fetch

    func testFetchingFourHundredRecordIDsIsOneRequest() async throws {
        let db = device("john").privateCloudDatabase
        let records = notes(400, prefix: "n")
        _ = try await db.modifyRecords(saving: records, deleting: [])
        let before = server.requestCount
        let results = try await db.records(for: records.map(\.recordID))
        XCTAssertEqual(server.requestCount, before + 1)
        XCTAssertEqual(results.values.filter { (try? $0.get()) != nil }.count, 400)
    }

    func testFetchingFourHundredAndOneRecordIDsFailsWithLimitExceededWithoutARequest() async throws {
        let db = device("john").privateCloudDatabase
        let ids = notes(401, prefix: "n").map(\.recordID)
        let before = server.requestCount
        await assertThrowsCKError(.limitExceeded) { try await db.records(for: ids) }
        XCTAssertEqual(server.requestCount, before, "CloudKit's client refuses the operation before sending it")

        let operation = CKFetchRecordsOperation(recordIDs: ids)
        let perRecord = Captured<[CKError.Code?]>([])
        let final = Captured<CKError?>(nil)
        let done = expectation(description: "finished")
        operation.perRecordResultBlock = { _, result in perRecord.value.append(self.code(result)) }
        operation.fetchRecordsResultBlock = { result in
            if case .failure(let error) = result { final.value = error as? CKError }
            done.fulfill()
        }
        db.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(final.value?.code, .limitExceeded)
        XCTAssertTrue(final.value?.localizedDescription.contains("400") ?? false, "the message names the limit: \(String(describing: final.value))")
        XCTAssertEqual(perRecord.value.count, 401)
        XCTAssertEqual(Set(perRecord.value), [.limitExceeded], "each record gets the operation's error")
    }

    func testTheServerRefusesALookupOfMoreThanFourHundredRecordIDs() async throws {
        let db = device("john").privateCloudDatabase
        let ids = (0...400).map { WireRecordID(recordName: "n-\($0)") }
        do {
            _ = try await server.lookupRecords(WireRecordsLookupRequest(context: rawContext(db), recordIDs: ids))
            XCTFail("expected limitExceeded")
        } catch {
            XCTAssertEqual(error.code, .limitExceeded)
        }
        let answer = try await server.lookupRecords(WireRecordsLookupRequest(context: rawContext(db), recordIDs: Array(ids.prefix(400))))
        XCTAssertEqual(answer.results.count, 400, "400 IDs are allowed")
    }

    // MARK: - Record size

    func testARecordOfExactlyOneMegabyteOfFieldDataIsSaved() async throws {
        let db = device("john").privateCloudDatabase
        let record = blob("exact", bytes: 1_048_576)
        XCTAssertEqual(record.wireSnapshot.byteSize, 1_048_576)
        _ = try await db.save(record)
        let fetched = try await db.record(for: record.recordID)
        XCTAssertEqual((fetched["data"] as? Data)?.count, 1_048_572)
    }

    func testARecordOfOneMegabyteAndOneByteFailsWithLimitExceeded() async throws {
        let db = device("john").privateCloudDatabase
        let record = blob("over", bytes: 1_048_577)
        XCTAssertEqual(record.wireSnapshot.byteSize, 1_048_577)
        await assertThrowsCKError(.limitExceeded) { try await db.save(record) }
        try await assertAllMissing([record.recordID], in: db)
    }

    func testAnOversizedRecordFailsOnlyItsOwnItemInANonAtomicBatch() async throws {
        let db = device("john").privateCloudDatabase
        let over = blob("over", bytes: 1_048_577)
        let small = blob("small", bytes: 100)
        let (saveResults, _) = try await db.modifyRecords(saving: [over, small], deleting: [], atomically: false)
        XCTAssertEqual(code(saveResults[over.recordID]), .limitExceeded)
        XCTAssertNotNil(try? saveResults[small.recordID]?.get())
        try await assertAllPresent([small.recordID], in: db)
        try await assertAllMissing([over.recordID], in: db)
    }

    func testTheServerRejectsAnOversizedRecordThatBypassesTheClientChecks() async throws {
        let container = device("john")
        let db = container.privateCloudDatabase
        let record = WireRecord(
            recordID: WireRecordID(recordName: "sneaky"),
            recordType: "Blob",
            fields: ["data": .bytes(Data(count: 1_048_573))]
        )
        XCTAssertEqual(record.byteSize, 1_048_577)
        let response = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(db),
            saves: [WireRecordSave(record: record)],
            isAtomic: false
        ))
        XCTAssertEqual(response.saveResults.count, 1)
        guard case .failure(let error) = response.saveResults.first?.result else {
            return XCTFail("an oversized record was saved")
        }
        XCTAssertEqual(error.code, .limitExceeded)
        try await assertAllMissing([CKRecord.ID(recordName: "sneaky")], in: db)
    }

    func testAChangeThatGrowsAStoredRecordPastOneMegabyteFails() async throws {
        // Each save sends less than 1 MB, but the record on the server would hold more.
        let db = device("john").privateCloudDatabase
        let record = CKRecord(recordType: "Blob", recordID: CKRecord.ID(recordName: "growing"))
        record["first"] = Data(count: 600_000)
        let saved = try await db.save(record)
        saved["second"] = Data(count: 600_000)
        XCTAssertLessThan(saved.makeSave(policy: .ifServerRecordUnchanged).record.byteSize, 1_048_576)
        await assertThrowsCKError(.limitExceeded) { try await db.save(saved) }
        let fetched = try await db.record(for: record.recordID)
        XCTAssertNil(fetched["second"])
        XCTAssertEqual(fetched.recordChangeTag, saved.recordChangeTag)
    }

    // MARK: - Request size

    func testARequestOverTwoMegabytesFailsWhole() async throws {
        let db = device("john").privateCloudDatabase
        // Each record is under 1 MB; together they are 2,100,012 bytes.
        let records = (0..<3).map { blob("part-\($0)", bytes: 700_004) }
        await assertThrowsCKError(.limitExceeded) {
            try await db.modifyRecords(saving: records, deleting: [], atomically: false)
        }
        try await assertAllMissing(records.map(\.recordID), in: db)
    }

    func testARequestOfExactlyTwoMegabytesIsSaved() async throws {
        let db = device("john").privateCloudDatabase
        let records = [blob("a", bytes: 1_048_576), blob("b", bytes: 1_048_576)]
        let (saveResults, _) = try await db.modifyRecords(saving: records, deleting: [])
        XCTAssertEqual(saveResults.count, 2)
        for record in records {
            XCTAssertNotNil(try? saveResults[record.recordID]?.get())
        }
        try await assertAllPresent(records.map(\.recordID), in: db)
    }

    func testAssetFilesDoNotCountTowardTheRequestSize() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.bin")
        try Data(repeating: 7, count: 3 * 1_048_576).write(to: file)

        let db = device("john").privateCloudDatabase
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "photo"))
        record["image"] = CKAsset(fileURL: file)
        let saved = try await db.save(record)
        XCTAssertNotNil(saved.recordChangeTag)
    }

    // MARK: - Byte size

    func testStringsCountTheirUTF8Bytes() {
        XCTAssertEqual(WireFieldValue.string("").byteSize, 0)
        XCTAssertEqual(WireFieldValue.string("clown").byteSize, 5)
        XCTAssertEqual(WireFieldValue.string("é").byteSize, 2)
        XCTAssertEqual(WireFieldValue.string("🤡").byteSize, 4)
    }

    func testNumbersAndDatesCountEightBytes() {
        XCTAssertEqual(WireFieldValue.int64(0).byteSize, 8)
        XCTAssertEqual(WireFieldValue.int64(.max).byteSize, 8)
        XCTAssertEqual(WireFieldValue.double(2.5).byteSize, 8)
        XCTAssertEqual(WireFieldValue.date(Date(timeIntervalSince1970: 0)).byteSize, 8)
    }

    func testBytesCountTheirLength() {
        XCTAssertEqual(WireFieldValue.bytes(Data()).byteSize, 0)
        XCTAssertEqual(WireFieldValue.bytes(Data(count: 37)).byteSize, 37)
    }

    func testReferencesCountTheUTF8BytesOfTheirNames() {
        let reference = WireReference(
            recordID: WireRecordID(recordName: "party", zoneID: WireZoneID(zoneName: "Clowns", ownerName: "owner")),
            action: .deleteSelf
        )
        XCTAssertEqual(WireFieldValue.reference(reference).byteSize, 5 + 6 + 5)
        let inDefaultZone = WireReference(recordID: WireRecordID(recordName: "é"), action: .none)
        XCTAssertEqual(WireFieldValue.reference(inDefaultZone).byteSize, 2 + "_defaultZone".utf8.count + "__defaultOwner__".utf8.count)
    }

    func testAssetsCountNothing() {
        XCTAssertEqual(WireFieldValue.asset(WireAsset(localFileURL: URL(fileURLWithPath: "/tmp/photo.jpg"))).byteSize, 0)
        XCTAssertEqual(WireFieldValue.asset(WireAsset(localFileURL: nil)).byteSize, 0)
    }

    func testListsCountTheSumOfTheirElements() {
        XCTAssertEqual(WireFieldValue.list([]).byteSize, 0)
        XCTAssertEqual(WireFieldValue.list([.string("ab"), .string("cdé")]).byteSize, 2 + 4)
        XCTAssertEqual(WireFieldValue.list([.int64(1), .int64(2), .int64(3)]).byteSize, 24)
        XCTAssertEqual(WireFieldValue.list([.bytes(Data(count: 3)), .bytes(Data(count: 4))]).byteSize, 7)
    }

    func testARecordCountsItsKeysAndValuesPlainAndEncrypted() {
        let record = WireRecord(
            recordID: WireRecordID(recordName: "a-long-record-name-that-does-not-count"),
            recordType: "NotCountedEither",
            fields: ["title": .string("hi"), "n": .int64(1), "photo": .asset(WireAsset(localFileURL: nil))],
            encryptedFields: ["secret": .bytes(Data(count: 3))]
        )
        XCTAssertEqual(record.byteSize, (5 + 2) + (1 + 8) + (5 + 0) + (6 + 3))
        XCTAssertEqual(WireRecord(recordID: WireRecordID(recordName: "empty"), recordType: "Note").byteSize, 0)
    }

    func testACKRecordsByteSizeCountsWhatItsFieldsBecome() {
        let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p"))
        record["title"] = "Clowns"
        record["attendees"] = 12
        record["when"] = Date(timeIntervalSince1970: 0)
        record.encryptedValues["code"] = "🤡"
        XCTAssertEqual(record.wireSnapshot.byteSize, (5 + 6) + (9 + 8) + (4 + 8) + (4 + 4))
    }
}
