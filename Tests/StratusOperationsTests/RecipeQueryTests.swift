@_spi(Testing) import Stratus
import StratusToolkit
import XCTest
import _StratusTestSupport

/// The cursor-following recipe: one query, page after page, each record once.
final class RecipeQueryTests: RecipeTestCase {
    private let everyNote = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))

    private func seedNotes(_ count: Int) async throws {
        let records = (0..<count).map { index -> CKRecord in
            let record = note("n\(index)")
            record["extra"] = "not wanted"
            return record
        }
        _ = try await database.modifyRecordsInBatches(saving: records)
    }

    private var queryRequests: [RecordedRequest] {
        server.requestLog.filter { $0.endpoint == .queryRecords }
    }

    func testAllRecordsFollowsCursorsWithTheSameDesiredKeysAndLimitUntilThereIsNone() async throws {
        try await seedNotes(250)
        let matches = try await database.allRecords(matching: everyNote, desiredKeys: ["text"], resultsLimit: 100)
        XCTAssertEqual(matches.count, 250)
        XCTAssertEqual(Set(matches.map(\.0.recordName)).count, 250, "each record once")
        for (_, result) in matches {
            let record = try result.get()
            XCTAssertEqual(record.allKeys(), ["text"], "every page keeps the desired keys")
        }
        XCTAssertEqual(queryRequests.count, 3, "pages of 100, 100 and 50")
    }

    func testTheOperationDeliversEachRecordOnceThenItsFinalBlock() async throws {
        try await seedNotes(120)
        let operation = QueryAllOperation(database: database, query: everyNote)
        operation.resultsLimit = 50
        let log = EventLog()
        let done = expectation(description: "finished")
        operation.recordMatchedBlock = { recordID, _ in log.callback(recordID.recordName) }
        operation.queryResultBlock = { result in
            log.callback(result.failureCode.map { "failed \($0)" } ?? "done")
            done.fulfill()
        }
        let finished = BlockOperation { log.append("dependent ran") }
        finished.addDependency(operation)
        let queue = OperationQueue()
        queue.addOperation(operation)
        queue.addOperation(finished)
        await fulfillment(of: [done], timeout: 10)
        while !finished.isFinished { await Task.yield() }
        let events = log.all
        XCTAssertEqual(events.count, 122)
        XCTAssertEqual(Set(events.prefix(120)).count, 120)
        XCTAssertEqual(Array(events.suffix(2)), ["done", "dependent ran"])
        XCTAssertEqual(log.overlapCount, 0)
    }

    func testAPageThatFailsTransientlyIsFetchedAgainFromTheSameCursor() async throws {
        try await seedNotes(150)
        let server = self.server!
        let operation = QueryAllOperation(database: database, query: everyNote, retry: drivingPolicy())
        operation.resultsLimit = 100
        let count = Captured(0)
        operation.recordMatchedBlock = { _, _ in
            count.value += 1
            if count.value == 100 { server.failNextRequests(1, with: .zoneBusy, retryAfter: 4) }
        }
        let done = expectation(description: "finished")
        let final = Captured<Result<Void, any Error>?>(nil)
        operation.queryResultBlock = { result in
            final.value = result
            done.fulfill()
        }
        OperationQueue().addOperation(operation)
        await fulfillment(of: [done], timeout: 10)
        if case .failure(let error)? = final.value { XCTFail("expected success, got \(error)") }
        XCTAssertEqual(count.value, 150)
        XCTAssertEqual(retries.value.map(\.wait), [.seconds(4)])
        XCTAssertEqual(queryRequests.count, 3)
    }

    func testARecordThatMovesToALaterPageWhileTheQueryRunsIsDeliveredOnce() async throws {
        let records = (0..<10).map { index -> CKRecord in
            let record = note("r\(index)")
            record["rank"] = index
            return record
        }
        _ = try await database.modifyRecordsInBatches(saving: records)
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        let server = self.server!
        let operation = QueryAllOperation(database: database, query: query)
        operation.resultsLimit = 5
        let delivered = Captured<[String]>([])
        operation.recordMatchedBlock = { recordID, _ in
            delivered.value.append(recordID.recordName)
            // Hold the next page until another device has moved r0 behind every other record.
            if delivered.value.count == 5 { server.delayNextRequests(1, by: 10) }
        }
        let done = expectation(description: "finished")
        operation.queryResultBlock = { _ in done.fulfill() }
        let queries = server.requestLog.filter { $0.endpoint == .queryRecords }.count
        OperationQueue().addOperation(operation)
        while server.requestLog.filter({ $0.endpoint == .queryRecords }).count < queries + 2 { await Task.yield() }
        let phone = server.container(identifier: identifier, account: "john").privateCloudDatabase
        let moved = try await phone.record(for: CKRecord.ID(recordName: "r0"))
        moved["rank"] = 100
        try await phone.save(moved)
        clock.advance(by: 10)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(delivered.value.count, Set(delivered.value).count, "each record once: \(delivered.value)")
        XCTAssertEqual(Set(delivered.value).count, 10)
    }

    func testWithoutARetryPolicyAFailedPageEndsTheQueryWithItsError() async throws {
        try await seedNotes(10)
        server.failNextRequests(1, with: .zoneBusy, retryAfter: 4)
        do {
            _ = try await database.allRecords(matching: everyNote)
            XCTFail("expected zoneBusy")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .zoneBusy)
        }
    }
}
