@_spi(Testing) import Stratus
import StratusToolkit
import XCTest
import _StratusTestSupport

/// The batch-splitting recipe: any number of records, split into requests the server takes,
/// with results per record as if one operation had run.
final class RecipeBatchTests: RecipeTestCase {
    private func notes(_ count: Int, prefix: String = "n", in zoneID: CKRecordZone.ID = .default) -> [CKRecord] {
        (0..<count).map { record("\(prefix)\($0)", in: zoneID) }
    }

    func testAThousandRecordsAreSavedInRequestsOfFourHundred() async throws {
        let service = ItemFaultService(server: server)
        let records = notes(1_000)
        let results = try await database(through: service).modifyRecordsInBatches(saving: records)
        XCTAssertEqual(service.sentModifies.value.map(\.count), [400, 400, 200])
        XCTAssertEqual(results.saveResults.count, 1_000)
        XCTAssertTrue(results.saveResults.values.allSatisfy { (try? $0.get()) != nil })
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testLimitExceededHalvesTheRequestUntilTheServerTakesIt() async throws {
        let service = ItemFaultService(server: server)
        let records = notes(1_000)
        let results = try await database(through: service).modifyRecordsInBatches(
            saving: records, splitting: BatchSplitting(maximumItemsPerRequest: 1_000)
        )
        XCTAssertEqual(service.sentModifies.value.map(\.count), [1_000, 500, 250, 250, 500, 250, 250])
        XCTAssertTrue(results.saveResults.values.allSatisfy { (try? $0.get()) != nil })
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testRecordsNearTheRecordLimitAreSplitByTheRequestSize() async throws {
        let service = ItemFaultService(server: server)
        let big = String(repeating: "x", count: 900_000)
        let records = (0..<5).map { record("big\($0)", text: big) }
        let results = try await database(through: service).modifyRecordsInBatches(saving: records)
        XCTAssertEqual(service.sentModifies.value.map(\.count), [2, 2, 1], "two 900 KB records fit in 2 MB, three do not")
        XCTAssertTrue(results.saveResults.values.allSatisfy { (try? $0.get()) != nil })
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testARecordThatCanNeverFitFailsAloneWithItsOwnLimitExceeded() async throws {
        let service = ItemFaultService(server: server)
        var records = notes(10)
        let huge = record("huge", text: String(repeating: "x", count: 1_100_000))
        records.insert(huge, at: 5)
        let results = try await database(through: service).modifyRecordsInBatches(saving: records)
        guard case .failure(let error as CKError)? = results.saveResults[huge.recordID] else {
            return XCTFail("the huge record must fail")
        }
        XCTAssertEqual(error.code, .limitExceeded)
        XCTAssertTrue(error.localizedDescription.contains("huge"), error.localizedDescription)
        XCTAssertEqual(service.sentModifies.value, [records.filter { $0 !== huge }.map(\.recordID.recordName)])
        for record in records where record !== huge {
            XCTAssertNotNil(try? results.saveResults[record.recordID]?.get(), "the others are not failed with it")
        }
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testRecordsThatReferenceEachOtherShareARequestWithTheirTargetFirst() async throws {
        let service = ItemFaultService(server: server)
        let loose = notes(300, prefix: "loose")
        let album = record("album")
        let photos = (0..<150).map { index -> CKRecord in
            let photo = record("photo\(index)")
            photo["album"] = CKRecord.Reference(record: album, action: .deleteSelf)
            return photo
        }
        // The children come before their parent, and the loose records are between them.
        let records = Array(photos[0..<75]) + loose + Array(photos[75...]) + [album]
        let results = try await database(through: service).modifyRecordsInBatches(saving: records)
        let requests = service.sentModifies.value
        XCTAssertEqual(requests.count, 2)
        guard let albumRequest = requests.first(where: { $0.contains("album") }) else { return XCTFail("album not sent") }
        XCTAssertTrue(photos.allSatisfy { albumRequest.contains($0.recordID.recordName) }, "the album and its photos travel together")
        let albumPosition = albumRequest.firstIndex(of: "album") ?? .max
        XCTAssertTrue(photos.allSatisfy { (albumRequest.firstIndex(of: $0.recordID.recordName) ?? 0) > albumPosition }, "the target goes before the records that reference it")
        XCTAssertTrue(results.saveResults.values.allSatisfy { (try? $0.get()) != nil })
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testAGroupTooLargeForOneRequestIsCutWithItsTargetsInTheFirstPart() async throws {
        let service = ItemFaultService(server: server)
        let parent = record("parent")
        let children = (0..<450).map { index -> CKRecord in
            let child = record("child\(index)")
            child.setParent(parent)
            return child
        }
        let results = try await database(through: service).modifyRecordsInBatches(saving: children + [parent])
        XCTAssertEqual(service.sentModifies.value.map(\.count), [400, 51])
        XCTAssertEqual(service.sentModifies.value.first?.first, "parent")
        XCTAssertTrue(results.saveResults.values.allSatisfy { (try? $0.get()) != nil }, "no child fails with referenceViolation")
        // The children saved by the second request give the parent a new change tag, as iCloud
        // does (design.md, references): the parent as the first request saved it is stale.
        try await assertEachSavedRecordWrittenOnce(results.saveResults.filter { $0.key != parent.recordID })
        let reported = try results.saveResults[parent.recordID]?.get()
        let onServer = try await database.record(for: parent.recordID)
        XCTAssertNotEqual(onServer.recordChangeTag, reported?.recordChangeTag)
    }

    func testZonesAreSplitFirst() async throws {
        let first = try await zone("First")
        let second = try await zone("Second")
        let service = ItemFaultService(server: server)
        var records: [CKRecord] = []
        for index in 0..<5 {
            records += [record("a\(index)", in: first), record("b\(index)", in: second), record("c\(index)")]
        }
        let results = try await database(through: service).modifyRecordsInBatches(saving: records)
        XCTAssertEqual(service.sentModifies.value.map { Set($0.map { String($0.prefix(1)) }) }, [["a"], ["b"], ["c"]])
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testAnAtomicBatchTooLargeForOneRequestIsRefusedAndTheErrorSaysWhy() async throws {
        let zoneID = try await zone("Album")
        let service = ItemFaultService(server: server)
        let records = notes(450, in: zoneID)
        let results = try await database(through: service).modifyRecordsInBatches(saving: records)
        XCTAssertTrue(service.sentModifies.value.isEmpty, "nothing is sent")
        for result in results.saveResults.values {
            guard case .failure(let error as CKError) = result else { return XCTFail("expected a refusal") }
            XCTAssertEqual(error.code, .limitExceeded)
            XCTAssertTrue(error.localizedDescription.contains("atomic"), error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains("allowsSplittingAtomicBatches"), error.localizedDescription)
        }
        XCTAssertTrue(server.recordedWrites.isEmpty)
    }

    func testAnAtomicBatchTheServerRefusesIsNotHalvedUnlessAllowed() async throws {
        let zoneID = try await zone("Album")
        let records = notes(500, in: zoneID)
        let refused = try await database.modifyRecordsInBatches(saving: records, splitting: BatchSplitting(maximumItemsPerRequest: 1_000))
        XCTAssertTrue(refused.saveResults.values.allSatisfy { $0.failureCode == .limitExceeded })
        XCTAssertTrue(server.recordedWrites.isEmpty)

        let allowed = try await database.modifyRecordsInBatches(
            saving: records, splitting: BatchSplitting(maximumItemsPerRequest: 1_000, allowsSplittingAtomicBatches: true)
        )
        XCTAssertTrue(allowed.saveResults.values.allSatisfy { (try? $0.get()) != nil })
        try await assertEachSavedRecordWrittenOnce(allowed.saveResults)
    }

    func testAnAtomicBatchIsSplitWhenTheCallerAllowsIt() async throws {
        let zoneID = try await zone("Album")
        let service = ItemFaultService(server: server)
        let records = notes(450, in: zoneID)
        let results = try await database(through: service).modifyRecordsInBatches(
            saving: records, splitting: BatchSplitting(allowsSplittingAtomicBatches: true)
        )
        XCTAssertEqual(service.sentModifies.value.map(\.count), [400, 50])
        XCTAssertTrue(results.saveResults.values.allSatisfy { (try? $0.get()) != nil })
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testDeletesAreSplitToo() async throws {
        let records = notes(900)
        _ = try await database.modifyRecordsInBatches(saving: records)
        let service = ItemFaultService(server: server)
        let results = try await database(through: service).modifyRecordsInBatches(deleting: records.map(\.recordID))
        XCTAssertEqual(service.sentModifies.value.map(\.count), [400, 400, 100])
        XCTAssertEqual(results.deleteResults.count, 900)
        XCTAssertTrue(results.deleteResults.values.allSatisfy { (try? $0.get()) != nil })
        XCTAssertEqual(server.recordedWrites.filter(\.isDeletion).count, 900)
    }

    func testABatchOperationRetriesEachRequestAndReportsEveryRecordOnce() async throws {
        let service = ItemFaultService(server: server)
        service.failItem("n450", with: .zoneBusy, retryAfter: 2)
        server.failNextRequests(1, with: .serviceUnavailable, retryAfter: 1)
        let records = notes(900)
        let operation = BatchModifyOperation(database: database(through: service), recordsToSave: records, retry: drivingPolicy())
        operation.isAtomic = false
        let reported = Captured<[(CKRecord.ID, Result<CKRecord, any Error>)]>([])
        let done = expectation(description: "finished")
        let final = Captured<Result<Void, any Error>?>(nil)
        operation.perRecordSaveBlock = { recordID, result in reported.value.append((recordID, result)) }
        operation.modifyRecordsResultBlock = { result in
            final.value = result
            done.fulfill()
        }
        OperationQueue().addOperation(operation)
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(reported.value.map(\.0), records.map(\.recordID), "each record once, in the order given")
        if case .failure(let error)? = final.value { XCTFail("expected success, got \(error)") }
        XCTAssertEqual(retries.value.map(\.wait), [.seconds(1), .seconds(2)])
        try await assertEachSavedRecordWrittenOnce(Dictionary(reported.value, uniquingKeysWith: { first, _ in first }))
    }

    func testARecordNamedTwiceFailsEachTimeAsInOneOperationWhicheverRequestsItWouldLandIn() async throws {
        let records = notes(500)
        let twin = record("n3")
        let results = try await database.modifyRecordsInBatches(saving: records + [twin], deleting: [CKRecord.ID(recordName: "n450")])
        XCTAssertEqual(results.saveResults[twin.recordID]?.failureCode, .invalidArguments)
        XCTAssertEqual(results.deleteResults[CKRecord.ID(recordName: "n450")]?.failureCode, .invalidArguments)
        XCTAssertEqual(results.saveResults[CKRecord.ID(recordName: "n450")]?.failureCode, .invalidArguments)
        XCTAssertEqual(results.saveResults.values.filter { (try? $0.get()) != nil }.count, 498)
        XCTAssertNil(writesByName["n3"])
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testAPartialFailureKeepsEverySuccessfulSave() async throws {
        let records = notes(500)
        let stale = records[420]
        _ = try await database.save(stale)
        server.isRecordingWrites = true
        let results = try await database.modifyRecordsInBatches(saving: records, atomically: false)
        XCTAssertEqual(results.saveResults[stale.recordID]?.failureCode, .serverRecordChanged)
        XCTAssertEqual(results.saveResults.values.filter { (try? $0.get()) != nil }.count, 499)
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }
}
