import Stratus
import Synchronization
import XCTest

/// CloudKit's callback contract (cloudkit-api.md §11), for every operation.
final class CallbackContractTests: OperationTestCase {
    func testPerItemBlocksRunBeforeTheFinalBlockInOrderOnOneSerialQueue() async throws {
        try await seed([note("a"), note("b")])
        let log = EventLog()
        let done = expectation(description: "final block")
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a"), CKRecord.ID(recordName: "missing"), CKRecord.ID(recordName: "b")])
        operation.perRecordProgressBlock = { recordID, progress in log.callback("progress \(recordID.recordName) \(progress)") }
        operation.perRecordResultBlock = { recordID, result in log.callback("result \(recordID.recordName) \(result.failureCode.map { "\($0)" } ?? "ok")") }
        operation.fetchRecordsResultBlock = { result in
            log.callback("final \(result.failureCode.map { "\($0)" } ?? "ok")")
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, [
            "progress a 1.0", "result a ok",
            "result missing unknownItem",
            "progress b 1.0", "result b ok",
            "final partialFailure",
        ])
        XCTAssertEqual(log.overlapCount, 0)
    }

    func testBlocksMayShareStateWithoutLocks() async throws {
        try await seed((0..<20).map { note("n\($0)") })
        var seen: [String] = []   // shared by sibling blocks, as CloudKit allows
        let done = expectation(description: "final block")
        let operation = CKFetchRecordsOperation(recordIDs: (0..<20).map { CKRecord.ID(recordName: "n\($0)") })
        operation.perRecordResultBlock = { recordID, _ in seen.append(recordID.recordName) }
        operation.fetchRecordsResultBlock = { _ in
            XCTAssertEqual(seen.count, 20)
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
    }

    func testFinalBlockRepeatsThePerItemFailures() async throws {
        try await seed([note("stale")])
        let fresh = try await database.record(for: CKRecord.ID(recordName: "stale"))
        fresh["text"] = "moved on"
        _ = try await database.save(fresh)

        let stale = note("stale")   // an insert over an existing record
        let good = note("good")
        let bad = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: ""))
        let perItem = Mutex<[CKRecord.ID: CKError.Code]>([:])
        let done = expectation(description: "final block")
        let operation = CKModifyRecordsOperation(recordsToSave: [good, stale, bad], recordIDsToDelete: nil)
        operation.isAtomic = false
        operation.perRecordSaveBlock = { recordID, result in
            if let code = result.failureCode { perItem.withLock { $0[recordID] = code } }
        }
        operation.modifyRecordsResultBlock = { result in
            guard case .failure(let error as CKError) = result, error.code == .partialFailure,
                  let partial = error.partialErrorsByItemID else {
                XCTFail("expected partialFailure, got \(result)")
                done.fulfill()
                return
            }
            let codes = partial.compactMapValues { ($0 as? CKError)?.code }
            XCTAssertEqual(codes.count, 2)
            XCTAssertEqual(codes[AnyHashable(stale.recordID)], .serverRecordChanged)
            XCTAssertEqual(codes[AnyHashable(bad.recordID)], .invalidArguments)
            XCTAssertEqual(perItem.withLock { $0 }, [stale.recordID: .serverRecordChanged, bad.recordID: .invalidArguments])
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        let saved = try await database.record(for: good.recordID)
        XCTAssertEqual(saved["text"] as? String, "text")
    }

