import Stratus
import XCTest

/// Within one process, a container finds its long-lived operations that have started and not
/// finished, and an operation learns through `longLivedOperationWasPersistedBlock` when it
/// becomes findable.
final class LongLivedOperationTests: OperationTestCase {
    private var container: CKContainer!

    override func setUp() {
        super.setUp()
        container = server.container(identifier: identifier, account: "john")
    }

    override func tearDown() {
        container = nil
        super.tearDown()
    }

    /// Starts a fetch whose request the server holds until the clock moves 10 seconds, and
    /// returns it with the log of its blocks and an expectation for its completion block.
    private func startHeldFetch(longLived: Bool) async -> (CKFetchRecordsOperation, log: EventLog, finished: XCTestExpectation) {
        server.delayNextRequests(1, by: 10)
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "anything")])
        operation.configuration.isLongLived = longLived
        let log = EventLog()
        operation.longLivedOperationWasPersistedBlock = { log.append("persisted") }
        operation.perRecordResultBlock = { _, _ in log.append("record") }
        operation.fetchRecordsResultBlock = { _ in log.append("final") }
        let finished = expectation(description: "finished")
        operation.completionBlock = { finished.fulfill() }
        container.privateCloudDatabase.add(operation)
        while server.requestLog.isEmpty { await Task.yield() }
        return (operation, log, finished)
    }

    func testARunningLongLivedOperationIsFoundUntilItFinishes() async throws {
        let (operation, log, finished) = await startHeldFetch(longLived: true)
        while log.all.isEmpty { await Task.yield() }
        XCTAssertEqual(log.all, ["persisted"], "called once the operation has started, before its request is answered")

        let ids = try await container.allLongLivedOperationIDs()
        XCTAssertEqual(ids, [operation.operationID])
        let found = try await container.longLivedOperation(for: operation.operationID)
        XCTAssertTrue(found === operation, "the running operation itself")

        clock.advance(by: 10)
        await fulfillment(of: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["persisted", "record", "final"], "called once, before every other block")
        let idsAfter = try await container.allLongLivedOperationIDs()
        XCTAssertEqual(idsAfter, [])
        let foundAfter = try await container.longLivedOperation(for: operation.operationID)
        XCTAssertNil(foundAfter)
    }

    func testTheCompletionHandlerFormsFindTheSameOperation() async throws {
        let (operation, log, finished) = await startHeldFetch(longLived: true)
        while log.all.isEmpty { await Task.yield() }
        XCTAssertEqual(log.all, ["persisted"], "called once the operation has started, before its request is answered")

        let listed = expectation(description: "listed")
        container.fetchAllLongLivedOperationIDs { ids, error in
            XCTAssertNil(error)
            XCTAssertEqual(ids, [operation.operationID])
            listed.fulfill()
        }
        let fetched = expectation(description: "fetched")
        container.fetchLongLivedOperation(withID: operation.operationID) { found, error in
            XCTAssertNil(error)
            XCTAssertEqual(found?.operationID, operation.operationID)
            fetched.fulfill()
        }
        await fulfillment(of: [listed, fetched], timeout: 10)
        clock.advance(by: 10)
        await fulfillment(of: [finished], timeout: 10)
    }

    func testAnOperationThatIsNotLongLivedIsNeitherPersistedNorFound() async throws {
        let (operation, log, finished) = await startHeldFetch(longLived: false)
        let ids = try await container.allLongLivedOperationIDs()
        XCTAssertEqual(ids, [])
        let found = try await container.longLivedOperation(for: operation.operationID)
        XCTAssertNil(found)
        clock.advance(by: 10)
        await fulfillment(of: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["record", "final"])
    }

    func testAnotherDeviceDoesNotSeeTheOperation() async throws {
        let (operation, log, finished) = await startHeldFetch(longLived: true)
        while log.all.isEmpty { await Task.yield() }
        XCTAssertEqual(log.all, ["persisted"], "called once the operation has started, before its request is answered")
        let laptop = server.container(identifier: identifier, account: "john")
        let ids = try await laptop.allLongLivedOperationIDs()
        XCTAssertEqual(ids, [])
        let found = try await laptop.longLivedOperation(for: operation.operationID)
        XCTAssertNil(found)
        clock.advance(by: 10)
        await fulfillment(of: [finished], timeout: 10)
    }

    func testAnOperationCancelledBeforeItStartsIsNeverPersisted() async throws {
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "anything")])
        operation.configuration.isLongLived = true
        let log = EventLog()
        operation.longLivedOperationWasPersistedBlock = { log.append("persisted") }
        operation.fetchRecordsResultBlock = { _ in log.append("final") }
        let finished = expectation(description: "finished")
        operation.completionBlock = { finished.fulfill() }
        operation.cancel()
        container.privateCloudDatabase.add(operation)
        await fulfillment(of: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["final"])
        let ids = try await container.allLongLivedOperationIDs()
        XCTAssertEqual(ids, [])
    }
}
