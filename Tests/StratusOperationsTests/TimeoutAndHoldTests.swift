import Stratus
import Synchronization
import XCTest
import _StratusTestSupport

/// Timeouts on the device's clock (the server's, in these tests), and the rate-limit hold of design.md.
final class TimeoutAndHoldTests: OperationTestCase {
    private func fetchOutcome(_ configure: (CKFetchRecordsOperation) -> Void = { _ in }) -> (CKFetchRecordsOperation, XCTestExpectation, Captured<Result<Void, any Error>?>) {
        let outcome = Captured<Result<Void, any Error>?>(nil)
        let done = expectation(description: "final")
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "x")])
        operation.fetchRecordsResultBlock = { result in
            outcome.value = result
            done.fulfill()
        }
        configure(operation)
        return (operation, done, outcome)
    }

    private func assertTimedOut(_ outcome: Captured<Result<Void, any Error>?>, file: StaticString = #filePath, line: UInt = #line) {
        guard case .failure(let error as CKError)? = outcome.value else {
            return XCTFail("expected a failure", file: file, line: line)
        }
        XCTAssertEqual(error.code, .networkFailure, file: file, line: line)
        XCTAssertEqual((error.userInfo[NSUnderlyingErrorKey] as? URLError)?.code, .timedOut, file: file, line: line)
        XCTAssertTrue(error.localizedDescription.contains("may still have applied"), "a timed-out request may still land: \(error.localizedDescription)", file: file, line: line)
    }

    func testARequestSlowerThanTheRequestTimeoutFailsWithNetworkFailure() async {
        server.delayNextRequests(1, by: 120)
        let (operation, done, outcome) = fetchOutcome()
        database.add(operation)
        while server.requestLog.isEmpty { await Task.yield() }
        clock.advance(by: 59)
        XCTAssertNil(outcome.value)
        clock.advance(by: 1)
        await fulfillment(of: [done], timeout: 10)
        assertTimedOut(outcome)
        clock.advance(by: 60)
    }

    func testTheRequestTimeoutCanBeSetOnTheOperationOrItsGroup() async {
        server.delayNextRequests(1, by: 30)
        let group = CKOperationGroup()
        group.defaultConfiguration.timeoutIntervalForRequest = 10
        let (operation, done, outcome) = fetchOutcome { $0.group = group }
        database.add(operation)
        while server.requestLog.isEmpty { await Task.yield() }
        clock.advance(by: 10)
        await fulfillment(of: [done], timeout: 10)
        assertTimedOut(outcome)
        clock.advance(by: 30)
    }

    func testAnOperationSlowerThanTheResourceTimeoutFailsWithNetworkFailure() async {
        server.delayNextRequests(1, by: 1_000)
        let (operation, done, outcome) = fetchOutcome {
            $0.configuration.timeoutIntervalForRequest = 10_000
            $0.configuration.timeoutIntervalForResource = 100
        }
        database.add(operation)
        while server.requestLog.isEmpty { await Task.yield() }
        clock.advance(by: 100)
        await fulfillment(of: [done], timeout: 10)
        assertTimedOut(outcome)
        clock.advance(by: 1_000)
    }

    func testARequestWithinItsTimeoutSucceeds() async {
        server.delayNextRequests(1, by: 30)
        let (operation, done, outcome) = fetchOutcome()
        database.add(operation)
        while server.requestLog.isEmpty { await Task.yield() }
        clock.advance(by: 30)
        await fulfillment(of: [done], timeout: 10)
        if case .failure(let error as CKError)? = outcome.value {
            XCTAssertEqual(error.code, .partialFailure, "the record does not exist, but the request came back in time")
        }
    }

    func testRateLimitedAnswerHoldsTheNextRequestUntilTheWindowPasses() async throws {
        server.failNextRequests(1, with: .requestRateLimited, retryAfter: 30)
        let first = try? await database.allRecordZones()
        XCTAssertNil(first)
        XCTAssertEqual(server.requestCount, 1)
        clock.advance(by: 10)
        do {
            _ = try await database.allRecordZones()
            XCTFail("expected the hold")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .requestRateLimited)
            XCTAssertEqual(error.retryAfterSeconds, 20)
        }
        XCTAssertEqual(server.requestCount, 1, "a held request is never sent")
        let otherDevice = server.container(identifier: identifier, account: "john").privateCloudDatabase
        _ = try await otherDevice.allRecordZones()
        XCTAssertEqual(server.requestCount, 2, "the hold is per device")
        clock.advance(by: 20)
        _ = try await database.allRecordZones()
        XCTAssertEqual(server.requestCount, 3)
    }

    func testZoneBusyCausesNoHold() async throws {
        server.failNextRequests(1, with: .zoneBusy, retryAfter: 30)
        let first = try? await database.allRecordZones()
        XCTAssertNil(first)
        _ = try await database.allRecordZones()
        XCTAssertEqual(server.requestCount, 2)
    }
}

extension TimeoutAndHoldTests {
    func testTheHoldCoversEveryContainerObjectOfTheDevice() async throws {
        let first = database.container
        let second = CKContainer(identifier: identifier, service: server, device: first.device)
        server.failNextRequests(1, with: .requestRateLimited, retryAfter: 30)
        _ = try? await first.privateCloudDatabase.allRecordZones()
        do {
            _ = try await second.privateCloudDatabase.allRecordZones()
            XCTFail("expected the hold")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .requestRateLimited)
        }
        await XCTAssertThrowsErrorAsync { try await second.userRecordID() }
        XCTAssertEqual(server.requestCount, 1)
        XCTAssertTrue(CKContainer.default() === CKContainer.default())
    }
}

extension TimeoutAndHoldTests {
    func testASaveThatTimesOutIsStillAppliedAndItsErrorSaysSo() async throws {
        server.delayNextRequests(1, by: 120)
        let record = note("late")
        let saved = expectation(description: "save finished")
        let outcome = Captured<Result<Void, any Error>?>(nil)
        let operation = CKModifyRecordsOperation(recordsToSave: [record])
        operation.modifyRecordsResultBlock = { result in
            outcome.value = result
            saved.fulfill()
        }
        database.add(operation)
        while server.requestLog.isEmpty { await Task.yield() }
        clock.advance(by: 60)
        await fulfillment(of: [saved], timeout: 10)
        assertTimedOut(outcome)
        clock.advance(by: 60)
        // The server applied the save after the client gave up on it.
        var fetched: CKRecord?
        while fetched == nil {
            fetched = try? await database.record(for: record.recordID)
            await Task.yield()
        }
        XCTAssertNotNil(fetched?.recordChangeTag)
    }

    func testATimeoutOfNaNIsRefusedAndInfinityMeansNone() async {
        let configuration = CKOperation.Configuration()
        configuration.timeoutIntervalForRequest = .nan
        XCTAssertEqual(configuration.timeoutIntervalForRequest, 0, "NaN means the default")
        configuration.timeoutIntervalForResource = .nan
        XCTAssertEqual(configuration.timeoutIntervalForResource, 0)

        server.delayNextRequests(1, by: 1_000)
        let (operation, done, outcome) = fetchOutcome {
            $0.configuration.timeoutIntervalForRequest = .infinity
            $0.configuration.timeoutIntervalForResource = .infinity
        }
        database.add(operation)
        while server.requestLog.isEmpty { await Task.yield() }
        clock.advance(by: 999)
        XCTAssertNil(outcome.value, "an infinite timeout never fires")
        clock.advance(by: 1)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertNotNil(outcome.value)
    }
}
