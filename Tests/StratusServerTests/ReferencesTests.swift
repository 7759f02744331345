import Stratus
import XCTest

/// References between records: `deleteSelf` cascades (`cloudkit-api.md` §16.4), the rule that a
/// `deleteSelf` or parent target must exist, the 750-source limit, and targets' change tags.
final class ReferencesTests: ServerTestCase {
    // MARK: - Helpers

    private func item(_ name: String, zone: CKRecordZone.ID = .default) -> CKRecord {
        CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name, zoneID: zone))
    }

    /// A record holding a reference to `target` under `owner`.
    private func item(_ name: String, pointingAt target: CKRecord.ID, action: CKRecord.ReferenceAction = .deleteSelf) -> CKRecord {
        let record = item(name, zone: target.zoneID)
        record["owner"] = CKRecord.Reference(recordID: target, action: action)
        return record
    }

    private func assertExists(_ id: CKRecord.ID, in db: CKDatabase, file: StaticString = #filePath, line: UInt = #line) async throws {
        let results = try await db.records(for: [id])
        XCTAssertNotNil(try? results[id]?.get(), "\(id.recordName) should exist", file: file, line: line)
    }

    private func assertMissing(_ id: CKRecord.ID, in db: CKDatabase, file: StaticString = #filePath, line: UInt = #line) async throws {
        let results = try await db.records(for: [id])
        XCTAssertEqual(code(results[id]), .unknownItem, "\(id.recordName) should not exist", file: file, line: line)
    }

    // MARK: - Cascades

    func testDeletingATargetDeletesItsDeleteSelfChainTransitively() async throws {
        let db = device("john").privateCloudDatabase
        let a = item("A")
        let b = item("B", pointingAt: a.recordID)
        let c = item("C", pointingAt: b.recordID)
        _ = try await db.modifyRecords(saving: [a, b, c], deleting: [])
        try await assertExists(c.recordID, in: db)

        try await db.deleteRecord(withID: a.recordID)

        try await assertMissing(a.recordID, in: db)
        try await assertMissing(b.recordID, in: db)
        try await assertMissing(c.recordID, in: db)
    }

    func testACascadeWorksInACustomZoneAndThroughAListOfReferences() async throws {
        let db = device("john").privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Party")).zoneID
        let a = item("A", zone: zone)
        let other = item("Other", zone: zone)
        let b = item("B", zone: zone)
        b["owners"] = [
            CKRecord.Reference(recordID: other.recordID, action: .deleteSelf),
            CKRecord.Reference(recordID: a.recordID, action: .deleteSelf),
        ]
        _ = try await db.modifyRecords(saving: [a, other, b], deleting: [])

        try await db.deleteRecord(withID: a.recordID)

        try await assertMissing(b.recordID, in: db)
        try await assertExists(other.recordID, in: db)
    }

    func testANoneReferenceDoesNotCascade() async throws {
        let db = device("john").privateCloudDatabase
        let a = item("A")
        let weak = item("Weak", pointingAt: a.recordID, action: .none)
        let strong = item("Strong", pointingAt: a.recordID)
        _ = try await db.modifyRecords(saving: [a, weak, strong], deleting: [])

        try await db.deleteRecord(withID: a.recordID)

        try await assertExists(weak.recordID, in: db)
        try await assertMissing(strong.recordID, in: db)
    }

    func testACycleOfDeleteSelfReferencesIsDeletedWhole() async throws {
        let db = device("john").privateCloudDatabase
        let idA = CKRecord.ID(recordName: "A")
        let idB = CKRecord.ID(recordName: "B")
        let a = item("A", pointingAt: idB)
        let b = item("B", pointingAt: idA)
        // Each target exists only because the other is saved in the same request.
        let (saveResults, _) = try await db.modifyRecords(saving: [a, b], deleting: [])
        XCTAssertNotNil(try? saveResults[idA]?.get())
        XCTAssertNotNil(try? saveResults[idB]?.get())

        try await db.deleteRecord(withID: idA)

        try await assertMissing(idA, in: db)
        try await assertMissing(idB, in: db)
    }

    func testCascadedDeletionsAreNotReportedInTheDeleteResults() async throws {
        let container = device("john")
        let db = container.privateCloudDatabase
        let a = item("A")
        let b = item("B", pointingAt: a.recordID)
        let c = item("C", pointingAt: b.recordID)
        _ = try await db.modifyRecords(saving: [a, b, c], deleting: [])

        let (saveResults, deleteResults) = try await db.modifyRecords(saving: [], deleting: [a.recordID])
        XCTAssertTrue(saveResults.isEmpty)
        XCTAssertEqual(Array(deleteResults.keys), [a.recordID])
        try await assertMissing(c.recordID, in: db)
    }

    func testTheServerAnswersADeleteWithOneResultPerDeletedIDOnly() async throws {
        // The same at the wire, where a server could add results for cascaded records.
        let container = device("john")
        let db = container.privateCloudDatabase
        let a = item("A")
        let b = item("B", pointingAt: a.recordID)
        let c = item("C", pointingAt: b.recordID)
        _ = try await db.modifyRecords(saving: [a, b, c], deleting: [])

        let response = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(db),
            deletes: [WireRecordID(recordName: "A")]
        ))
        XCTAssertTrue(response.saveResults.isEmpty)
        XCTAssertEqual(response.deleteResults.map(\.id), [WireRecordID(recordName: "A")])
        try await assertMissing(b.recordID, in: db)
        try await assertMissing(c.recordID, in: db)
    }

    func testRemovingADeleteSelfReferenceStopsTheCascade() async throws {
        let db = device("john").privateCloudDatabase
        let a = item("A")
        let released = item("Released", pointingAt: a.recordID)
        let softened = item("Softened", pointingAt: a.recordID)
        _ = try await db.modifyRecords(saving: [a, released, softened], deleting: [])

        let fetchedReleased = try await db.record(for: released.recordID)
        fetchedReleased["owner"] = nil
        let fetchedSoftened = try await db.record(for: softened.recordID)
        fetchedSoftened["owner"] = CKRecord.Reference(recordID: a.recordID, action: .none)
        _ = try await db.modifyRecords(saving: [fetchedReleased, fetchedSoftened], deleting: [])

        try await db.deleteRecord(withID: a.recordID)
        try await assertMissing(a.recordID, in: db)
        try await assertExists(released.recordID, in: db)
        try await assertExists(softened.recordID, in: db)
    }

    func testARolledBackAtomicBatchRestoresTheRecordsItsDeleteCascadedTo() async throws {
        let db = device("john").privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Party")).zoneID
        let a = item("A", zone: zone)
        let b = item("B", pointingAt: a.recordID)
        let c = item("C", pointingAt: b.recordID)
        let d = item("D", zone: zone)
        _ = try await db.modifyRecords(saving: [a, b, c, d], deleting: [])
        let tagOfC = try await db.record(for: c.recordID).recordChangeTag

        let clash = item("D", zone: zone)  // a new record whose ID exists: serverRecordChanged
        let error = await assertThrowsCKError(.partialFailure) {
            try await db.modifyRecords(saving: [clash], deleting: [a.recordID], atomically: true)
        }
        XCTAssertEqual((error?.partialErrorsByItemID?[a.recordID] as? CKError)?.code, .batchRequestFailed)

        try await assertExists(a.recordID, in: db)
        try await assertExists(b.recordID, in: db)
        let restoredC = try await db.record(for: c.recordID)
        XCTAssertEqual(restoredC.recordChangeTag, tagOfC)

        // The restored chain still cascades.
        try await db.deleteRecord(withID: a.recordID)
        try await assertMissing(c.recordID, in: db)
    }

    // MARK: - Targets must exist

    func testADeleteSelfReferenceToAMissingRecordFailsWithReferenceViolation() async throws {
        let db = device("john").privateCloudDatabase
        let orphan = item("orphan", pointingAt: CKRecord.ID(recordName: "missing"))
        await assertThrowsCKError(.referenceViolation) { try await db.save(orphan) }
        try await assertMissing(orphan.recordID, in: db)
    }

    func testAParentThatIsMissingFailsWithReferenceViolation() async throws {
        let db = device("john").privateCloudDatabase
        let child = item("child")
        child.setParent(CKRecord.ID(recordName: "missing"))
        await assertThrowsCKError(.referenceViolation) { try await db.save(child) }
        try await assertMissing(child.recordID, in: db)
    }

    func testANoneReferenceToAMissingRecordIsSaved() async throws {
        let db = device("john").privateCloudDatabase
        let dangling = item("dangling", pointingAt: CKRecord.ID(recordName: "missing"), action: .none)
        _ = try await db.save(dangling)
        try await assertExists(dangling.recordID, in: db)
    }

    func testADeleteSelfTargetSavedInTheSameRequestIsEnough() async throws {
        let db = device("john").privateCloudDatabase
        let target = item("target")
        let source = item("source", pointingAt: target.recordID)
        // The source comes first: the order within the request does not matter.
        let (saveResults, _) = try await db.modifyRecords(saving: [source, target], deleting: [])
        XCTAssertNotNil(try? saveResults[source.recordID]?.get())
        XCTAssertNotNil(try? saveResults[target.recordID]?.get())
        try await assertExists(source.recordID, in: db)
    }

    func testAParentSavedInTheSameRequestIsEnough() async throws {
        let db = device("john").privateCloudDatabase
        let parent = item("parent")
        let child = item("child")
        child.setParent(parent)
        let (saveResults, _) = try await db.modifyRecords(saving: [child, parent], deleting: [])
        XCTAssertNotNil(try? saveResults[child.recordID]?.get())
        let fetched = try await db.record(for: child.recordID)
        XCTAssertEqual(fetched.parent?.recordID, parent.recordID)
    }

    func testATargetWhoseOwnSaveFailsInTheSameRequestDoesNotCount() async throws {
        // "Saved in the same request" means saved: a target whose save fails leaves its
        // deleteSelf sources pointing at nothing, so they fail too, whichever comes first.
        let db = device("john").privateCloudDatabase
        let typed = item("typed")
        typed["size"] = "large"
        _ = try await db.save(typed)

        let target = item("target")
        target["size"] = 3                       // the schema says String: invalidArguments
        let before = item("before", pointingAt: target.recordID)
        let after = item("after", pointingAt: target.recordID)
        let (saveResults, _) = try await db.modifyRecords(saving: [before, target, after], deleting: [], atomically: false)
        XCTAssertEqual(code(saveResults[target.recordID]), .invalidArguments)
        XCTAssertEqual(code(saveResults[before.recordID]), .referenceViolation)
        XCTAssertEqual(code(saveResults[after.recordID]), .referenceViolation)
        try await assertMissing(before.recordID, in: db)
        try await assertMissing(after.recordID, in: db)
    }

    func testADeleteSelfTargetThatWasDeletedFailsWithReferenceViolation() async throws {
        let db = device("john").privateCloudDatabase
        let target = item("target")
        _ = try await db.save(target)
        try await db.deleteRecord(withID: target.recordID)
        await assertThrowsCKError(.referenceViolation) { try await db.save(self.item("source", pointingAt: target.recordID)) }
    }

    // MARK: - The 750 limit

    func testTheSevenHundredFiftyFirstDeleteSelfReferenceToOneTargetFailsWithLimitExceeded() async throws {
        let db = device("john").privateCloudDatabase
        let target = item("target")
        _ = try await db.save(target)
        let sources = (1...751).map { item("source-\($0)", pointingAt: target.recordID) }

        let (first, _) = try await db.modifyRecords(saving: Array(sources[0..<400]), deleting: [], atomically: false)
        XCTAssertEqual(first.values.filter { (try? $0.get()) != nil }.count, 400)
        let (second, _) = try await db.modifyRecords(saving: Array(sources[400...]), deleting: [], atomically: false)
        for (offset, source) in sources[400..<750].enumerated() {
            XCTAssertNotNil(try? second[source.recordID]?.get(), "source \(401 + offset) should be saved")
        }
        XCTAssertEqual(code(second[sources[750].recordID]), .limitExceeded)
        try await assertMissing(sources[750].recordID, in: db)

        // A source that already points at the target may be saved again.
        let resaved = try await db.record(for: sources[0].recordID)
        resaved["note"] = "edited"
        _ = try await db.save(resaved)

        // A .none reference is not limited.
        _ = try await db.save(item("weak", pointingAt: target.recordID, action: .none))
    }

    func testDeletingASourceMakesRoomUnderTheSevenHundredFiftyLimit() async throws {
        let db = device("john").privateCloudDatabase
        let target = item("target")
        _ = try await db.save(target)
        let sources = (1...750).map { item("source-\($0)", pointingAt: target.recordID) }
        _ = try await db.modifyRecords(saving: Array(sources[0..<375]), deleting: [])
        _ = try await db.modifyRecords(saving: Array(sources[375...]), deleting: [])
        let extra = item("extra", pointingAt: target.recordID)
        await assertThrowsCKError(.limitExceeded) { try await db.save(extra) }

        try await db.deleteRecord(withID: sources[0].recordID)
        _ = try await db.save(extra)
        try await assertExists(extra.recordID, in: db)
    }

    // MARK: - Change tags of targets

    /// The parent reference is the exception: ParentTagTests.
    func testReferencingARecordNeverChangesItsChangeTag() async throws {
        let db = device("john").privateCloudDatabase
        let target = try await db.save(item("target"))
        let tag = try XCTUnwrap(target.recordChangeTag)
        let modified = target.modificationDate

        _ = try await db.save(item("strong", pointingAt: target.recordID, action: .deleteSelf))
        _ = try await db.save(item("weak", pointingAt: target.recordID, action: .none))

        let fetched = try await db.record(for: target.recordID)
        XCTAssertEqual(fetched.recordChangeTag, tag)
        XCTAssertEqual(fetched.modificationDate, modified)
        // And the target can still be saved with the tag it had.
        target["title"] = "edited"
        _ = try await db.save(target)
    }

    func testReferencingARecordInTheSameRequestDoesNotChangeItsChangeTag() async throws {
        let db = device("john").privateCloudDatabase
        let target = item("target")
        let source = item("source", pointingAt: target.recordID)
        let (saveResults, _) = try await db.modifyRecords(saving: [target, source], deleting: [])
        let savedTarget = try XCTUnwrap(try? saveResults[target.recordID]?.get())
        let fetched = try await db.record(for: target.recordID)
        XCTAssertEqual(fetched.recordChangeTag, savedTarget.recordChangeTag)
    }
}
