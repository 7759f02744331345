import Stratus
import XCTest

/// Batches of saves and deletes: the client-side checks that fail items before any request,
/// atomic batches per zone (`cloudkit-api.md` §16.3), per-item results of non-atomic batches,
/// and the `partialFailure` error keyed by the caller's own ID objects.
final class BatchTests: ServerTestCase {
    // MARK: - Helpers

    private func note(_ name: String, zone: CKRecordZone.ID = .default, text: String = "hello") -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        record["text"] = text
        return record
    }

    /// Creates a custom zone, which has the atomic capability.
    private func makeZone(_ name: String, in db: CKDatabase) async throws -> CKRecordZone.ID {
        let zone = try await db.save(CKRecordZone(zoneName: name))
        XCTAssertTrue(zone.capabilities.contains(.atomic))
        return zone.zoneID
    }

    /// The error of `id` in a partial failure, found by equality.
    private func partialCode(_ error: CKError?, _ id: CKRecord.ID) -> CKError.Code? {
        (error?.partialErrorsByItemID?[id] as? CKError)?.code
    }

    private func text(of id: CKRecord.ID, in db: CKDatabase) async throws -> String? {
        let results = try await db.records(for: [id])
        guard case .success(let record)? = results[id] else { return nil }
        return record["text"] as? String
    }

    /// Asserts that a save of `record` alone fails on the client with `invalidArguments` and
    /// sends nothing.
    private func assertRejectedByClient(_ record: CKRecord, file: StaticString = #filePath, line: UInt = #line) async {
        let db = device("john").privateCloudDatabase
        let before = server.requestCount
        await assertThrowsCKError(.invalidArguments, file: file, line: line) { try await db.save(record) }
        XCTAssertEqual(server.requestCount, before, "a client-side failure must cost no request", file: file, line: line)
    }

    // MARK: - Client-side checks

    func testAnEmptyRecordNameFailsWithoutARequest() async {
        await assertRejectedByClient(note(""))
    }

    func testARecordNameOverTwoHundredFiftyFiveUTF8BytesFailsWithoutARequest() async throws {
        // 128 × "é" is 128 characters but 256 UTF-8 bytes.
        await assertRejectedByClient(note(String(repeating: "é", count: 128)))
        // 255 bytes is fine.
        let db = device("john").privateCloudDatabase
        let longest = note(String(repeating: "a", count: 255))
        _ = try await db.save(longest)
        let fetched = try await db.record(for: longest.recordID)
        XCTAssertEqual(fetched.recordID.recordName.utf8.count, 255)
    }

    func testAFieldKeyStartingWithAnUnderscoreFailsWithoutARequest() async {
        let record = note("n")
        record["_x"] = "value"
        await assertRejectedByClient(record)
    }

    func testAFieldKeyNamedLikeASystemFieldFailsWithoutARequest() async {
        let record = note("n")
        record["recordID"] = "value"
        await assertRejectedByClient(record)
    }

    func testARejectedValueFailsWithoutARequestAndTheMessageNamesTheKey() async {
        let record = note("n")
        record["huge"] = UInt64.max
        let db = device("john").privateCloudDatabase
        let error = await assertThrowsCKError(.invalidArguments) { try await db.save(record) }
        XCTAssertTrue(error?.localizedDescription.contains("huge") ?? false, "\(String(describing: error))")
        XCTAssertEqual(server.requestCount, 0)
    }

    func testTheSameRecordIDTwiceInOneBatchFailsWithoutARequest() async {
        let db = device("john").privateCloudDatabase
        let first = note("twin", text: "one")
        let second = note("twin", text: "two")
        let error = await assertThrowsCKError(.partialFailure) {
            try await db.modifyRecords(saving: [first, second], deleting: [])
        }
        XCTAssertEqual(error?.partialErrorsByItemID?.count, 1)
        XCTAssertEqual(partialCode(error, first.recordID), .invalidArguments)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testSavingAndDeletingTheSameRecordInOneBatchFailsBoth() async throws {
        let db = device("john").privateCloudDatabase
        let record = note("n")
        let (saveResults, deleteResults) = try await db.modifyRecords(saving: [record], deleting: [record.recordID], atomically: false)
        XCTAssertEqual(code(deleteResults[record.recordID]), .invalidArguments)
        XCTAssertEqual(code(saveResults[record.recordID]), .invalidArguments)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testAReferenceToAnotherZoneFailsWithoutARequest() async {
        let record = note("n")
        let elsewhere = CKRecord.ID(recordName: "target", zoneID: CKRecordZone.ID(zoneName: "Other"))
        record["link"] = CKRecord.Reference(recordID: elsewhere, action: .none)
        await assertRejectedByClient(record)
    }

    func testAReferenceToAnotherZoneInAListFailsWithoutARequest() async {
        let record = note("n")
        let here = CKRecord.ID(recordName: "here")
        let elsewhere = CKRecord.ID(recordName: "target", zoneID: CKRecordZone.ID(zoneName: "Other"))
        record["links"] = [CKRecord.Reference(recordID: here, action: .none), CKRecord.Reference(recordID: elsewhere, action: .none)]
        await assertRejectedByClient(record)
    }

    // MARK: - Client-side failures in atomic batches

    func testAClientSideFailureFailsTheOtherItemsOfItsZoneInAnAtomicBatch() async throws {
        let container = device("john")
        let db = container.privateCloudDatabase
        let zoneA = try await makeZone("A", in: db)
        let zoneB = try await makeZone("B", in: db)
        let bad = note("", zone: zoneA)
        let sibling = note("sibling", zone: zoneA)
        let other = note("other", zone: zoneB)

        let error = await assertThrowsCKError(.partialFailure) {
            try await db.modifyRecords(saving: [bad, sibling, other], deleting: [], atomically: true)
        }
        XCTAssertEqual(partialCode(error, bad.recordID), .invalidArguments)
        XCTAssertEqual(partialCode(error, sibling.recordID), .batchRequestFailed)
        XCTAssertNil(error?.partialErrorsByItemID?[other.recordID], "another zone's item must not fail")
        let siblingText = try await text(of: sibling.recordID, in: db)
        XCTAssertNil(siblingText)
        let otherText = try await text(of: other.recordID, in: db)
        XCTAssertEqual(otherText, "hello")
    }

    func testAClientSideFailureFailsTheOtherItemsOfTheDefaultZoneInAnAtomicBatch() async throws {
        let db = device("john").privateCloudDatabase
        let zone = try await makeZone("Elsewhere", in: db)
        let existing = note("existing")
        _ = try await db.save(existing)

        let bad = note("bad")
        bad["_x"] = "value"
        let sibling = note("sibling")
        let other = note("other", zone: zone)

        let error = await assertThrowsCKError(.partialFailure) {
            try await db.modifyRecords(saving: [bad, sibling, other], deleting: [existing.recordID], atomically: true)
        }
        XCTAssertEqual(partialCode(error, bad.recordID), .invalidArguments)
        XCTAssertEqual(partialCode(error, sibling.recordID), .batchRequestFailed)
        XCTAssertEqual(partialCode(error, existing.recordID), .batchRequestFailed)
        XCTAssertNil(error?.partialErrorsByItemID?[other.recordID])

        let siblingText = try await text(of: sibling.recordID, in: db)
        XCTAssertNil(siblingText, "the default zone's other items must not be saved")
        let existingText = try await text(of: existing.recordID, in: db)
        XCTAssertEqual(existingText, "hello", "the default zone's delete must not happen")
        let otherText = try await text(of: other.recordID, in: db)
        XCTAssertEqual(otherText, "hello")
    }

    func testAnAtomicBatchWhoseOnlyZoneFailedOnTheClientSendsNothing() async {
        let db = device("john").privateCloudDatabase
        let bad = note("")
        let sibling = note("sibling")
        let before = server.requestCount
        let error = await assertThrowsCKError(.partialFailure) {
            try await db.modifyRecords(saving: [bad, sibling], deleting: [], atomically: true)
        }
        XCTAssertEqual(partialCode(error, sibling.recordID), .batchRequestFailed)
        XCTAssertEqual(server.requestCount, before)
    }

    func testAClientSideFailureInANonAtomicBatchFailsOnlyItsItem() async throws {
        let db = device("john").privateCloudDatabase
        let bad = note("bad")
        bad["recordType"] = "value"
        let good = note("good")
        let (saveResults, _) = try await db.modifyRecords(saving: [bad, good], deleting: [], atomically: false)
        XCTAssertEqual(code(saveResults[bad.recordID]), .invalidArguments)
        XCTAssertNotNil(try? saveResults[good.recordID]?.get())
        let goodText = try await text(of: good.recordID, in: db)
        XCTAssertEqual(goodText, "hello")
    }

    // MARK: - Server-side atomic batches

    func testAStaleChangeTagFailsTheWholeAtomicZoneAndNoOtherZone() async throws {
        let db = device("john").privateCloudDatabase
        let zone = try await makeZone("Party", in: db)
        let otherZone = try await makeZone("Other", in: db)
        let firstSave = try await db.save(note("stale", zone: zone, text: "v1"))
        // "stale" changes on the server after we saved our copy.
        let fresh = try await db.record(for: firstSave.recordID)
        fresh["text"] = "v2"
        _ = try await db.save(fresh)

        let keeper = try await db.save(note("keeper", zone: zone, text: "kept"))
        let doomed = try await db.save(note("doomed", zone: zone, text: "still here"))

        firstSave["text"] = "stale edit"            // carries the old change tag
        keeper["text"] = "edited"                  // carries the current change tag
        let added = note("added", zone: zone)
        let inOtherZone = note("elsewhere", zone: otherZone)
        let inDefaultZone = note("default")

        let error = await assertThrowsCKError(.partialFailure) {
            try await db.modifyRecords(
                saving: [firstSave, keeper, added, inOtherZone, inDefaultZone],
                deleting: [doomed.recordID],
                atomically: true
            )
        }
        XCTAssertEqual(partialCode(error, firstSave.recordID), .serverRecordChanged)
        XCTAssertEqual(partialCode(error, keeper.recordID), .batchRequestFailed)
        XCTAssertEqual(partialCode(error, added.recordID), .batchRequestFailed)
        XCTAssertEqual(partialCode(error, doomed.recordID), .batchRequestFailed)
        XCTAssertNil(error?.partialErrorsByItemID?[inOtherZone.recordID])
        XCTAssertNil(error?.partialErrorsByItemID?[inDefaultZone.recordID])
        XCTAssertEqual(error?.partialErrorsByItemID?.count, 4)

        // Nothing in the atomic zone changed.
        let staleText = try await text(of: firstSave.recordID, in: db)
        XCTAssertEqual(staleText, "v2")
        let keeperText = try await text(of: keeper.recordID, in: db)
        XCTAssertEqual(keeperText, "kept")
        let addedText = try await text(of: added.recordID, in: db)
        XCTAssertNil(addedText)
        let doomedText = try await text(of: doomed.recordID, in: db)
        XCTAssertEqual(doomedText, "still here")
        // The other zones are unaffected.
        let otherText = try await text(of: inOtherZone.recordID, in: db)
        XCTAssertEqual(otherText, "hello")
        let defaultText = try await text(of: inDefaultZone.recordID, in: db)
        XCTAssertEqual(defaultText, "hello")
    }

    func testAFailedAtomicZoneKeepsItsRecordsChangeTags() async throws {
        let db = device("john").privateCloudDatabase
        let zone = try await makeZone("Party", in: db)
        let keeper = try await db.save(note("keeper", zone: zone))
        let tag = keeper.recordChangeTag
        _ = try await db.save(note("keeper-twin", zone: zone))
        let insertAgain = note("keeper-twin", zone: zone)  // new record whose ID exists

        keeper["text"] = "edited"
        let error = await assertThrowsCKError(.partialFailure) {
            try await db.modifyRecords(saving: [keeper, insertAgain], deleting: [], atomically: true)
        }
        XCTAssertEqual(partialCode(error, insertAgain.recordID), .serverRecordChanged)
        XCTAssertEqual(partialCode(error, keeper.recordID), .batchRequestFailed)
        let fetched = try await db.record(for: keeper.recordID)
        XCTAssertEqual(fetched.recordChangeTag, tag)
        XCTAssertEqual(fetched["text"] as? String, "hello")
    }

    func testTheDefaultZoneIsNotAtomicSoItsOtherItemsAreSaved() async throws {
        let db = device("john").privateCloudDatabase
        let old = try await db.save(note("stale", text: "v1"))
        let fresh = try await db.record(for: old.recordID)
        fresh["text"] = "v2"
        _ = try await db.save(fresh)
        let doomed = try await db.save(note("doomed"))

        old["text"] = "stale edit"
        let added = note("added")
        let error = await assertThrowsCKError(.partialFailure) {
            try await db.modifyRecords(saving: [old, added], deleting: [doomed.recordID], atomically: true)
        }
        XCTAssertEqual(error?.partialErrorsByItemID?.count, 1)
        XCTAssertEqual(partialCode(error, old.recordID), .serverRecordChanged)

        let staleText = try await text(of: old.recordID, in: db)
        XCTAssertEqual(staleText, "v2")
        let addedText = try await text(of: added.recordID, in: db)
        XCTAssertEqual(addedText, "hello")
        let doomedText = try await text(of: doomed.recordID, in: db)
        XCTAssertNil(doomedText)
    }

    // MARK: - Non-atomic batches

    func testANonAtomicBatchReturnsPerItemResultsEvenInAnAtomicZone() async throws {
        let db = device("john").privateCloudDatabase
        let zone = try await makeZone("Party", in: db)
        let old = try await db.save(note("stale", zone: zone, text: "v1"))
        let fresh = try await db.record(for: old.recordID)
        fresh["text"] = "v2"
        _ = try await db.save(fresh)
        let doomed = try await db.save(note("doomed", zone: zone))

        old["text"] = "stale edit"
        let added = note("added", zone: zone)
        let (saveResults, deleteResults) = try await db.modifyRecords(
            saving: [old, added],
            deleting: [doomed.recordID],
            atomically: false
        )
        XCTAssertEqual(code(saveResults[old.recordID]), .serverRecordChanged)
        let saved = try XCTUnwrap(try? saveResults[added.recordID]?.get())
        XCTAssertNotNil(saved.recordChangeTag)
        XCTAssertNotNil(try? deleteResults[doomed.recordID]?.get())

        let addedText = try await text(of: added.recordID, in: db)
        XCTAssertEqual(addedText, "hello")
        let doomedText = try await text(of: doomed.recordID, in: db)
        XCTAssertNil(doomedText)
        let staleText = try await text(of: old.recordID, in: db)
        XCTAssertEqual(staleText, "v2")
    }

    func testAServerRecordChangedItemCarriesTheServerRecord() async throws {
        let db = device("john").privateCloudDatabase
        let old = try await db.save(note("stale", text: "v1"))
        let fresh = try await db.record(for: old.recordID)
        fresh["text"] = "v2"
        let current = try await db.save(fresh)
        old["text"] = "stale edit"
        let (saveResults, _) = try await db.modifyRecords(saving: [old], deleting: [], atomically: false)
        guard case .failure(let failure as CKError)? = saveResults[old.recordID] else {
            return XCTFail("expected a CKError, got \(String(describing: saveResults[old.recordID]))")
        }
        XCTAssertEqual(failure.code, .serverRecordChanged)
        XCTAssertEqual(failure.serverRecord?.recordChangeTag, current.recordChangeTag)
        XCTAssertEqual(failure.serverRecord?["text"] as? String, "v2")
        XCTAssertEqual(failure.clientRecord?["text"] as? String, "stale edit")
    }

    // MARK: - Keys of the results

    func testPartialErrorsAreKeyedByTheIDObjectsPassed() async throws {
        let db = device("john").privateCloudDatabase
        let zone = try await makeZone("Party", in: db)
        let old = try await db.save(note("stale", zone: zone))
        let fresh = try await db.record(for: old.recordID)
        fresh["text"] = "v2"
        _ = try await db.save(fresh)
        let doomed = try await db.save(note("doomed", zone: zone))

        old["text"] = "stale edit"
        let passedSaveID = old.recordID
        let added = note("added", zone: zone)
        let passedAddedID = added.recordID
        // A new ID object equal to, but not the same as, the ID of the record fetched above.
        let passedDeleteID = CKRecord.ID(recordName: "doomed", zoneID: CKRecordZone.ID(zoneName: "Party"))
        XCTAssertFalse(passedDeleteID === doomed.recordID)

        let error = await assertThrowsCKError(.partialFailure) {
            try await db.modifyRecords(saving: [old, added], deleting: [passedDeleteID], atomically: true)
        }
        let partial = try XCTUnwrap(error?.partialErrorsByItemID)
        XCTAssertEqual(partial.count, 3)
        for passed in [passedSaveID, passedAddedID, passedDeleteID] {
            let key = partial.keys.first { ($0.base as AnyObject) === passed }
            XCTAssertNotNil(key, "no key is the very ID object passed for \(passed.recordName)")
        }
    }

    func testPerItemResultsAreKeyedByTheIDObjectsPassed() async throws {
        let db = device("john").privateCloudDatabase
        _ = try await db.save(note("doomed"))
        let record = note("saved")
        let passedDeleteID = CKRecord.ID(recordName: "doomed")
        let (saveResults, deleteResults) = try await db.modifyRecords(saving: [record], deleting: [passedDeleteID], atomically: false)
        XCTAssertTrue(saveResults.keys.contains { $0 === record.recordID })
        XCTAssertTrue(deleteResults.keys.contains { $0 === passedDeleteID })
        let fetched = try await db.records(for: [passedDeleteID, record.recordID])
        XCTAssertTrue(fetched.keys.contains { $0 === passedDeleteID })
    }
}