    func testAtomicFailureInACustomZoneIsSeenThroughTheBlocks() async throws {
        let zoneID = CKRecordZone.ID(zoneName: "Party")
        _ = try await database.save(CKRecordZone(zoneID: zoneID))
        let existing = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "taken", zoneID: zoneID))
        _ = try await database.save(existing)
        let clash = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "taken", zoneID: zoneID))
        let innocent = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "innocent", zoneID: zoneID))
        let codes = Mutex<[String: CKError.Code]>([:])
        let done = expectation(description: "final block")
        let operation = CKModifyRecordsOperation(recordsToSave: [innocent, clash])
        operation.perRecordSaveBlock = { recordID, result in
            codes.withLock { $0[recordID.recordName] = result.failureCode }
        }
        operation.modifyRecordsResultBlock = { result in
            XCTAssertEqual(result.failureCode, .partialFailure)
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(codes.withLock { $0 }, ["innocent": .batchRequestFailed, "taken": .serverRecordChanged])
        await XCTAssertThrowsErrorAsync { try await self.database.record(for: innocent.recordID) }
    }

    func testModernBlocksWinOverLegacyOnes() async throws {
        try await seed([note("a")])
        let log = EventLog()
        let done = expectation(description: "done")
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
        operation.perRecordResultBlock = { _, _ in log.append("modern item") }
        legacyFetchBlocks(operation, log: log)
        operation.fetchRecordsResultBlock = { _ in
            log.append("modern final")
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["modern item", "modern final"])
    }

    func testLegacyBlocksRunWhenNoModernBlockIsSet() async throws {
        try await seed([note("a")])
        let log = EventLog()
        let done = expectation(description: "done")
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a"), CKRecord.ID(recordName: "gone")])
        legacyFetchBlocks(operation, log: log, done: done)
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["legacy item a", "legacy item error gone", "legacy final 1 partialFailure"])
    }

    private func legacyFetchBlocks(_ operation: CKFetchRecordsOperation, log: EventLog, done: XCTestExpectation? = nil) {
        let operation: any LegacyFetchRecordsBlocks = operation
        operation.perRecordCompletionBlock = { record, recordID, error in
            log.append(error == nil ? "legacy item \(record?.recordID.recordName ?? "?")" : "legacy item error \(recordID?.recordName ?? "?")")
        }
        operation.fetchRecordsCompletionBlock = { records, error in
            log.append("legacy final \(records?.count ?? -1) \((error as? CKError)?.code.title.replacingOccurrences(of: " ", with: "").lowercasedFirst ?? "ok")")
            done?.fulfill()
        }
    }

    func testLegacyModifyBlocksReportSavedRecordsAndDeletedIDs() async throws {
        try await seed([note("old")])
        let done = expectation(description: "done")
        let modify = CKModifyRecordsOperation(recordsToSave: [note("new")], recordIDsToDelete: [CKRecord.ID(recordName: "old")])
        let operation: any LegacyModifyRecordsBlocks = modify
        let perRecord = Mutex<[String]>([])
        operation.perRecordCompletionBlock = { record, error in perRecord.withLock { $0.append("\(record.recordID.recordName) \(error == nil)") } }
        operation.modifyRecordsCompletionBlock = { saved, deleted, error in
            XCTAssertEqual(saved?.map(\.recordID.recordName), ["new"])
            XCTAssertNotNil(saved?.first?.recordChangeTag)
            XCTAssertEqual(deleted?.map(\.recordName), ["old"])
            XCTAssertNil(error)
            done.fulfill()
        }
        database.add(modify)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(perRecord.withLock { $0 }, ["new true"])
    }

    func testLegacyBlocksOfQueryAndZoneOperationsRunWhenNoModernBlockIsSet() async throws {
        try await seed([note("a")])
        let log = EventLog()
        let queried = expectation(description: "queried")
        let query = CKQueryOperation(query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)))
        let legacyQuery: any LegacyQueryBlocks = query
        legacyQuery.recordFetchedBlock = { record in log.append("fetched \(record.recordID.recordName)") }
        legacyQuery.queryCompletionBlock = { cursor, error in
            log.append("query done \(cursor == nil) \(error == nil)")
            queried.fulfill()
        }
        database.add(query)
        await fulfillment(of: [queried], timeout: 10)

        let modified = expectation(description: "zones modified")
        let modify = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneName: "z")], recordZoneIDsToDelete: nil)
        (modify as any LegacyModifyRecordZonesBlocks).modifyRecordZonesCompletionBlock = { saved, deleted, error in
            log.append("saved \(saved?.map(\.zoneID.zoneName) ?? []) deleted \(deleted?.count ?? -1) \(error == nil)")
            modified.fulfill()
        }
        database.add(modify)
        await fulfillment(of: [modified], timeout: 10)

        let listed = expectation(description: "zones listed")
        let fetch = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        (fetch as any LegacyFetchRecordZonesBlocks).fetchRecordZonesCompletionBlock = { zones, error in
            log.append("zones \(zones?.keys.map(\.zoneName).sorted() ?? []) \(error == nil)")
            listed.fulfill()
        }
        database.add(fetch)
        await fulfillment(of: [listed], timeout: 10)

        XCTAssertEqual(log.all, [
            "fetched a", "query done true true",
            "saved [\"z\"] deleted 0 true",
            "zones [\"_defaultZone\", \"z\"] true",
        ])
    }

    func testFinalBlockHasReturnedBeforeTheOperationIsFinished() async throws {
        try await seed([note("a")])
        let done = expectation(description: "dependent ran")
        let results = Mutex<[String]>([])
        let fetch = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
        fetch.fetchRecordsResultBlock = { [unowned fetch] _ in
            XCTAssertFalse(fetch.isFinished)
            XCTAssertTrue(fetch.isExecuting)
            results.withLock { $0.append("fetched") }
        }
        let after = BlockOperation {
            results.withLock { $0.append("dependent sees \($0.count) result") }
            done.fulfill()
        }
        after.addDependency(fetch)
        let queue = OperationQueue()
        queue.addOperation(after)
        database.add(fetch)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(results.withLock { $0 }, ["fetched", "dependent sees 1 result"])
    }

    func testCompletionBlockRunsOnceAfterTheFinalBlockAndIsReleased() async throws {
        let log = EventLog()
        let done = expectation(description: "completion block")
        weak var weakOperation: CKModifyRecordsOperation?
        do {
            let operation = CKModifyRecordsOperation(recordsToSave: [note("a")])
            operation.modifyRecordsResultBlock = { _ in log.append("final") }
            operation.completionBlock = {
                log.append("completion \(operation.isFinished)")   // captures the operation strongly
                done.fulfill()
            }
            weakOperation = operation
            database.add(operation)
        }
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["final", "completion true"])
        let released = expectation(description: "released")
        Task.detached {
            while weakOperation != nil { await Task.yield() }
            released.fulfill()
        }
        await fulfillment(of: [released], timeout: 10)
    }

    func testProgressEndsAtOneBeforeEachResultAndIsIntermediateOnlyForAssets() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID().uuidString).txt")
        try Data("image".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let photo = note("photo")
        photo["image"] = CKAsset(fileURL: file)
        let plain = note("plain")

        let log = EventLog()
        let saved = expectation(description: "saved")
        let save = CKModifyRecordsOperation(recordsToSave: [photo, plain])
        save.perRecordProgressBlock = { record, progress in log.append("save \(record.recordID.recordName) \(progress)") }
        save.perRecordSaveBlock = { recordID, _ in log.append("saved \(recordID.recordName)") }
        save.modifyRecordsResultBlock = { _ in saved.fulfill() }
        database.add(save)
        await fulfillment(of: [saved], timeout: 10)

        let fetched = expectation(description: "fetched")
        let fetch = CKFetchRecordsOperation(recordIDs: [photo.recordID, plain.recordID])
        fetch.perRecordProgressBlock = { recordID, progress in log.append("fetch \(recordID.recordName) \(progress)") }
        fetch.perRecordResultBlock = { recordID, _ in log.append("fetched \(recordID.recordName)") }
        fetch.fetchRecordsResultBlock = { _ in fetched.fulfill() }
        database.add(fetch)
        await fulfillment(of: [fetched], timeout: 10)

        XCTAssertEqual(log.all, [
            "save photo 0.5", "save photo 1.0", "saved photo", "save plain 1.0", "saved plain",
            "fetch photo 0.5", "fetch photo 1.0", "fetched photo", "fetch plain 1.0", "fetched plain",
        ])
    }

    func testFetchCurrentUserRecordOperationFetchesTheUsersRecord() async throws {
        let done = expectation(description: "done")
        let found = Mutex<CKRecord?>(nil)
        let operation = CKFetchRecordsOperation.fetchCurrentUserRecordOperation()
        operation.perRecordResultBlock = { _, result in found.withLock { $0 = try? result.get() } }
        operation.fetchRecordsResultBlock = { _ in done.fulfill() }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        let userID = try await database.container.userRecordID()
        XCTAssertEqual(found.withLock { $0 }?.recordID, userID)
        XCTAssertEqual(found.withLock { $0 }?.recordType, CKRecord.SystemType.userRecord)
    }

    func testZoneOperationsReportEveryZone() async throws {
        let saved = expectation(description: "saved")
        let codes = Mutex<[String: CKError.Code?]>([:])
        let modify = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneName: "a"), CKRecordZone.default()], recordZoneIDsToDelete: [CKRecordZone.ID(zoneName: "never")])
        modify.perRecordZoneSaveBlock = { zoneID, result in codes.withLock { $0["save \(zoneID.zoneName)"] = result.failureCode } }
        modify.perRecordZoneDeleteBlock = { zoneID, result in codes.withLock { $0["delete \(zoneID.zoneName)"] = result.failureCode } }
        modify.modifyRecordZonesResultBlock = { result in
            XCTAssertEqual(result.failureCode, .partialFailure)
            saved.fulfill()
        }
        database.add(modify)
        await fulfillment(of: [saved], timeout: 10)
        XCTAssertEqual(codes.withLock { $0 }, ["save a": Optional<CKError.Code>.none, "save _defaultZone": .invalidArguments, "delete never": .zoneNotFound])

        let listed = expectation(description: "listed")
        let names = Mutex<[String]>([])
        let all = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        all.perRecordZoneResultBlock = { zoneID, _ in names.withLock { $0.append(zoneID.zoneName) } }
        all.fetchRecordZonesResultBlock = { _ in listed.fulfill() }
        database.add(all)
        await fulfillment(of: [listed], timeout: 10)
        XCTAssertEqual(names.withLock { $0 }, ["_defaultZone", "a"])
    }
}

extension String {
    var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}

func XCTAssertThrowsErrorAsync<T>(_ body: () async throws -> T, file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await body()
        XCTFail("expected an error", file: file, line: line)
    } catch {}
}
