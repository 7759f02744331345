@_spi(Testing) import Stratus
import StratusToolkit
import XCTest
import _StratusTestSupport

/// The generic retry: any CloudKit operation, rebuilt by a factory for every attempt.
final class RecipeRetryOperationTests: RecipeTestCase {
    func testAFetchIsRebuiltAndRunAgainUntilItSucceeds() async throws {
        try await seed([note("a")])
        server.failNextRequests(2, with: .zoneBusy, retryAfter: 2)
        let built = Captured<[Int]>([])
        let fetched = Captured<[CKRecord.ID: Result<CKRecord, any Error>]>([:])
        let operation = RetryOperation(database: database, policy: drivingPolicy()) { attempt in
            built.value.append(attempt)
            let fetch = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
            fetch.perRecordResultBlock = { recordID, result in fetched.value[recordID] = result }
            return fetch
        }
        let done = expectation(description: "finished")
        let final = Captured<Result<Void, any Error>?>(nil)
        operation.retryResultBlock = { result in
            final.value = result
            done.fulfill()
        }
        OperationQueue().addOperation(operation)
        await fulfillment(of: [done], timeout: 10)
        if case .failure(let error)? = final.value { XCTFail("expected success, got \(error)") }
        XCTAssertEqual(built.value, [1, 2, 3])
        XCTAssertEqual(operation.attempts, 3)
        XCTAssertEqual(retries.value.map(\.wait), [.seconds(2), .seconds(2)])
        XCTAssertEqual((try? fetched.value[CKRecord.ID(recordName: "a")]?.get())?["text"] as? String, "text")
    }

    func testRunRetryingThrowsTheLastErrorAfterTheAttemptLimit() async throws {
        server.failNextRequests(5, with: .serviceUnavailable, retryAfter: 1)
        let start = server.requestCount
        do {
            try await database.runRetrying(policy: drivingPolicy(RetryPolicy(maximumAttempts: 2))) { _ in
                CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneName: "Party")], recordZoneIDsToDelete: nil)
            }
            XCTFail("expected serviceUnavailable")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .serviceUnavailable)
        }
        XCTAssertEqual(server.requestCount - start, 2)
    }

    func testAPartialFailureIsNotRetriedAsAWhole() async throws {
        try await seed([note("a")])
        let stale = note("a")
        let fresh = note("b")
        let built = Captured(0)
        do {
            try await database.runRetrying(policy: drivingPolicy()) { _ in
                built.value += 1
                let modify = CKModifyRecordsOperation(recordsToSave: [stale, fresh])
                modify.isAtomic = false
                return modify
            }
            XCTFail("expected a partial failure")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .partialFailure)
        }
        XCTAssertEqual(built.value, 1)
        XCTAssertEqual(writesByName["b"]?.count, 1)
    }

    func testAFactoryThatReturnsAnOperationAlreadyRunIsRefused() async throws {
        server.failNextRequests(1, with: .zoneBusy, retryAfter: 1)
        let reused = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        do {
            try await database.runRetrying(policy: drivingPolicy()) { _ in reused }
            XCTFail("expected invalidArguments")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .invalidArguments)
        }
    }
}
