import Stratus
import XCTest

/// Defects found in review, each pinned by the input that showed it.
final class ReviewFindingsTests: ServerTestCase {
    private var database: CKDatabase!

    override func setUp() {
        super.setUp()
        database = device("john").privateCloudDatabase
    }

    func testNonFiniteNumbersAreRefusedBeforeTheyCanBreakTheOrder() async throws {
        let record = CKRecord(recordType: "Reading", recordID: CKRecord.ID(recordName: "nan"))
        record["value"] = Double.nan
        record["limit"] = Float.infinity
        XCTAssertNil(record["value"])
        let error = await assertThrowsCKError(.invalidArguments) { try await self.database.save(record) }
        XCTAssertTrue(error?.localizedDescription.contains("finite") == true, error?.localizedDescription ?? "")
        XCTAssertEqual(server.requestCount, 0)
        XCTAssertEqual(refusal(NSPredicate(format: "value > %f", Double.nan))?.contains("finite"), true)
    }

    private func refusal(_ predicate: NSPredicate) -> String? {
        let query = CKQuery(recordType: "Reading", predicate: predicate)
        if case .failure(let error) = query.wireQuery() { return error.localizedDescription }
        return nil
    }

    func testCanonicallyEqualStringsSortByTheirScalarsConsistently() async throws {
        let spellings = ["\u{E9}", "e\u{302}", "e\u{301}", "f"]
        let records = spellings.enumerated().map { index, text -> CKRecord in
            let record = CKRecord(recordType: "Word", recordID: CKRecord.ID(recordName: "w\(index)"))
            record["text"] = text
            return record
        }
        _ = try await database.modifyRecords(saving: records, deleting: [])
        let query = CKQuery(recordType: "Word", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "text", ascending: true)]
        var seen: [String] = []
        var page = try await database.records(matching: query, resultsLimit: 1)
        seen += page.matchResults.map(\.0.recordName)
        while let cursor = page.queryCursor, seen.count < 10 {
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 1)
            seen += page.matchResults.map(\.0.recordName)
        }
        XCTAssertEqual(seen, ["w2", "w1", "w3", "w0"], "e+U+0301 < e+U+0302 < f < U+00E9 by scalars, each once")
        let exact = try await database.records(matching: CKQuery(recordType: "Word", predicate: NSPredicate(format: "text == %@", "e\u{301}")))
        XCTAssertEqual(exact.matchResults.map(\.0.recordName), ["w2"], "equality compares scalars too")
    }

    func testUndoingASaveKeepsARecordThatTheSameRequestsCascadeDeleted() async throws {
        let p = CKRecord(recordType: "Owner", recordID: CKRecord.ID(recordName: "p"))
        p["n"] = 1
        let x = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "x"))
        x["owner"] = CKRecord.Reference(record: p, action: .deleteSelf)
        _ = try await database.modifyRecords(saving: [p, x], deleting: [])

        let q = CKRecord(recordType: "Owner", recordID: CKRecord.ID(recordName: "q"))
        q["n"] = "not a number"   // fails on the field's type
        let moved = try await database.record(for: x.recordID)
        moved["owner"] = CKRecord.Reference(record: q, action: .deleteSelf)
        let (saves, deletes) = try await database.modifyRecords(saving: [moved, q], deleting: [p.recordID], savePolicy: .changedKeys, atomically: false)
        XCTAssertNotNil(try? deletes[p.recordID]?.get())
        XCTAssertEqual(code(saves[q.recordID]), .invalidArguments)
        XCTAssertEqual(code(saves[x.recordID]), .referenceViolation)
        await assertThrowsCKError(.unknownItem) { try await self.database.record(for: x.recordID) }
    }

    func testEqualityWithALargeDoubleFindsTheEqualInteger() async throws {
        let record = CKRecord(recordType: "Big", recordID: CKRecord.ID(recordName: "big"))
        record["n"] = Int64(1) << 60
        _ = try await database.save(record)
        let page = try await database.records(matching: CKQuery(recordType: "Big", predicate: NSPredicate(format: "n == %@", NSNumber(value: Double(Int64(1) << 60)))))
        XCTAssertEqual(page.matchResults.count, 1)
        let off = try await database.records(matching: CKQuery(recordType: "Big", predicate: NSPredicate(format: "n == %@", NSNumber(value: Double(Int64(1) << 60) + 512))))
        XCTAssertEqual(off.matchResults.count, 0)
    }

    func testBadNamesInLookupsAreInvalidAndSharedZonesCannotBeDeleted() async throws {
        let results = try await database.records(for: [CKRecord.ID(recordName: ""), CKRecord.ID(recordName: String(repeating: "r", count: 256))])
        XCTAssertTrue(results.values.allSatisfy { code($0) == .invalidArguments })
        await assertThrowsCKError(.invalidArguments) { try await self.database.recordZone(for: CKRecordZone.ID(zoneName: "")) }
        await assertThrowsCKError(.badDatabase) { try await self.device("john").sharedCloudDatabase.deleteRecordZone(withID: CKRecordZone.ID(zoneName: "z")) }
    }

    func testStartingAnOperationTwiceRunsItOnce() async throws {
        let done = expectation(description: "final block")
        done.assertForOverFulfill = true
        let operation = CKModifyRecordsOperation(recordsToSave: [CKRecord(recordType: "Note")])
        operation.database = database
        operation.modifyRecordsResultBlock = { _ in done.fulfill() }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in operation.start() }
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(server.requestCount, 1)
    }
}
